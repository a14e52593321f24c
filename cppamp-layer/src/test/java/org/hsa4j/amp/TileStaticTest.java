package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.hsa4j.status.HsaException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Item 2: tile_static memory carved from the dispatch's group segment, and a tile_static reduction. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TileStaticTest {
    private static AmpFixture fx;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start();
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void shouldGiveEveryTileItsOwnCopyOfEveryElementType() {
        int n = 2048;
        int tile = 64;
        TiledExtent te = new Extent(n).tile(tile);
        TileStaticInts is = te.tileStaticInts(1);
        TileStaticLongs ls = te.tileStaticLongs(1);
        TileStaticFloats fs = te.tileStaticFloats(1);
        TileStaticDoubles ds = te.tileStaticDoubles(1);
        IntArrayView bad = fx.ints(1);
        fx.amp.parallelForEach(te, t -> {
            int id = t.tile(0);
            if (t.local(0) == 0) {
                is.set(t, 0, id);
                ls.set(t, 0, id * 10_000_000_000L);
                fs.set(t, 0, id + 0.5f);
                ds.set(t, 0, id + 0.25);
            }
            t.barrier().await();
            if (is.get(t, 0) != id || ls.get(t, 0) != id * 10_000_000_000L || fs.get(t, 0) != id + 0.5f
                    || ds.get(t, 0) != id + 0.25) {
                bad.atomicFetchAdd(0, 1);
            }
        }).get();
        assertEquals(0, bad.get(0));
    }

    @Test
    void shouldSizeTheDispatchGroupSegmentFromTheDeclarations() {
        TiledExtent te = new Extent(256).tile(256);
        TileStaticDoubles big = te.tileStaticDoubles(fx.accelerator.groupSegmentMax() / 8);
        DoubleArrayView out = fx.doubles(256);
        fx.amp.parallelForEach(te, t -> {
            big.set(t, big.length() - 1 - t.local(0), t.local(0));
            t.barrier().await();
            out.set(t.local(0), big.get(t, big.length() - 256 + t.local(0)));
        }).get();
        assertEquals(fx.accelerator.groupSegmentMax(), te.groupSegmentSize());
        for (int i = 0; i < 256; i++) {
            assertEquals(255 - i, out.get(i), "work-item " + i);
        }
    }

    @Test
    void shouldFailTheFutureOnAnIndexOutsideATileStaticArray() {
        TiledExtent te = new Extent(64).tile(16);
        TileStaticFloats s = te.tileStaticFloats(16);
        CompletionFuture f = fx.amp.parallelForEach(te, t -> s.set(t, t.local(0) + 1, 1f));
        HsaException e = assertThrows(HsaException.class, f::get);
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        assertInstanceOf(IndexOutOfBoundsException.class, root);
        fx.amp.parallelForEach(new Extent(4), idx -> { }).get();
    }

    @Test
    void shouldReduceEachTileThroughTileStaticMemory() {
        int n = 1 << 16;
        int tile = 256;
        FloatArrayView in = fx.floats(n);
        FloatArrayView partial = fx.floats(n / tile);
        FloatArrayView total = fx.floats(1);
        for (int i = 0; i < n; i++) {
            in.set(i, i % 17);
        }
        TiledExtent te = new Extent(n).tile(tile);
        TileStaticFloats sums = te.tileStaticFloats(tile);
        fx.amp.parallelForEach(te, t -> {
            int l = t.local(0);
            sums.set(t, l, in.get(t.global(0)));
            t.barrier().await();
            for (int stride = tile / 2; stride > 0; stride /= 2) {
                if (l < stride) {
                    sums.set(t, l, sums.get(t, l) + sums.get(t, l + stride));
                }
                t.barrier().await();
            }
            if (l == 0) {
                partial.set(t.tile(0), sums.get(t, 0));
                total.atomicFetchAdd(0, sums.get(t, 0));
            }
        }).get();
        double expectedTotal = 0;
        for (int b = 0; b < n / tile; b++) {
            float expected = 0;
            for (int i = b * tile; i < (b + 1) * tile; i++) {
                expected += i % 17;
            }
            assertEquals(expected, partial.get(b), "tile " + b);
            expectedTotal += expected;
        }
        assertEquals(expectedTotal, total.get(0), 0.0);
        assertTrue(expectedTotal < (1 << 24), "the sum is exact in float");
    }
}
