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

/** Item 2: tile barriers (imperative waits, fenced variants, free fences) in both execution modes. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TileBarrierTest {
    private static AmpFixture fx;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start();
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    /** Reads the tile's reversed values; taking {@code t} makes the calling kernel run as continuations. */
    static int mirrored(TiledIndex t, TileStaticInts s) {
        return s.get(t, s.length() - 1 - t.flatLocal());
    }

    private static void checkReversed(IntArrayView out, int n, int tile) {
        for (int i = 0; i < n; i++) {
            int origin = i / tile * tile;
            assertEquals(origin + tile - 1 - (i - origin), out.get(i), "work-item " + i);
        }
    }

    @Test
    void shouldMakeTileStaticWritesBeforeABarrierVisibleToTheWholeTile() {
        int n = 4096;
        int tile = 256;
        TiledExtent te = new Extent(n).tile(tile);
        TileStaticInts s = te.tileStaticInts(tile);
        IntArrayView out = fx.ints(n);
        TiledKernel k = t -> {
            s.set(t, t.local(0), t.global(0));
            t.barrier().await();
            out.set(t.global(0), s.get(t, tile - 1 - t.local(0)));
        };
        assertTrue(TileCompiler.compile(k).workItemLoops(), TileCompiler.compile(k).reason());
        fx.amp.parallelForEach(te, k).get();
        checkReversed(out, n, tile);
    }

    @Test
    void shouldGiveTheSameResultWhenRunAsContinuations() {
        int n = 2048;
        int tile = 128;
        TiledExtent te = new Extent(n).tile(tile);
        TileStaticInts s = te.tileStaticInts(tile);
        IntArrayView out = fx.ints(n);
        TiledKernel k = t -> {
            s.set(t, t.local(0), t.global(0));
            t.barrier().await();
            out.set(t.global(0), mirrored(t, s));
        };
        assertFalse(TileCompiler.compile(k).workItemLoops());
        fx.amp.parallelForEach(te, k).get();
        checkReversed(out, n, tile);
    }

    @Test
    void shouldSupportEveryFencedWaitAndTheFreeFences() {
        int n = 1024;
        int tile = 64;
        TiledExtent te = new Extent(n).tile(tile);
        TileStaticInts s = te.tileStaticInts(tile);
        IntArrayView out = fx.ints(n);
        TiledKernel k = t -> {
            int l = t.local(0);
            s.set(t, l, 1);
            t.barrier().waitWithAllMemoryFence();
            int v = s.get(t, tile - 1 - l);
            t.barrier().waitWithTileStaticMemoryFence();
            s.set(t, l, v + 1);
            Fences.tileStaticMemoryFence(t);
            t.barrier().waitWithGlobalMemoryFence();
            v = s.get(t, tile - 1 - l);
            Fences.globalMemoryFence(t);
            Fences.allMemoryFence(t);
            t.barrier().await();
            out.set(t.global(0), v);
        };
        assertTrue(TileCompiler.compile(k).workItemLoops(), TileCompiler.compile(k).reason());
        fx.amp.parallelForEach(te, k).get();
        for (int i = 0; i < n; i++) {
            assertEquals(2, out.get(i), "work-item " + i);
        }
    }

    @Test
    void shouldNotDeadlockWhenATileHasFarMoreWorkItemsThanThreads() {
        int tile = fx.accelerator.workgroupMaxSize();
        assertTrue(tile > fx.accelerator.computeUnits() * 100);
        TiledExtent te = new Extent(4 * tile).tile(tile);
        TileStaticInts s = te.tileStaticInts(tile);
        IntArrayView loops = fx.ints(4 * tile);
        fx.amp.parallelForEach(te, t -> {
            s.set(t, t.local(0), t.global(0));
            t.barrier().await();
            loops.set(t.global(0), s.get(t, tile - 1 - t.local(0)));
        }).get();
        checkReversed(loops, 4 * tile, tile);
        IntArrayView conts = fx.ints(4 * tile);
        fx.amp.parallelForEach(te, t -> {
            s.set(t, t.local(0), t.global(0));
            t.barrier().await();
            conts.set(t.global(0), mirrored(t, s));
        }).get();
        checkReversed(conts, 4 * tile, tile);
    }

    @Test
    void shouldWaitAtBarriersInsideLoops() {
        int n = 512;
        int tile = 32;
        TiledExtent te = new Extent(n).tile(tile);
        TileStaticInts s = te.tileStaticInts(tile);
        IntArrayView out = fx.ints(n);
        TiledKernel k = t -> {
            int l = t.local(0);
            s.set(t, l, l);
            t.barrier().await();
            for (int round = 0; round < 5; round++) {
                int left = s.get(t, (l + tile - 1) % tile);
                t.barrier().await();
                s.set(t, l, left);
                t.barrier().await();
            }
            out.set(t.global(0), s.get(t, l));
        };
        assertTrue(TileCompiler.compile(k).workItemLoops(), TileCompiler.compile(k).reason());
        fx.amp.parallelForEach(te, k).get();
        for (int i = 0; i < n; i++) {
            assertEquals(((i % tile) - 5 + tile) % tile, out.get(i), "work-item " + i);
        }
    }

    @Test
    void shouldRunTwoDimensionalTilesWithBarriers() {
        Extent e = new Extent(32, 48);
        TiledExtent te = e.tile(8, 16);
        TileStaticInts s = te.tileStaticInts(8 * 16);
        IntArrayView out = fx.ints((int) e.size());
        fx.amp.parallelForEach(te, t -> {
            s.set(t, t.flatLocal(), t.global(0) * 1000 + t.global(1));
            t.barrier().await();
            int l0 = 7 - t.local(0);
            int l1 = 15 - t.local(1);
            out.set(t.global(0) * 48 + t.global(1), s.get(t, l0 * 16 + l1));
        }).get();
        for (int i = 0; i < 32; i++) {
            for (int j = 0; j < 48; j++) {
                int mi = i / 8 * 8 + 7 - i % 8;
                int mj = j / 16 * 16 + 15 - j % 16;
                assertEquals(mi * 1000 + mj, out.get(i * 48 + j), "(" + i + ", " + j + ")");
            }
        }
    }
}
