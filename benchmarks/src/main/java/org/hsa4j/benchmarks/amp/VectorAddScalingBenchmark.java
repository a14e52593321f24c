package org.hsa4j.benchmarks.amp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import org.hsa4j.amp.Accelerator;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.FloatArrayView;
import org.hsa4j.amp.IndexKernel;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
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
 * SCALING (information): vector add through {@code parallelForEach} against the number of compute
 * units and against the problem size, so the cost curve is visible.
 *
 * <p>What it measures: c = a + b over {@code elements} floats (three streams in SVM, the same kernel
 * as {@link VectorAddBenchmark}), one kernel-dispatch packet per op, waited for; the runtime's GPU
 * agent has {@code computeUnits} compute units ({@code RuntimeConfig.builder().computeUnits(n)}). Beside
 * it, at each size, one plain sequential pass over off-heap segments of the same size
 * ({@link #sequentialSegmentPass}, the memory-bandwidth floor, independent of the compute units).
 * Small sizes show the fixed cost of a dispatch (launch, wake-ups, completion); large ones show
 * whether more compute units buy bandwidth. The report renders the whole grid as a table.
 *
 * <p>Each method takes only the states it needs, so JMH runs the floor once per size, not once
 * per compute-unit count. {@code computeUnits} is 1 and 2 here; on a larger machine pass its
 * processor count with {@code -p computeUnits=...}. Each configuration
 * is kept short (one fork, three short iterations): the set is a curve, not a goal.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 3, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
public class VectorAddScalingBenchmark {

    /** The runtime side: a runtime with {@code computeUnits} compute units and the three vectors in its SVM. */
    @State(Scope.Benchmark)
    public static class Device {
        /** Compute units of the GPU agent. */
        @Param({"1", "2"})
        public int computeUnits;

        /** Elements per vector: 1K, 64K, 1M, 16M, 64M. */
        @Param({"1024", "65536", "1048576", "16777216", "67108864"})
        public int elements;

        private HsaRuntime runtime;
        private Amp amp;
        private Extent extent;
        private IndexKernel add;

        @Setup(Level.Trial)
        public void setUp() {
            int n = elements;
            runtime = HsaRuntime.init(RuntimeConfig.builder().computeUnits(computeUnits).build());
            amp = Amp.on(runtime);
            Accelerator acc = amp.defaultAccelerator();
            extent = new Extent(n);
            long a = runtime.hostMalloc(4L * n);
            long b = runtime.hostMalloc(4L * n);
            long c = runtime.hostMalloc(4L * n);
            fill(runtime.svm().segment(a, 4L * n), runtime.svm().segment(b, 4L * n), n);
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
            if (amp != null) {
                amp.close();
            }
            if (runtime != null) {
                runtime.close();
            }
        }
    }

    /** The floor's side: three off-heap vectors of {@code elements} floats. */
    @State(Scope.Benchmark)
    public static class Host {
        /** Elements per vector (the same sizes as {@link Device#elements}). */
        @Param({"1024", "65536", "1048576", "16777216", "67108864"})
        public int elements;

        private Arena arena;
        private MemorySegment a;
        private MemorySegment b;
        private MemorySegment c;

        @Setup(Level.Trial)
        public void setUp() {
            arena = Arena.ofShared();
            a = arena.allocate(4L * elements, 64);
            b = arena.allocate(4L * elements, 64);
            c = arena.allocate(4L * elements, 64);
            fill(a, b, elements);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            arena.close();
        }
    }

    private static void fill(MemorySegment a, MemorySegment b, int n) {
        for (int i = 0; i < n; i++) {
            a.setAtIndex(ValueLayout.JAVA_FLOAT, i, i);
            b.setAtIndex(ValueLayout.JAVA_FLOAT, i, 1f);
        }
    }

    /** The figure: one kernel-dispatch packet over {@code elements} work-items, waited for. */
    @Benchmark
    public void ampParallelForEach(Device d) {
        d.amp.parallelForEach(d.extent, d.add).get();
    }

    /** The floor at the same size: one thread, one pass, plain segment accesses. */
    @Benchmark
    public void sequentialSegmentPass(Host h) {
        MemorySegment a = h.a;
        MemorySegment b = h.b;
        MemorySegment c = h.c;
        int n = h.elements;
        for (int i = 0; i < n; i++) {
            c.setAtIndex(ValueLayout.JAVA_FLOAT, i, a.getAtIndex(ValueLayout.JAVA_FLOAT, i)
                    + b.getAtIndex(ValueLayout.JAVA_FLOAT, i));
        }
    }
}
