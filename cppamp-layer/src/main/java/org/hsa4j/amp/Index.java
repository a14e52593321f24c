package org.hsa4j.amp;

/**
 * A point in a compute domain ({@code concurrency::index<N>}): rank 1 to 3, coordinate 0 the most
 * significant. Immutable; kernels receive a fresh one per work-item (the JIT removes the
 * allocation when the kernel is inlined into its loop).
 */
public final class Index {
    private final int rank;
    private final int i0;
    private final int i1;
    private final int i2;

    /** A rank-1 index. */
    public Index(int i0) {
        this.rank = 1;
        this.i0 = i0;
        this.i1 = 0;
        this.i2 = 0;
    }

    /** A rank-2 index (row, column). */
    public Index(int i0, int i1) {
        this.rank = 2;
        this.i0 = i0;
        this.i1 = i1;
        this.i2 = 0;
    }

    /** A rank-3 index. */
    public Index(int i0, int i1, int i2) {
        this.rank = 3;
        this.i0 = i0;
        this.i1 = i1;
        this.i2 = i2;
    }

    /** An index of rank {@code coords.length} (1 to 3). */
    public static Index of(int... coords) {
        return switch (coords.length) {
            case 1 -> new Index(coords[0]);
            case 2 -> new Index(coords[0], coords[1]);
            case 3 -> new Index(coords[0], coords[1], coords[2]);
            default -> throw new IllegalArgumentException("an index has rank 1 to 3, was " + coords.length);
        };
    }

    /** Number of coordinates. */
    public int rank() {
        return rank;
    }

    /** Coordinate {@code dim} (0 is the most significant). */
    public int get(int dim) {
        if (dim < 0 || dim >= rank) {
            throw new IndexOutOfBoundsException("dimension " + dim + " of a rank-" + rank + " index");
        }
        return switch (dim) {
            case 0 -> i0;
            case 1 -> i1;
            default -> i2;
        };
    }

    /** This index plus {@code other}, coordinate by coordinate. */
    public Index plus(Index other) {
        if (other.rank != rank) {
            throw new IllegalArgumentException("cannot add " + other + " to " + this);
        }
        return switch (rank) {
            case 1 -> new Index(i0 + other.i0);
            case 2 -> new Index(i0 + other.i0, i1 + other.i1);
            default -> new Index(i0 + other.i0, i1 + other.i1, i2 + other.i2);
        };
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Index x && x.rank == rank && x.i0 == i0 && x.i1 == i1 && x.i2 == i2;
    }

    @Override
    public int hashCode() {
        return ((rank * 31 + i0) * 31 + i1) * 31 + i2;
    }

    @Override
    public String toString() {
        return switch (rank) {
            case 1 -> "Index[" + i0 + "]";
            case 2 -> "Index[" + i0 + ", " + i1 + "]";
            default -> "Index[" + i0 + ", " + i1 + ", " + i2 + "]";
        };
    }
}
