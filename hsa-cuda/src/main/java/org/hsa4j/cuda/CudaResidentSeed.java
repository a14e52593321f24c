package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.MemoryPool;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;

/**
 * The raw HSA flow with the GPU as its own packet processor (issue 19 part 1's example, the CUDA
 * version of {@code hsa_dispatch}): a GPU-resident queue, a vector add written field by field into
 * its ring, a second dispatch with the barrier bit that doubles the first one's output, both
 * checked element by element; then empty-kernel round trips (packet write to completion signal
 * observed, no host thread in between) against {@code cuLaunchKernel} + {@code cuStreamSynchronize}.
 */
final class CudaResidentSeed {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final long WARM_NANOS = TimeUnit.SECONDS.toNanos(3);

    private CudaResidentSeed() {
    }

    /**
     * Runs it over {@code n} floats with {@code trips} timed round trips, {@code rawEmpty} (an empty
     * kernel of an ordinary module) the baseline's kernel; true when every check held.
     */
    static boolean run(CudaAgent agent, CudaKernel rawEmpty, int n, int trips, PrintStream out) {
        CudaResidentProgram program = CudaResidentProgram.builtin(agent);
        CompletableFuture<HsaException> error = new CompletableFuture<>();
        Queue queue = agent.createResidentQueue(256, QueueType.SINGLE, (e, q) -> error.complete(e), program,
                CudaResidentOptions.DEFAULTS);
        MemoryPool svm = agent.svmPool();   // registered SVM: the grid reads kernargs and data at these addresses
        long a = svm.allocate(4L * n, 64);
        long b = svm.allocate(4L * n, 64);
        long c = svm.allocate(4L * n, 64);
        long d = svm.allocate(4L * n, 64);
        long addArgs = svm.allocate(24, 16);
        long twiceArgs = svm.allocate(16, 16);
        try {
            MemorySegment sa = agent.runtime().svm().segment(a, 4L * n);
            MemorySegment sb = agent.runtime().svm().segment(b, 4L * n);
            MemorySegment sc = agent.runtime().svm().segment(c, 4L * n);
            MemorySegment sd = agent.runtime().svm().segment(d, 4L * n);
            for (int i = 0; i < n; i++) {
                sa.setAtIndex(JAVA_FLOAT, i, i);
                sb.setAtIndex(JAVA_FLOAT, i, n - i);
            }
            sc.fill((byte) 0);
            sd.fill((byte) 0);
            MemorySegment k1 = agent.runtime().svm().segment(addArgs, 24);
            k1.set(JAVA_LONG, 0, a);
            k1.set(JAVA_LONG, 8, b);
            k1.set(JAVA_LONG, 16, c);
            MemorySegment k2 = agent.runtime().svm().segment(twiceArgs, 16);
            k2.set(JAVA_LONG, 0, c);
            k2.set(JAVA_LONG, 8, d);

            Signal done = agent.createSignal(1);   // device-reachable: the grid decrements it
            long first = queue.addWriteIndexScacqScrel(2);
            queue.waitForSpace(first + 1);
            // the spec's flow: fields first, the header last with one release store, then the doorbell
            queue.kernelDispatchPacket(first).workgroupSize(256, 1, 1).gridSize(n, 1, 1).privateSegmentSize(0)
                    .groupSegmentSize(0).kernelObject(program.kernelObject("hsa4j_r_vector_add")).kernargAddress(addArgs)
                    .completionSignal(0)
                    .publish(PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.NONE), 1);
            queue.kernelDispatchPacket(first + 1).workgroupSize(256, 1, 1).gridSize(n, 1, 1).privateSegmentSize(0)
                    .groupSegmentSize(0).kernelObject(program.kernelObject("hsa4j_r_twice")).kernargAddress(twiceArgs)
                    .completionSignal(done.handle())
                    .publish(PacketHeader.of(PacketType.KERNEL_DISPATCH, true, FenceScope.SYSTEM, FenceScope.SYSTEM), 1);
            queue.ringDoorbell(first + 1);
            if (!await(done)) {
                out.println("gpu_resident: FAILED: the two dispatches did not complete within 60 s");
                return false;
            }
            for (int i = 0; i < n; i++) {
                if (sc.getAtIndex(JAVA_FLOAT, i) != n || sd.getAtIndex(JAVA_FLOAT, i) != 2f * n) {
                    out.printf("gpu_resident: FAILED: c[%d] = %s, d[%d] = %s (want %d and %d)%n", i,
                            sc.getAtIndex(JAVA_FLOAT, i), i, sd.getAtIndex(JAVA_FLOAT, i), n, 2 * n);
                    return false;
                }
            }
            out.printf("gpu_resident: a %d-element vector add and, behind the barrier bit, d = 2c, processed by a "
                    + "GPU-resident grid on %s (%d workgroups each); every element right%n", n, agent.name(), (n + 255) / 256);

            // rounds of resident trips and raw launches taking turns, after a warm-up of both for at least
            // WARM_NANOS: a process's first seconds on the card run slower (a fresh process measured
            // 1.03-1.09x raw here where JMH, after its warm-up, measures 0.70x), and a baseline timed apart
            // would not share that
            long empty = program.kernelObject("hsa4j_r_empty");
            int rounds = 4;
            int per = trips / rounds;
            long[] resident = new long[per * rounds];
            long[] raw = new long[per * rounds];
            try (CudaStream stream = CudaStream.open(agent)) {
                long warmUntil = System.nanoTime() + WARM_NANOS;
                do {
                    if (!round(queue, empty, done, stream, rawEmpty, per, null, null, 0, out)) {
                        return false;
                    }
                } while (System.nanoTime() - warmUntil < 0);
                for (int k = 0; k < rounds; k++) {
                    if (!round(queue, empty, done, stream, rawEmpty, per, resident, raw, k * per, out)) {
                        return false;
                    }
                }
            }
            long r = CudaSeeds.median(resident);
            long l = CudaSeeds.median(raw);
            out.printf("gpu_resident: empty kernel round trip median %s through the resident queue; baseline: %s with "
                    + "cuLaunchKernel+cuStreamSynchronize (ratio %.2f)%n", CudaSeeds.us(r), CudaSeeds.us(l), r / (double) l);
            if (error.isDone()) {
                out.println("gpu_resident: FAILED: queue error " + error.join().getMessage());
                return false;
            }
            return true;
        } finally {
            queue.destroy();
            for (long p : new long[] {a, b, c, d, addArgs, twiceArgs}) {
                svm.free(p);
            }
        }
    }

    /**
     * {@code per} resident round trips, then {@code per} raw launches with a synchronize each; their
     * times go to {@code resident} and {@code raw} from index {@code at} (nowhere when null: a warm-up).
     */
    private static boolean round(Queue queue, long empty, Signal done, CudaStream stream, CudaKernel rawEmpty, int per,
                                 long[] resident, long[] raw, int at, PrintStream out) {
        for (int i = 0; i < per; i++) {
            done.storeRelaxed(1);
            long s = System.nanoTime();
            queue.launch(empty).grid(1).workgroup(1).kernarg(0).completion(done).dispatch();
            if (!await(done)) {
                out.println("gpu_resident: FAILED: a round trip did not complete");
                return false;
            }
            if (resident != null) {
                resident[at + i] = System.nanoTime() - s;
            }
        }
        for (int i = 0; i < per; i++) {
            long s = System.nanoTime();
            stream.launch(rawEmpty, 1, 1, null);
            stream.synchronize();
            if (raw != null) {
                raw[at + i] = System.nanoTime() - s;
            }
        }
        return true;
    }

    private static boolean await(Signal s) {
        return s.waitScacquire(SignalCondition.EQ, 0, WAIT_NANOS, WaitState.ACTIVE) == 0;
    }
}
