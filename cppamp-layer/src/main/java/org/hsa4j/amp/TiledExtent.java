package org.hsa4j.amp;

import java.util.Arrays;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * A compute domain cut into tiles ({@code concurrency::tiled_extent}): the tile sizes are chosen at
 * run time, and so is the tile_static memory, declared here with {@code tileStaticFloats(n)} and
 * friends. Each declaration takes the next aligned bytes of the group segment; their sum is the
 * group-segment size of the dispatch. The tile sizes are checked against the extent (they must
 * divide it) and against the accelerator (workgroup and group-segment limits) when the kernel is
 * dispatched; a bad one fails the dispatch's future.
 */
public final class TiledExtent {
    private final Extent extent;
    private final int[] tile;
    private int groupSegmentSize;

    TiledExtent(Extent extent, int[] tile) {
        if (tile == null || tile.length != extent.rank()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "a rank-" + extent.rank() + " extent needs "
                    + extent.rank() + " tile sizes, got " + (tile == null ? "none" : Arrays.toString(tile)));
        }
        for (int d = 0; d < tile.length; d++) {
            if (tile[d] < 1) {
                throw new HsaException(HsaStatus.INVALID_ARGUMENT, "tile size " + tile[d] + " in dimension " + d
                        + " must be at least 1");
            }
        }
        this.extent = extent;
        this.tile = tile.clone();
    }

    /** The whole compute domain. */
    public Extent extent() {
        return extent;
    }

    /** Number of dimensions. */
    public int rank() {
        return tile.length;
    }

    /** Tile size along {@code dim}. */
    public int tileDim(int dim) {
        return tile[dim];
    }

    /** The tile's shape as an extent ({@code tile_extent}). */
    public Extent tileExtent() {
        return new Extent(tile);
    }

    /** Work-items per tile. */
    public long tileSize() {
        long s = 1;
        for (int t : tile) {
            s *= t;
        }
        return s;
    }

    /** Number of tiles along {@code dim} (rounded up). */
    public int tiles(int dim) {
        return (int) ((extent.get(dim) + (long) tile[dim] - 1) / tile[dim]);
    }

    /** This tiling over the extent rounded up to whole tiles; the tile_static declarations carry over. */
    public TiledExtent pad() {
        int[] padded = new int[tile.length];
        for (int d = 0; d < tile.length; d++) {
            padded[d] = tiles(d) * tile[d];
        }
        return withExtent(new Extent(padded));
    }

    /** This tiling over the extent rounded down to whole tiles; the tile_static declarations carry over. */
    public TiledExtent truncate() {
        int[] cut = new int[tile.length];
        for (int d = 0; d < tile.length; d++) {
            cut[d] = extent.get(d) / tile[d] * tile[d];
        }
        return withExtent(new Extent(cut));
    }

    private synchronized TiledExtent withExtent(Extent e) {
        TiledExtent t = new TiledExtent(e, tile);
        t.groupSegmentSize = groupSegmentSize;
        return t;
    }

    /** Declares a tile_static array of {@code length} ints. */
    public TileStaticInts tileStaticInts(int length) {
        return new TileStaticInts(reserve(length, Integer.BYTES), length);
    }

    /** Declares a tile_static array of {@code length} longs. */
    public TileStaticLongs tileStaticLongs(int length) {
        return new TileStaticLongs(reserve(length, Long.BYTES), length);
    }

    /** Declares a tile_static array of {@code length} floats. */
    public TileStaticFloats tileStaticFloats(int length) {
        return new TileStaticFloats(reserve(length, Float.BYTES), length);
    }

    /** Declares a tile_static array of {@code length} doubles. */
    public TileStaticDoubles tileStaticDoubles(int length) {
        return new TileStaticDoubles(reserve(length, Double.BYTES), length);
    }

    private synchronized long reserve(int length, int elementSize) {
        if (length < 1) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "a tile_static array needs at least 1 element, was "
                    + length);
        }
        long offset = ((long) groupSegmentSize + elementSize - 1) / elementSize * elementSize;
        long end = offset + (long) length * elementSize;
        if (end > Integer.MAX_VALUE) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "tile_static memory of " + end
                    + " bytes cannot be addressed");
        }
        groupSegmentSize = (int) end;
        return offset;
    }

    /** Bytes of group segment the tile_static declarations need per tile. */
    public synchronized int groupSegmentSize() {
        return groupSegmentSize;
    }

    int[] tileDims() {
        return tile;
    }

    @Override
    public String toString() {
        return "TiledExtent" + Arrays.toString(extent.dims()) + " tiles of " + Arrays.toString(tile);
    }
}
