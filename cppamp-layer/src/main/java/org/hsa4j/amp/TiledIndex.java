package org.hsa4j.amp;

import org.hsa4j.kernel.GroupMemory;

/**
 * What a work-item of a tiled kernel sees of itself ({@code concurrency::tiled_index}): its global
 * position, its position in the tile, the tile's position and origin, the tile's shape, and the
 * tile's barrier. Coordinate 0 is the most significant (rows before columns).
 *
 * <p>Like the runtime's {@code WorkItem}, the object may be reused for the next work-item once the
 * kernel returns or waits at a barrier, so a kernel must not keep it or hand it to other code
 * (only to the layer's own tile_static, barrier and fence calls).
 */
public final class TiledIndex {
    final int rank;
    final int t0;
    final int t1;
    final int t2;
    int l0;
    int l1;
    int l2;
    int o0;
    int o1;
    int o2;
    /** The tile's group memory, as the runtime's work-item sees it (checked in fidelity mode). */
    GroupMemory memory;
    final TileBarrier barrier;
    final TileFrame frame;

    TiledIndex(int[] tile, TileBarrier barrier, TileFrame frame) {
        this.rank = tile.length;
        this.t0 = tile[0];
        this.t1 = rank > 1 ? tile[1] : 1;
        this.t2 = rank > 2 ? tile[2] : 1;
        this.barrier = barrier;
        this.frame = frame;
    }

    /** Number of dimensions. */
    public int rank() {
        return rank;
    }

    /** Global coordinate along {@code dim}. */
    public int global(int dim) {
        return tileOrigin(dim) + local(dim);
    }

    /** Coordinate inside the tile along {@code dim}. */
    public int local(int dim) {
        return switch (checked(dim)) {
            case 0 -> l0;
            case 1 -> l1;
            default -> l2;
        };
    }

    /** Position of the tile among the tiles along {@code dim}. */
    public int tile(int dim) {
        return tileOrigin(dim) / tileDim(dim);
    }

    /** Global coordinate of the tile's first work-item along {@code dim}. */
    public int tileOrigin(int dim) {
        return switch (checked(dim)) {
            case 0 -> o0;
            case 1 -> o1;
            default -> o2;
        };
    }

    /** Tile size along {@code dim}. */
    public int tileDim(int dim) {
        return switch (checked(dim)) {
            case 0 -> t0;
            case 1 -> t1;
            default -> t2;
        };
    }

    /** Row-major position inside the tile (0 .. tile size - 1). */
    public int flatLocal() {
        return (l0 * t1 + l1) * t2 + l2;
    }

    /** Global position as an index. */
    public Index global() {
        return indexOf(o0 + l0, o1 + l1, o2 + l2);
    }

    /** Position inside the tile as an index. */
    public Index local() {
        return indexOf(l0, l1, l2);
    }

    /** Position of the tile as an index. */
    public Index tile() {
        return indexOf(o0 / t0, o1 / t1, o2 / t2);
    }

    /** The tile's origin as an index. */
    public Index tileOrigin() {
        return indexOf(o0, o1, o2);
    }

    /** The tile's shape ({@code tile_dim}). */
    public Extent tileExtent() {
        return switch (rank) {
            case 1 -> new Extent(t0);
            case 2 -> new Extent(t0, t1);
            default -> new Extent(t0, t1, t2);
        };
    }

    /** The tile's barrier. */
    public TileBarrier barrier() {
        return barrier;
    }

    private Index indexOf(int a, int b, int c) {
        return switch (rank) {
            case 1 -> new Index(a);
            case 2 -> new Index(a, b);
            default -> new Index(a, b, c);
        };
    }

    private int checked(int dim) {
        if (dim < 0 || dim >= rank) {
            throw new IndexOutOfBoundsException("dimension " + dim + " of a rank-" + rank + " tiled index");
        }
        return dim;
    }

    /** Places this index at tile origin {@code (a, b, c)} with group memory {@code memory}. */
    void placeTile(int a, int b, int c, GroupMemory memory) {
        o0 = a;
        o1 = b;
        o2 = c;
        this.memory = memory;
    }

    /** Places this index at local position {@code (a, b, c)}. */
    void placeLocal(int a, int b, int c) {
        l0 = a;
        l1 = b;
        l2 = c;
    }

    @Override
    public String toString() {
        return "TiledIndex[global " + global() + ", local " + local() + ", tile " + tile() + "]";
    }
}
