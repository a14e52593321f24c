package org.hsa4j.amp;

import java.util.Arrays;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The shape of a compute domain or of an array ({@code concurrency::extent<N>}): rank 1 to 3, one
 * non-negative size per dimension, dimension 0 the most significant (rows before columns), laid
 * out row-major. Immutable.
 */
public final class Extent {
    private final int[] dims;

    /** An extent of rank {@code dims.length} (1 to 3). */
    public Extent(int... dims) {
        if (dims == null || dims.length < 1 || dims.length > 3) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "an extent has rank 1 to 3, was "
                    + (dims == null ? "null" : dims.length));
        }
        for (int d = 0; d < dims.length; d++) {
            if (dims[d] < 0) {
                throw new HsaException(HsaStatus.INVALID_ARGUMENT, "extent dimension " + d + " is " + dims[d]
                        + " in " + Arrays.toString(dims) + "; sizes must not be negative");
            }
        }
        this.dims = dims.clone();
    }

    /** Number of dimensions. */
    public int rank() {
        return dims.length;
    }

    /** Size along {@code dim}. */
    public int get(int dim) {
        return dims[dim];
    }

    /** Number of points (the product of the sizes). */
    public long size() {
        long s = 1;
        for (int d : dims) {
            s *= d;
        }
        return s;
    }

    /** True when every coordinate of {@code index} lies in {@code 0 .. size-1} of its dimension. */
    public boolean contains(Index index) {
        if (index.rank() != dims.length) {
            return false;
        }
        for (int d = 0; d < dims.length; d++) {
            int v = index.get(d);
            if (v < 0 || v >= dims[d]) {
                return false;
            }
        }
        return true;
    }

    /** Row-major offset of {@code index} in this extent. */
    public long linearize(Index index) {
        if (index.rank() != dims.length) {
            throw new IllegalArgumentException("index " + index + " does not have the rank of " + this);
        }
        long off = 0;
        for (int d = 0; d < dims.length; d++) {
            off = off * dims[d] + index.get(d);
        }
        return off;
    }

    /**
     * This extent cut into tiles of {@code tileDims} (one size per dimension, each at least 1). The
     * sizes are checked against the extent and the accelerator when the kernel is dispatched.
     */
    public TiledExtent tile(int... tileDims) {
        return new TiledExtent(this, tileDims);
    }

    int[] dims() {
        return dims;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Extent e && Arrays.equals(dims, e.dims);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(dims);
    }

    @Override
    public String toString() {
        return "Extent" + Arrays.toString(dims);
    }
}
