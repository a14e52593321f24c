package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.hsa4j.amp.codegen.TileCompiler;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * tile_static memory under the runtime's fidelity mode (issue 21 part 4): a tiled kernel runs as the
 * runtime's work-items, last-first, and its tile_static accesses go through the runtime's checked
 * group memory, so a missing tile barrier is reported even for a kernel the tile compiler compiles.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TileStaticFidelityTest {
    private static final int TILE = 32;
    private static final int TILES = 4;

    private static AmpFixture start(boolean fidelity) {
        return AmpFixture.start(RuntimeConfig.builder().gpuAgents(1).computeUnits(1).fidelity(fidelity).build());
    }

    /** Each work-item writes its slot, then (with a barrier when {@code barrier}) the tile's last one sums them. */
    private static TiledKernel lastSums(TileStaticInts s, IntArrayView out, boolean barrier) {
        if (barrier) {
            return t -> {
                int l = t.local(0);
                s.set(t, l, l + 1);
                t.barrier().await();
                if (l == TILE - 1) {
                    int sum = 0;
                    for (int i = 0; i < TILE; i++) {
                        sum += s.get(t, i);
                    }
                    out.set(t.tile(0), sum);
                }
            };
        }
        return t -> {
            int l = t.local(0);
            s.set(t, l, l + 1);
            if (l == TILE - 1) {
                int sum = 0;
                for (int i = 0; i < TILE; i++) {
                    sum += s.get(t, i);
                }
                out.set(t.tile(0), sum);
            }
        };
    }

    @Test
    void shouldReportAMissingTileBarrierInACompiledKernel() {
        try (AmpFixture fx = start(true)) {
            TiledExtent te = new Extent(TILES * TILE).tile(TILE);
            TiledKernel k = lastSums(te.tileStaticInts(TILE), fx.ints(TILES), false);
            assertTrue(TileCompiler.compile(k).workItemLoops(), TileCompiler.compile(k).reason());
            HsaException e = assertThrows(HsaException.class, fx.amp.parallelForEach(te, k)::get);
            assertEquals(HsaStatus.EXCEPTION, e.status());
            // last-first: work-item 31 writes and reads every slot, then work-item 30 writes slot 30
            assertTrue(e.getMessage().contains("group-memory race at group-segment offset 120 of workgroup 0:"
                    + " work-item 31 read it and work-item 30 wrote it"), e.getMessage());
        }
    }

    @Test
    void shouldRunTheTiledKernelWithItsBarrierCleanly() {
        try (AmpFixture fx = start(true)) {
            TiledExtent te = new Extent(TILES * TILE).tile(TILE);
            IntArrayView out = fx.ints(TILES);
            fx.amp.parallelForEach(te, lastSums(te.tileStaticInts(TILE), out, true)).get();
            for (int i = 0; i < TILES; i++) {
                assertEquals(TILE * (TILE + 1) / 2, out.get(i), "tile " + i);
            }
        }
    }

    @Test
    void shouldLeaveTheMissingTileBarrierUnseenInNormalMode() {
        try (AmpFixture fx = start(false)) {
            TiledExtent te = new Extent(TILES * TILE).tile(TILE);
            IntArrayView out = fx.ints(TILES);
            fx.amp.parallelForEach(te, lastSums(te.tileStaticInts(TILE), out, false)).get();
            for (int i = 0; i < TILES; i++) {
                assertEquals(TILE * (TILE + 1) / 2, out.get(i), "tile " + i);
            }
        }
    }
}
