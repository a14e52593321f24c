package org.hsa4j.benchmarks.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

import org.hsa4j.benchmarks.Dispatches;
import org.hsa4j.benchmarks.Waits;
import org.hsa4j.cuda.CudaBuffer;
import org.hsa4j.cuda.CudaKernel;
import org.hsa4j.cuda.CudaStream;
import org.hsa4j.queue.Queue;
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
 * FIGURE (issue 18): the sync_1way seed on the GPU, in system-scope atomics per second.
 *
 * <p>What it measures, per invocation ({@link #side}): {@value #BLOCKS} x {@value #THREADS}
 * work-items each add 1 {@value #TIMES} times to one int in host-visible memory with system-scope
 * atomics ({@code hsa4j_count}: {@code atomicAdd_system} on pinned memory), from the host's reset
 * of the counter to the completion observed; scored per atomic ({@value #ATOMICS} per invocation).
 * <ul>
 * <li>HSA4J_AQL: one dispatch through the CUDA agent's AQL queue, completion on an hsa4j signal.
 * <li>RAW_CUDA: the same kernel with {@code cuLaunchKernel} + {@code cuStreamSynchronize}.
 * <li>CPU_POOL, a reference line: a Java kernel on the CPU-pool agent doing the same adds with
 *     {@code getAndAdd} on an int in SVM.
 * </ul>
 * Goal: HSA4J_AQL correct and at least 20 M atomics/s. Self-check: every invocation reads the
 * counter back and fails the run unless it is exactly {@value #ATOMICS}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class CudaSync1WayBenchmark {
    static final int BLOCKS = 1024;
    static final int THREADS = 256;
    static final int TIMES = 4;
    /** Atomics per invocation, the total the counter must reach. */
    static final int ATOMICS = BLOCKS * THREADS * TIMES;
    private static final VarHandle INT = JAVA_INT.varHandle();

    /** hsa4j's AQL path, the raw-CUDA launch, or the CPU-pool reference. */
    @Param({"HSA4J_AQL", "RAW_CUDA", "CPU_POOL"})
    public Side side;

    private Trial trial;
    private CudaBench gpu;
    private CudaStream stream;
    private CudaKernel count;
    private MemorySegment host;
    private MemorySegment rawArgs;
    private long kernarg;
    private Queue cpuQueue;
    private long cpuKernel;
    private Signal done;

    @Setup(Level.Trial)
    public void start() {
        trial = new Trial();
        HsaRuntime rt = trial.runtime;
        done = rt.createSignal(0);
        if (side == Side.CPU_POOL) {
            host = rt.svm().segment(rt.hostMalloc(64), 64);
            MemorySegment c = host;
            cpuKernel = trial.cpuKernel("count", wi -> {
                for (int k = 0; k < TIMES; k++) {
                    INT.getAndAdd(c, 0L, 1);
                }
            });
            cpuQueue = trial.cpuQueue(256);
            return;
        }
        gpu = trial.gpu(256);
        count = gpu.kernel("hsa4j_count");
        CudaBuffer counter = trial.own(gpu.agent.allocatePinned(64));
        host = counter.hostSegment();
        if (side == Side.HSA4J_AQL) {
            kernarg = gpu.kernarg(16);
            MemorySegment args = gpu.kernargBytes(kernarg, 16);
            args.set(JAVA_LONG, 0, counter.address());
            args.set(JAVA_INT, 8, TIMES);
        } else {
            rawArgs = trial.own(Arena.ofShared()).allocate(16, 16);
            rawArgs.set(JAVA_LONG, 0, counter.address());
            rawArgs.set(JAVA_INT, 8, TIMES);
            stream = trial.stream();
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        trial.close();
    }

    /** One sync_1way run: reset, {@value #ATOMICS} atomics, completion, check; scored per atomic. */
    @Benchmark
    @OperationsPerInvocation(ATOMICS)
    public int sync1Way() {
        INT.setVolatile(host, 0L, 0);
        switch (side) {
            case RAW_CUDA -> {
                stream.launch(count, BLOCKS, THREADS, rawArgs);
                stream.synchronize();
            }
            case HSA4J_AQL -> {
                done.storeRelaxed(1);
                gpu.dispatch(count, THREADS, BLOCKS * THREADS, kernarg, done);
                Waits.await(done, SignalCondition.EQ, 0, WaitState.ACTIVE);
            }
            case CPU_POOL -> {
                done.storeRelaxed(1);
                Dispatches.submitOne(cpuQueue, cpuKernel, THREADS, BLOCKS * THREADS, 0, done);
                Waits.await(done, SignalCondition.EQ, 0, WaitState.ACTIVE);
            }
        }
        int total = (int) INT.getVolatile(host, 0L);
        if (total != ATOMICS) {
            throw new IllegalStateException("sync_1way counted " + total + ", not " + ATOMICS);
        }
        return total;
    }
}
