package org.hsa4j.benchmarks;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.memory.FloatView;
import org.hsa4j.memory.Svm;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * FIGURE: what the memory-model fidelity mode costs, off and on (issue 8).
 *
 * <p>What it measures: {@link #vectorAdd} is one kernel dispatch of {@code c[i] = a[i] + b[i]} over
 * {@link #elements} floats of fine-grained memory, through {@link FloatView}s (each work-item adds
 * {@link #CHUNK} consecutive elements), SYSTEM packet fences, ACTIVE wait. {@link #roundTrip} is
 * the empty 1-work-item dispatch of {@link DispatchRoundTripBenchmark} with an ACTIVE wait.
 *
 * <p>Why it is fair: the same runtime, kernel and memory with only {@code RuntimeConfig.fidelity}
 * changed. With the mode off the code of the mode is compiled in and every access tests one final
 * field, so the round trip with fidelity off is judged against the existing round-trip figure
 * (goal: no cost), and vector add with the mode on against the same add with it off (goal: within
 * 20x, issue 8). With the mode on every access of a GPU unit goes through its L1 and the agent's
 * L2, and the kernel end writes the L2 back home.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class FidelityBenchmark {
    /** Elements each work-item of the vector add handles. */
    static final int CHUNK = 1024;

    /** Fidelity mode off or on. */
    @Param({"off", "on"})
    public String fidelity;

    /** Floats per vector (a multiple of {@link #CHUNK}). */
    @Param({"1048576"})
    public int elements;

    private HsaRuntime rt;
    private Queue queue;
    private Signal done;
    private long emptyKernel;
    private long addKernel;
    private long kernarg;

    @Setup(Level.Trial)
    public void start() {
        if (elements % CHUNK != 0) {
            throw new IllegalArgumentException("elements must be a multiple of " + CHUNK + ", was " + elements);
        }
        rt = HsaRuntime.init(RuntimeConfig.fromEnvironment().toBuilder().fidelity(fidelity.equals("on")).build());
        queue = rt.gpuAgent().createQueue(256, QueueType.SINGLE, null);
        done = rt.createSignal(0);
        Executable exe = rt.createExecutable()
                .define("empty", KernelDescriptor.EMPTY, wi -> {
                })
                .define("vector_add", KernelDescriptor.withKernarg(32), wi -> {
                    Svm svm = wi.svm();
                    long n = wi.kernarg().get(ValueLayout.JAVA_LONG, 24);
                    FloatView a = svm.floats(wi.kernarg().get(ValueLayout.JAVA_LONG, 0), n);
                    FloatView b = svm.floats(wi.kernarg().get(ValueLayout.JAVA_LONG, 8), n);
                    FloatView c = svm.floats(wi.kernarg().get(ValueLayout.JAVA_LONG, 16), n);
                    long first = wi.flatGlobalId() * CHUNK;
                    for (long i = first; i < first + CHUNK; i++) {
                        c.set(i, a.get(i) + b.get(i));
                    }
                })
                .freeze();
        emptyKernel = exe.symbol("empty").kernelObject();
        addKernel = exe.symbol("vector_add").kernelObject();
        long bytes = 4L * elements;
        long a = rt.hostMalloc(bytes);
        long b = rt.hostMalloc(bytes);
        long c = rt.hostMalloc(bytes);
        for (int i = 0; i < elements; i++) {
            rt.svm().setFloat(a + 4L * i, i);
            rt.svm().setFloat(b + 4L * i, 2f * i);
        }
        kernarg = rt.kernargPool().allocate(32);
        rt.svm().setLong(kernarg, a);
        rt.svm().setLong(kernarg + 8, b);
        rt.svm().setLong(kernarg + 16, c);
        rt.svm().setLong(kernarg + 24, elements);
    }

    @TearDown(Level.Trial)
    public void stop() {
        if (rt != null) {
            rt.close();
        }
    }

    private long dispatch(long kernelObject, int gridSize, int workgroupSize, long args) {
        done.storeRelaxed(1);
        Dispatches.submitOne(queue, kernelObject, workgroupSize, gridSize, args, done);
        return Waits.await(done, SignalCondition.EQ, 0, WaitState.ACTIVE);
    }

    /** One vector-add dispatch over {@link #elements} floats, from reserving the packet id to the completion signal at 0. */
    @Benchmark
    public long vectorAdd() {
        return dispatch(addKernel, elements / CHUNK, 64, kernarg);
    }

    /** One empty-kernel dispatch round trip, ACTIVE wait (sampled in ns, as DispatchRoundTripBenchmark). */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public long roundTrip() {
        return dispatch(emptyKernel, 1, 1, 0);
    }
}
