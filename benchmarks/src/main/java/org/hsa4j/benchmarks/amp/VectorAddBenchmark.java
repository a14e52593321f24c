package org.hsa4j.benchmarks.amp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import com.aparapi.Kernel;
import com.aparapi.Range;

import org.hsa4j.amp.Accelerator;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.FloatArrayView;
import org.hsa4j.amp.IndexKernel;
import org.hsa4j.runtime.HsaRuntime;
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
 * Issue 3, figure 1: {@code parallelForEach} vector add over 64 M floats (c = a + b, three streams of
 * 256 MiB in SVM) beside its floor, one plain sequential pass over the same MemorySegments, beside
 * {@code IntStream.range().parallel()} over the same segments, and beside Aparapi 3.0.2 in thread-pool
 * mode (JTP) on heap arrays of the same size. Targets: at least 85% of the floor's speed, no slower
 * than the parallel stream, at least 10x faster than Aparapi JTP.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g", "--enable-native-access=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class VectorAddBenchmark {
    /** Elements per vector: 64M for the figure; smaller only for smoke runs ({@code ./hsa4j bench --quick}). */
    @Param("67108864")
    public int elements;

    private HsaRuntime runtime;
    private Amp amp;
    private Extent extent;
    private IndexKernel add;
    private MemorySegment sa;
    private MemorySegment sb;
    private MemorySegment sc;

    @Setup(Level.Trial)
    public void setUp() {
        int n = elements;
        runtime = HsaRuntime.init();
        amp = Amp.on(runtime);
        Accelerator acc = amp.defaultAccelerator();
        extent = new Extent(n);
        long a = runtime.hostMalloc(4L * n);
        long b = runtime.hostMalloc(4L * n);
        long c = runtime.hostMalloc(4L * n);
        sa = runtime.svm().segment(a, 4L * n);
        sb = runtime.svm().segment(b, 4L * n);
        sc = runtime.svm().segment(c, 4L * n);
        for (int i = 0; i < n; i++) {
            sa.setAtIndex(ValueLayout.JAVA_FLOAT, i, i);
            sb.setAtIndex(ValueLayout.JAVA_FLOAT, i, 1f);
        }
        FloatArrayView va = acc.floats(a, extent);
        FloatArrayView vb = acc.floats(b, extent);
        FloatArrayView vc = acc.floats(c, extent);
        add = idx -> {
            int i = idx.get(0);
            vc.set(i, va.get(i) + vb.get(i));
        };
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        amp.close();
        runtime.close();
    }

    /** The floor: one thread, one pass, plain segment accesses. */
    @Benchmark
    public void sequentialSegmentPass() {
        MemorySegment a = sa;
        MemorySegment b = sb;
        MemorySegment c = sc;
        int n = elements;
        for (int i = 0; i < n; i++) {
            c.setAtIndex(ValueLayout.JAVA_FLOAT, i, a.getAtIndex(ValueLayout.JAVA_FLOAT, i)
                    + b.getAtIndex(ValueLayout.JAVA_FLOAT, i));
        }
    }

    /** The JDK's data-parallel baseline over the same segments. */
    @Benchmark
    public void intStreamParallel() {
        MemorySegment a = sa;
        MemorySegment b = sb;
        MemorySegment c = sc;
        IntStream.range(0, elements).parallel().forEach(i -> c.setAtIndex(ValueLayout.JAVA_FLOAT, i,
                a.getAtIndex(ValueLayout.JAVA_FLOAT, i) + b.getAtIndex(ValueLayout.JAVA_FLOAT, i)));
    }

    /** The figure: one kernel-dispatch packet, waited for. */
    @Benchmark
    public void ampParallelForEach() {
        amp.parallelForEach(extent, add).get();
    }

    /** Aparapi's heap arrays, kept apart so the other benchmarks do not pay for them. */
    @State(Scope.Benchmark)
    public static class AparapiState {
        int n;
        AddKernel kernel;

        /** Heap arrays of the benchmark's size. */
        @Setup(Level.Trial)
        public void setUp(VectorAddBenchmark bench) {
            n = bench.elements;
            float[] a = new float[n];
            float[] b = new float[n];
            float[] c = new float[n];
            for (int i = 0; i < n; i++) {
                a[i] = i;
                b[i] = 1f;
            }
            kernel = new AddKernel(a, b, c);
            kernel.setExecutionModeWithoutFallback(Kernel.EXECUTION_MODE.JTP);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            kernel.dispose();
        }
    }

    /** c = a + b as an Aparapi kernel. */
    static final class AddKernel extends Kernel {
        private final float[] a;
        private final float[] b;
        private final float[] c;

        AddKernel(float[] a, float[] b, float[] c) {
            this.a = a;
            this.b = b;
            this.c = c;
        }

        @Override
        public void run() {
            int i = getGlobalId();
            c[i] = a[i] + b[i];
        }
    }

    /** Aparapi 3.0.2 in thread-pool mode. */
    @Benchmark
    @Warmup(iterations = 1, time = 1)
    @Measurement(iterations = 3, time = 1)
    public void aparapiJtp(AparapiState s) {
        s.kernel.execute(Range.create(s.n));
    }
}
