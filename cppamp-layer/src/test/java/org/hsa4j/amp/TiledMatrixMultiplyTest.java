package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.hsa4j.amp.codegen.TileCompiler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A tiled matrix multiply (tile_static blocks, two barriers per step) against a simple host multiply. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TiledMatrixMultiplyTest {
    private static final int N = 128;
    private static final int T = 16;
    private static AmpFixture fx;
    private static FloatArrayView a;
    private static FloatArrayView b;
    private static float[] expected;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start();
        a = fx.floats(N * N);
        b = fx.floats(N * N);
        for (int i = 0; i < N * N; i++) {
            a.set(i, i % 7 - 3);
            b.set(i, i % 5 - 2);
        }
        expected = new float[N * N];
        for (int i = 0; i < N; i++) {
            for (int j = 0; j < N; j++) {
                float s = 0;
                for (int k = 0; k < N; k++) {
                    s += a.get(i * N + k) * b.get(k * N + j);
                }
                expected[i * N + j] = s;
            }
        }
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    /** Loads the two tiles of step {@code s}; taking {@code t} makes the calling kernel run as continuations. */
    static void load(TiledIndex t, TileStaticFloats as, TileStaticFloats bs, int s) {
        as.set(t, t.local(0) * T + t.local(1), a.get(t.global(0) * N + s + t.local(1)));
        bs.set(t, t.local(0) * T + t.local(1), b.get((s + t.local(0)) * N + t.global(1)));
    }

    private static void check(FloatArrayView c) {
        for (int i = 0; i < N * N; i++) {
            assertEquals(expected[i], c.get(i), "element " + i);
        }
    }

    @Test
    void shouldMatchTheHostMultiplyWithWorkItemLoops() {
        TiledExtent te = new Extent(N, N).tile(T, T);
        TileStaticFloats as = te.tileStaticFloats(T * T);
        TileStaticFloats bs = te.tileStaticFloats(T * T);
        FloatArrayView c = fx.floats(N * N);
        FloatArrayView av = a;
        FloatArrayView bv = b;
        TiledKernel k = t -> {
            int row = t.local(0);
            int col = t.local(1);
            int gi = t.global(0);
            int gj = t.global(1);
            float sum = 0;
            for (int s = 0; s < N; s += T) {
                as.set(t, row * T + col, av.get(gi * N + s + col));
                bs.set(t, row * T + col, bv.get((s + row) * N + gj));
                t.barrier().await();
                for (int k2 = 0; k2 < T; k2++) {
                    sum += as.get(t, row * T + k2) * bs.get(t, k2 * T + col);
                }
                t.barrier().await();
            }
            c.set(gi * N + gj, sum);
        };
        assertTrue(TileCompiler.compile(k).workItemLoops(), TileCompiler.compile(k).reason());
        fx.amp.parallelForEach(te, k).get();
        check(c);
    }

    @Test
    void shouldMatchTheHostMultiplyAsContinuations() {
        TiledExtent te = new Extent(N, N).tile(T, T);
        TileStaticFloats as = te.tileStaticFloats(T * T);
        TileStaticFloats bs = te.tileStaticFloats(T * T);
        FloatArrayView c = fx.floats(N * N);
        TiledKernel k = t -> {
            float sum = 0;
            for (int s = 0; s < N; s += T) {
                load(t, as, bs, s);
                t.barrier().await();
                for (int k2 = 0; k2 < T; k2++) {
                    sum += as.get(t, t.local(0) * T + k2) * bs.get(t, k2 * T + t.local(1));
                }
                t.barrier().await();
            }
            c.set(t.global(0) * N + t.global(1), sum);
        };
        assertFalse(TileCompiler.compile(k).workItemLoops());
        fx.amp.parallelForEach(te, k).get();
        check(c);
    }

    @Test
    void shouldMatchTheHostMultiplyUntiled() {
        FloatArrayView c = fx.floats(N * N);
        FloatArrayView av = a;
        FloatArrayView bv = b;
        fx.amp.parallelForEach(new Extent(N, N), idx -> {
            float s = 0;
            for (int k = 0; k < N; k++) {
                s += av.get(idx.get(0) * N + k) * bv.get(k * N + idx.get(1));
            }
            c.set(idx.get(0) * N + idx.get(1), s);
        }).get();
        check(c);
    }
}
