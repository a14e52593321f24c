package org.hsa4j.benchmarks.amp;

import java.util.concurrent.TimeUnit;

import com.aparapi.Kernel;
import com.aparapi.Range;

import org.hsa4j.amp.Accelerator;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.FloatArrayView;
import org.hsa4j.amp.IndexKernel;
import org.hsa4j.amp.TileStaticFloats;
import org.hsa4j.amp.TiledExtent;
import org.hsa4j.amp.TiledIndex;
import org.hsa4j.amp.TiledKernel;
import org.hsa4j.amp.codegen.TileCompiler;
import org.hsa4j.kernel.WorkgroupExecutor;
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
 * Issue 3, figure 2: a 1024x1024 float matrix multiply with 16x16 tiles, tile_static blocks and two
 * barriers per step, beside the untiled {@code parallelForEach} multiply (one dot product per
 * work-item) and beside Aparapi 3.0.2 in thread-pool mode with {@code @Local} arrays and
 * {@code localBarrier()}. Targets: within 2x of the untiled multiply, at least 10x faster than Aparapi.
 *
 * <p>Aparapi runs at its own size, {@code aparapiSide} (default 256): in thread-pool mode it runs each
 * 16x16 group as 256 threads meeting at a {@code CyclicBarrier} per {@code localBarrier()}, which
 * costs 12 s per op at 256 on these machines, and its cost grows with work-items x steps = n^3/16,
 * so a 1024 op would take about 64 x 12 s = 13 minutes. Compare per multiply-add (scale its time by
 * (1024/aparapiSide)^3), or run it at 1024 with {@code -p aparapiSide=1024} when there is time.
 *
 * <p>{@code barriers} picks how {@code ampTiled} runs its barriers (issue 23 part 4): {@code compiled}
 * (the default: the tile compiler's work-item loops, no runtime barrier), {@code threads} (the same
 * multiply as a kernel class the tile compiler leaves alone, so every work-item runs on the
 * runtime's default barrier strategy, virtual threads) and {@code continuations} (that kernel on
 * the opt-in JDK continuations, {@code HSA4J_BARRIERS=continuations}; this benchmark's forks carry
 * the jdk.internal.vm export for it). The runtime barriers switch 2 x n/16 times per work-item, so
 * compare them at small {@code n} ({@code -p n=256}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "--enable-native-access=ALL-UNNAMED",
        "--add-exports", "java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class TiledMatmulBenchmark {
    static final int T = 16;

    /** Matrix side (the figure is 1024; smaller values only for quick checks). */
    @Param("1024")
    int n;

    /** How the tiled multiply's barriers run: compiled (work-item loops), threads or continuations (runtime barriers). */
    @Param({"compiled", "threads", "continuations"})
    String barriers;

    private HsaRuntime runtime;
    private Amp amp;
    private TiledExtent tiled;
    private TiledKernel tiledKernel;
    private IndexKernel untiledKernel;

    @Setup(Level.Trial)
    public void setUp() {
        int side = n;
        if (!barriers.equals("compiled")) {
            // read once, when the runtime makes its first compute unit: this fork runs only this parameter
            System.setProperty("hsa4j.barriers", barriers);
        }
        runtime = HsaRuntime.init();
        String strategy = WorkgroupExecutor.barrierStrategy();
        if (barriers.equals("threads") && !strategy.equals("virtual threads")
                || barriers.equals("continuations") && !strategy.equals("continuations")) {
            throw new IllegalStateException("asked for " + barriers + " barriers, the runtime runs " + strategy);
        }
        amp = Amp.on(runtime);
        Accelerator acc = amp.defaultAccelerator();
        FloatArrayView a = acc.floats(runtime.hostMalloc(4L * side * side), new Extent(side * side));
        FloatArrayView b = acc.floats(runtime.hostMalloc(4L * side * side), new Extent(side * side));
        FloatArrayView c = acc.floats(runtime.hostMalloc(4L * side * side), new Extent(side * side));
        for (int i = 0; i < side * side; i++) {
            a.set(i, i % 7 - 3);
            b.set(i, i % 5 - 2);
        }
        tiled = new Extent(side, side).tile(T, T);
        TileStaticFloats as = tiled.tileStaticFloats(T * T);
        TileStaticFloats bs = tiled.tileStaticFloats(T * T);
        tiledKernel = t -> {
            int row = t.local(0);
            int col = t.local(1);
            int gi = t.global(0);
            int gj = t.global(1);
            float sum = 0;
            for (int s = 0; s < side; s += T) {
                as.set(t, row * T + col, a.get(gi * side + s + col));
                bs.set(t, row * T + col, b.get((s + row) * side + gj));
                t.barrier().await();
                for (int k = 0; k < T; k++) {
                    sum += as.get(t, row * T + k) * bs.get(t, k * T + col);
                }
                t.barrier().await();
            }
            c.set(gi * side + gj, sum);
        };
        if (!barriers.equals("compiled")) {
            tiledKernel = new MatmulTile(a, b, c, as, bs, side);
            if (TileCompiler.compile(tiledKernel).workItemLoops()) {
                throw new IllegalStateException("the kernel class compiled to work-item loops; it must run on runtime barriers");
            }
        } else if (!TileCompiler.compile(tiledKernel).workItemLoops()) {
            throw new IllegalStateException("the tiled kernel did not compile: " + TileCompiler.compile(tiledKernel));
        }
        untiledKernel = idx -> {
            int i = idx.get(0);
            int j = idx.get(1);
            float sum = 0;
            for (int k = 0; k < side; k++) {
                sum += a.get(i * side + k) * b.get(k * side + j);
            }
            c.set(i * side + j, sum);
        };
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        amp.close();
        runtime.close();
    }

    /** The figure: tiles of 16x16, tile_static blocks, two barriers per step. */
    @Benchmark
    public void ampTiled() {
        amp.parallelForEach(tiled, tiledKernel).get();
    }

    /** The baseline: one dot product per work-item. */
    @Benchmark
    public void ampUntiled() {
        amp.parallelForEach(new Extent(n, n), untiledKernel).get();
    }

    /** The tiled multiply as a class, which the tile compiler does not rewrite: it runs on the runtime's barriers. */
    static final class MatmulTile implements TiledKernel {
        private final FloatArrayView a;
        private final FloatArrayView b;
        private final FloatArrayView c;
        private final TileStaticFloats as;
        private final TileStaticFloats bs;
        private final int side;

        MatmulTile(FloatArrayView a, FloatArrayView b, FloatArrayView c, TileStaticFloats as, TileStaticFloats bs,
                   int side) {
            this.a = a;
            this.b = b;
            this.c = c;
            this.as = as;
            this.bs = bs;
            this.side = side;
        }

        @Override
        public void run(TiledIndex t) {
            int row = t.local(0);
            int col = t.local(1);
            int gi = t.global(0);
            int gj = t.global(1);
            float sum = 0;
            for (int s = 0; s < side; s += T) {
                as.set(t, row * T + col, a.get(gi * side + s + col));
                bs.set(t, row * T + col, b.get((s + row) * side + gj));
                t.barrier().await();
                for (int k = 0; k < T; k++) {
                    sum += as.get(t, row * T + k) * bs.get(t, k * T + col);
                }
                t.barrier().await();
            }
            c.set(gi * side + gj, sum);
        }
    }

    /** Aparapi's state: heap matrices and the kernel. */
    @State(Scope.Benchmark)
    public static class AparapiState {
        MatmulKernel kernel;

        /** Aparapi's matrix side (see the class comment). */
        @Param("256")
        int aparapiSide;

        @Setup(Level.Trial)
        public void setUp() {
            int side = aparapiSide;
            float[] a = new float[side * side];
            float[] b = new float[side * side];
            for (int i = 0; i < side * side; i++) {
                a[i] = i % 7 - 3;
                b[i] = i % 5 - 2;
            }
            kernel = new MatmulKernel(a, b, new float[side * side], side);
            kernel.setExecutionModeWithoutFallback(Kernel.EXECUTION_MODE.JTP);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            kernel.dispose();
        }
    }

    /** The same tiled multiply as an Aparapi kernel with local memory and local barriers. */
    static final class MatmulKernel extends Kernel {
        private final float[] a;
        private final float[] b;
        private final float[] c;
        private final int side;
        @Local
        private final float[] as = new float[T * T];
        @Local
        private final float[] bs = new float[T * T];

        MatmulKernel(float[] a, float[] b, float[] c, int n) {
            this.a = a;
            this.b = b;
            this.c = c;
            this.side = n;
        }

        @Override
        public void run() {
            int row = getLocalId(1);
            int col = getLocalId(0);
            int gi = getGlobalId(1);
            int gj = getGlobalId(0);
            float sum = 0;
            for (int s = 0; s < side; s += T) {
                as[row * T + col] = a[gi * side + s + col];
                bs[row * T + col] = b[(s + row) * side + gj];
                localBarrier();
                for (int k = 0; k < T; k++) {
                    sum += as[row * T + k] * bs[k * T + col];
                }
                localBarrier();
            }
            c[gi * side + gj] = sum;
        }
    }

    /** Aparapi 3.0.2 in thread-pool mode, 16x16 groups with localBarrier(). */
    @Benchmark
    @Warmup(iterations = 0)
    @Measurement(iterations = 1, time = 1)
    public void aparapiJtpLocalBarrier(AparapiState s) {
        s.kernel.execute(Range.create2D(s.aparapiSide, s.aparapiSide, T, T));
    }
}
