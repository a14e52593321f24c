package org.hsa4j.benchmarks;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * FIGURE: packet throughput of one queue when packets are submitted in batches.
 *
 * <p>What it measures: per invocation the host reserves {@value #BATCH} packet ids at once
 * ({@code addWriteIndexScacqScrel(BATCH)}) in a {@value #QUEUE_SIZE}-slot queue, writes and publishes
 * every packet (body, then the header with its release store), rings the doorbell once with the last
 * id, and waits (ACTIVE) for the batch's completion; the score is packets per second
 * ({@link OperationsPerInvocation}). Two packet kinds ({@link #packetType}):
 * <ul>
 * <li>BARRIER_AND with no dependencies: the processor's pure per-packet cost (read the header,
 *     validate, consume, free the slot). Barrier packets complete in order, so only the last packet
 *     carries the completion signal.</li>
 * <li>KERNEL_DISPATCH of an empty 1-work-item kernel: the per-packet cost of launch, workgroup
 *     execution and completion. Kernels may complete out of order, so the last packet carries the
 *     completion signal and the barrier bit: it launches only after every earlier packet of the
 *     batch has completed, hence its completion is the batch's (the usual HIP pattern).</li>
 * </ul>
 *
 * <p>Why it is fair: it is the raw protocol an application (or a HIP-like layer) uses to stream
 * work, with one doorbell per batch as the spec allows, one reused queue, signal and kernel object,
 * on the runtime's default configuration ({@code HsaRuntime.init()}).
 * Every packet has a system-scope acquire fence; only the last has a system-scope release fence,
 * which is all the host needs to see the whole batch's effects once it sees the signal.
 * The queue never overflows (a batch is a quarter of the ring) and every packet body is written in
 * full, as a producer reusing slots must. Goal (issue hsa-runtime): at least 5 million packets/s.
 * Its baseline, measured in the same JMH run, is the same batch handed to a single-thread
 * {@code ExecutorService} ({@link ExecutorBaselineBenchmark#executeBatch()}), the plain-Java
 * cost of streaming no-op tasks to another thread.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class BatchedPacketsBenchmark {
    /** Packets per doorbell. */
    public static final int BATCH = 256;
    /** Slots of the queue. */
    public static final int QUEUE_SIZE = 1024;

    /** The kind of packet streamed. */
    @Param({"BARRIER_AND", "KERNEL_DISPATCH"})
    public PacketType packetType;

    private static final short BARRIER =
            PacketHeader.of(PacketType.BARRIER_AND, false, FenceScope.SYSTEM, FenceScope.NONE);
    private static final short LAST_BARRIER =
            PacketHeader.of(PacketType.BARRIER_AND, false, FenceScope.SYSTEM, FenceScope.SYSTEM);
    private static final short KERNEL =
            PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.NONE);
    static final short LAST_KERNEL =
            PacketHeader.of(PacketType.KERNEL_DISPATCH, true, FenceScope.SYSTEM, FenceScope.SYSTEM);

    private HsaRuntime rt;
    private Queue queue;
    private MemorySegment ring;
    private Signal done;
    private Executable executable;
    private long kernelObject;
    private final BarrierPacket barrier = new BarrierPacket();
    private final KernelDispatchPacket kernel = new KernelDispatchPacket();

    @Setup(Level.Trial)
    public void start() {
        if (packetType != PacketType.BARRIER_AND && packetType != PacketType.KERNEL_DISPATCH) {
            throw new IllegalArgumentException("packetType must be BARRIER_AND or KERNEL_DISPATCH, was " + packetType);
        }
        rt = HsaRuntime.init();
        queue = rt.gpuAgent().createQueue(QUEUE_SIZE, QueueType.SINGLE, null);
        ring = queue.ring();
        done = rt.createSignal(0);
        executable = rt.createExecutable().define("empty", KernelDescriptor.EMPTY, wi -> {
        }).freeze();
        kernelObject = executable.symbol("empty").kernelObject();
    }

    @TearDown(Level.Trial)
    public void stop() {
        if (rt != null) {
            rt.close();
        }
    }

    /** One batch of {@value #BATCH} packets, one doorbell, one wait; scored per packet. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long batch() {
        done.storeRelaxed(1);
        long first = queue.addWriteIndexScacqScrel(BATCH);
        long last = first + BATCH - 1;
        queue.waitForSpace(last);
        if (packetType == PacketType.BARRIER_AND) {
            writeBarriers(first, last);
        } else {
            writeKernels(kernel, queue, first, last, kernelObject, done.handle());
        }
        queue.ringDoorbell(last);
        return Waits.await(done, SignalCondition.EQ, 0, WaitState.ACTIVE);
    }

    private void writeBarriers(long first, long last) {
        for (long id = first; id <= last; id++) {
            barrier.wrap(ring, queue.slotOffset(id));
            for (int d = 0; d < BarrierPacket.DEP_SIGNAL_COUNT; d++) {
                barrier.depSignal(d, 0);
            }
            if (id == last) {
                barrier.completionSignal(done.handle()).publish(LAST_BARRIER);
            } else {
                barrier.completionSignal(0).publish(BARRIER);
            }
        }
    }

    /**
     * One batch of {@value #BATCH} empty dispatches of {@code kernelObject} into {@code queue}
     * ({@link #writeKernels}), one doorbell, then an ACTIVE wait for {@code done} (set to 1 here).
     */
    public static long submitKernelBatch(KernelDispatchPacket kernel, Queue queue, long kernelObject, Signal done) {
        done.storeRelaxed(1);
        long first = queue.addWriteIndexScacqScrel(BATCH);
        long last = first + BATCH - 1;
        queue.waitForSpace(last);
        writeKernels(kernel, queue, first, last, kernelObject, done.handle());
        queue.ringDoorbell(last);
        return Waits.await(done, SignalCondition.EQ, 0, WaitState.ACTIVE);
    }

    /**
     * Writes and publishes empty 1-work-item dispatches of {@code kernelObject} into ids {@code first..last}
     * of {@code queue}; the last one carries the barrier bit and {@code doneHandle} (see the class comment).
     */
    public static void writeKernels(KernelDispatchPacket kernel, Queue queue, long first, long last, long kernelObject,
                             long doneHandle) {
        MemorySegment ring = queue.ring();
        for (long id = first; id <= last; id++) {
            kernel.wrap(ring, queue.slotOffset(id))
                    .workgroupSize(1, 1, 1)
                    .gridSize(1, 1, 1)
                    .privateSegmentSize(0)
                    .groupSegmentSize(0)
                    .kernelObject(kernelObject)
                    .kernargAddress(0);
            if (id == last) {
                kernel.completionSignal(doneHandle).publish(LAST_KERNEL, 1);
            } else {
                kernel.completionSignal(0).publish(KERNEL, 1);
            }
        }
    }
}
