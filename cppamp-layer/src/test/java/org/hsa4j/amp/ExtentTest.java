package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Item 1: the index space (Extent, Index, TiledExtent). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ExtentTest {

    @Test
    void shouldReportRankSizeAndDimensions() {
        Extent e = new Extent(3, 4, 5);
        assertEquals(3, e.rank());
        assertEquals(60, e.size());
        assertEquals(4, e.get(1));
    }

    @Test
    void shouldContainOnlyIndicesInsideEveryDimension() {
        Extent e = new Extent(2, 3);
        assertTrue(e.contains(new Index(1, 2)));
        assertFalse(e.contains(new Index(2, 0)));
        assertFalse(e.contains(new Index(0, -1)));
        assertFalse(e.contains(new Index(1)));
    }

    @Test
    void shouldLinearizeRowMajor() {
        assertEquals(1 * 12 + 2 * 4 + 3, new Extent(2, 3, 4).linearize(new Index(1, 2, 3)));
    }

    @Test
    void shouldRejectNegativeSizesWithInvalidArgument() {
        HsaException e = assertThrows(HsaException.class, () -> new Extent(4, -2));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("-2"), e.getMessage());
    }

    @Test
    void shouldRejectRanksOutsideOneToThree() {
        assertThrows(HsaException.class, () -> new Extent());
        assertThrows(HsaException.class, () -> new Extent(1, 2, 3, 4));
    }

    @Test
    void shouldBuildIndicesOfEachRankAndCompareThemByValue() {
        assertEquals(new Index(1, 2), Index.of(1, 2));
        assertEquals(3, Index.of(1, 2, 3).get(2));
        assertEquals(new Index(4, 6), new Index(1, 2).plus(new Index(3, 4)));
        assertThrows(IndexOutOfBoundsException.class, () -> new Index(1).get(1));
    }

    @Test
    void shouldTileWithSizesChosenAtRunTime() {
        int t = Integer.parseInt("8");
        TiledExtent te = new Extent(32, 64).tile(t, 2 * t);
        assertEquals(8, te.tileDim(0));
        assertEquals(16, te.tileDim(1));
        assertEquals(128, te.tileSize());
        assertEquals(new Extent(8, 16), te.tileExtent());
        assertEquals(4, te.tiles(0));
    }

    @Test
    void shouldRejectTileSizesBelowOneOrOfTheWrongRank() {
        assertThrows(HsaException.class, () -> new Extent(8).tile(0));
        assertThrows(HsaException.class, () -> new Extent(8, 8).tile(4));
    }

    @Test
    void shouldPadAndTruncateToWholeTiles() {
        TiledExtent te = new Extent(10, 17).tile(4, 8);
        assertEquals(new Extent(12, 24), te.pad().extent());
        assertEquals(new Extent(8, 16), te.truncate().extent());
    }

    @Test
    void shouldCarveAlignedTileStaticArraysFromTheGroupSegment() {
        TiledExtent te = new Extent(16).tile(16);
        TileStaticInts a = te.tileStaticInts(3);
        TileStaticDoubles b = te.tileStaticDoubles(2);
        TileStaticFloats c = te.tileStaticFloats(1);
        assertEquals(0, a.offset());
        assertEquals(16, b.offset(), "doubles are aligned to 8 bytes");
        assertEquals(32, c.offset());
        assertEquals(36, te.groupSegmentSize());
    }

    @Test
    void shouldKeepTileStaticDeclarationsWhenPadding() {
        TiledExtent te = new Extent(10).tile(4);
        te.tileStaticLongs(4);
        assertEquals(32, te.pad().groupSegmentSize());
    }
}
