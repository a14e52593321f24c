package org.hsa4j.benchmarks.amp;

import java.util.concurrent.TimeUnit;

import org.hsa4j.amp.AcceleratorView;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CompletionFuture;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.IndexKernel;
import org.hsa4j.runtime.HsaRuntime;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 3, figure 3: a chain of 1000 empty kernels in the dependency form (each dispatch preceded
 * by a barrier-AND packet on the previous kernel's signal, all queued before the first ends, one
 * wait at the end), reported per kernel. Beside it, in the same run: the same 1000 kernels relying
 * on the view's in-order queue alone, and a host round trip per kernel (dispatch, wait, repeat).
 * Target: at most 2 us per kernel in the dependency form.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class DependencyChainBenchmark {
    static final int KERNELS = 1000;

    private HsaRuntime runtime;
    private Amp amp;
    private AcceleratorView view;
    private final Extent one = new Extent(1);
    private final IndexKernel empty = idx -> { };

    @Setup(Level.Trial)
    public void setUp() {
        runtime = HsaRuntime.init();
        amp = Amp.on(runtime);
        view = amp.defaultAccelerator().createView();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        view.close();
        amp.close();
        runtime.close();
    }

    /** The figure: barrier-AND packet + dispatch per kernel, no host round trip. */
    @Benchmark
    @OperationsPerInvocation(KERNELS)
    public void dependencyForm() {
        CompletionFuture f = view.parallelForEach(one, empty);
        for (int i = 1; i < KERNELS; i++) {
            f = view.parallelForEachAfter(f, one, empty);
        }
        f.get();
    }

    /** Baseline: the same kernels ordered by the in-order queue alone. */
    @Benchmark
    @OperationsPerInvocation(KERNELS)
    public void inOrderQueue() {
        CompletionFuture f = null;
        for (int i = 0; i < KERNELS; i++) {
            f = view.parallelForEach(one, empty);
        }
        f.get();
    }

    /** Baseline: a host round trip per kernel. */
    @Benchmark
    @OperationsPerInvocation(KERNELS)
    public void hostRoundTrip() {
        for (int i = 0; i < KERNELS; i++) {
            view.parallelForEach(one, empty).get();
        }
    }
}
