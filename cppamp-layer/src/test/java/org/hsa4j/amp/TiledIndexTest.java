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

/** Item 1: what a work-item of a tiled kernel sees (global, local, tile, tileOrigin, tileDim, barrier). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TiledIndexTest {
    private static final int FIELDS = 6;
    private static AmpFixture fx;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start();
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    /** Records what {@code t} says at its global point; taking {@code t} makes a kernel run as continuations. */
    static void record(TiledIndex t, Extent e, IntArrayView out, int dim) {
        int at = (int) e.linearize(t.global()) * FIELDS;
        out.set(at, t.global(dim));
        out.set(at + 1, t.local(dim));
        out.set(at + 2, t.tile(dim));
        out.set(at + 3, t.tileOrigin(dim));
        out.set(at + 4, t.tileDim(dim));
        out.set(at + 5, t.flatLocal());
    }

    private static void check(Extent e, int[] tile, IntArrayView out, int dim) {
        int r = e.rank();
        for (int p = 0; p < e.size(); p++) {
            int[] g = new int[r];
            long rest = p;
            for (int d = r - 1; d >= 0; d--) {
                g[d] = (int) (rest % e.get(d));
                rest /= e.get(d);
            }
            int flat = 0;
            for (int d = 0; d < r; d++) {
                flat = flat * tile[d] + g[d] % tile[d];
            }
            int at = p * FIELDS;
            String where = "point " + p + " dim " + dim;
            assertEquals(g[dim], out.get(at), where + " global");
            assertEquals(g[dim] % tile[dim], out.get(at + 1), where + " local");
            assertEquals(g[dim] / tile[dim], out.get(at + 2), where + " tile");
            assertEquals(g[dim] / tile[dim] * tile[dim], out.get(at + 3), where + " tileOrigin");
            assertEquals(tile[dim], out.get(at + 4), where + " tileDim");
            assertEquals(flat, out.get(at + 5), where + " flatLocal");
        }
    }

    @Test
    void shouldDescribeEveryWorkItemOfARank2TilingCompiledToLoops() {
        Extent e = new Extent(12, 20);
        IntArrayView out = fx.ints((int) e.size() * FIELDS);
        for (int dim = 0; dim < 2; dim++) {
            int d = dim;
            TiledKernel k = t -> {
                int at = (int) e.linearize(t.global()) * FIELDS;
                out.set(at, t.global(d));
                out.set(at + 1, t.local(d));
                out.set(at + 2, t.tile(d));
                out.set(at + 3, t.tileOrigin(d));
                out.set(at + 4, t.tileDim(d));
                out.set(at + 5, t.flatLocal());
            };
            assertTrue(TileCompiler.compile(k).workItemLoops(), TileCompiler.compile(k).reason());
            fx.amp.parallelForEach(e.tile(4, 5), k).get();
            check(e, new int[] {4, 5}, out, dim);
        }
    }

    @Test
    void shouldDescribeEveryWorkItemOfARank1TilingRunAsContinuations() {
        Extent e = new Extent(96);
        IntArrayView out = fx.ints((int) e.size() * FIELDS);
        TiledKernel k = t -> record(t, e, out, 0);
        assertFalse(TileCompiler.compile(k).workItemLoops());
        fx.amp.parallelForEach(e.tile(32), k).get();
        check(e, new int[] {32}, out, 0);
    }

    @Test
    void shouldDescribeEveryWorkItemOfARank3TilingInBothModes() {
        Extent e = new Extent(4, 6, 8);
        int[] tile = {2, 3, 4};
        for (int dim = 0; dim < 3; dim++) {
            int d = dim;
            IntArrayView loops = fx.ints((int) e.size() * FIELDS);
            TiledKernel compiled = t -> {
                int at = (int) e.linearize(t.global()) * FIELDS;
                loops.set(at, t.global(d));
                loops.set(at + 1, t.local(d));
                loops.set(at + 2, t.tile(d));
                loops.set(at + 3, t.tileOrigin(d));
                loops.set(at + 4, t.tileDim(d));
                loops.set(at + 5, t.flatLocal());
            };
            fx.amp.parallelForEach(e.tile(tile), compiled).get();
            check(e, tile, loops, dim);
            IntArrayView conts = fx.ints((int) e.size() * FIELDS);
            fx.amp.parallelForEach(e.tile(tile), t -> record(t, e, conts, d)).get();
            check(e, tile, conts, dim);
        }
    }

    @Test
    void shouldGiveIndexAndExtentFormsOfTheSameValues() {
        Extent e = new Extent(8, 8);
        IntArrayView bad = fx.ints(1);
        fx.amp.parallelForEach(e.tile(4, 2), t -> {
            boolean ok = t.global().equals(t.tileOrigin().plus(t.local()))
                    && t.tile().equals(new Index(t.tile(0), t.tile(1)))
                    && t.tileExtent().equals(new Extent(4, 2)) && t.rank() == 2;
            if (!ok) {
                bad.atomicFetchAdd(0, 1);
            }
        }).get();
        assertEquals(0, bad.get(0));
    }
}
