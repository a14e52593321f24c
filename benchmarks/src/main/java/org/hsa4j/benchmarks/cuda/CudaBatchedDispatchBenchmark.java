package org.hsa4j.benchmarks.cuda;

import java.util.concurrent.TimeUnit;

import org.hsa4j.benchmarks.BatchedPacketsBenchmark;
import org.hsa4j.benchmarks.Waits;
import org.hsa4j.cuda.CudaKernel;
import org.hsa4j.cuda.CudaStream;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.queue.Queue;
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
 * FIGURE (issue 18): throughput of empty-kernel dispatches on the GPU, {@value #BATCH} per doorbell.
 *
 * <p>What it measures, per invocation ({@link #side}), scored per dispatch:
 * <ul>
 * <li>HSA4J_AQL: reserve {@value #BATCH} ids at once on the CUDA agent's {@value #QUEUE_SIZE}-slot
 *     queue, write and publish {@value #BATCH} 1-work-item dispatches of {@code hsa4j_empty} (the
 *     last with the barrier bit and the completion signal, as {@link BatchedPacketsBenchmark}
 *     KERNEL_DISPATCH writes them), ring the doorbell once, spin until the signal reads 0.
 * <li>HSA4J_RESIDENT: the same batch on a GPU-resident queue ({@code CudaAgent.createResidentQueue},
 *     built-in {@code hsa4j_r_empty}, signal from {@code CudaAgent.createSignal}): the processor grid
 *     runs the packets one after another and decrements the signal after the last.
 * <li>RAW_CUDA, the baseline: {@value #BATCH} {@code cuLaunchKernel}s of the same kernel into one
 *     stream, then one {@code cuStreamSynchronize}.
 * <li>CPU_POOL, a reference line: the HSA4J_AQL batch on the runtime's CPU-pool agent with an empty
 *     Java kernel.
 * </ul>
 * Goals: HSA4J_AQL at least 0.8x RAW_CUDA's dispatches/s (issue 18), HSA4J_RESIDENT at least 2x
 * (issue 19), all from the same JMH run. Self-check:
 * each batch waits (bounded) for its last packet, which the barrier bit orders after every other.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class CudaBatchedDispatchBenchmark {
    /** Dispatches per doorbell (and per stream synchronisation). */
    public static final int BATCH = 256;
    /** Slots of the queue: a batch is a quarter of it. */
    public static final int QUEUE_SIZE = 1024;

    /** hsa4j's AQL path, the raw-CUDA baseline, or the CPU-pool reference. */
    @Param({"HSA4J_AQL", "HSA4J_RESIDENT", "RAW_CUDA", "CPU_POOL"})
    public Side side;

    private Trial trial;
    private CudaStream stream;
    private CudaKernel empty;
    private Queue queue;
    private long kernelObject;
    private Signal done;
    private final KernelDispatchPacket packet = new KernelDispatchPacket();

    @Setup(Level.Trial)
    public void start() {
        trial = new Trial();
        done = trial.runtime.createSignal(0);
        if (side == Side.CPU_POOL) {
            queue = trial.cpuQueue(QUEUE_SIZE);
            kernelObject = trial.cpuKernel("empty", wi -> {
            });
            return;
        }
        CudaBench gpu = trial.gpu(QUEUE_SIZE);
        empty = gpu.kernel("hsa4j_empty");
        queue = gpu.queue;
        kernelObject = empty.kernelObject();
        if (side == Side.HSA4J_RESIDENT) {
            queue = gpu.resident(QUEUE_SIZE);
            kernelObject = gpu.residentKernel("hsa4j_r_empty");
            done = gpu.agent.createSignal(0);   // in the registered SVM: the grid decrements it
        }
        if (side == Side.RAW_CUDA) {
            stream = trial.stream();
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        trial.close();
    }

    /** {@value #BATCH} empty dispatches and their completion; scored per dispatch. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long batch() {
        if (side == Side.RAW_CUDA) {
            stream.launch(empty, 1, 1, null, BATCH);
            stream.synchronize();
            return 0;
        }
        done.storeRelaxed(1);
        long first = queue.addWriteIndexScacqScrel(BATCH);
        long last = first + BATCH - 1;
        queue.waitForSpace(last);
        BatchedPacketsBenchmark.writeKernels(packet, queue, first, last, kernelObject, done.handle());
        queue.ringDoorbell(last);
        return Waits.await(done, SignalCondition.EQ, 0, WaitState.ACTIVE);
    }
}
