package org.hsa4j.amp;

import java.lang.foreign.ValueLayout;

/**
 * An {@link ArrayView} of doubles: the element accessors of {@code double} over the shared
 * implementation in {@link ArrayView} (which says why it is shared). In fidelity mode its accesses
 * go through the runtime's coherence model.
 */
public final class DoubleArrayView extends ArrayView {
    DoubleArrayView(ViewMemory memory, Extent extent, AcceleratorView source) {
        this(memory, extent, 0, denseStrides(extent), source);
    }

    private DoubleArrayView(ViewMemory memory, Extent extent, long origin, long[] strides, AcceleratorView source) {
        super(memory, Double.BYTES, extent, origin, strides[0], strides[1], source);
    }

    /** The sub-view of shape {@code ext} starting at {@code from}, sharing this view's memory. */
    public DoubleArrayView section(Index from, Extent ext) {
        return new DoubleArrayView(memory, ext, sectionOrigin(from, ext), new long[] {s0, s1}, source);
    }

    /** Element {@code i} of a rank-1 view. */
    public double get(int i) {
        return load(offset(i));
    }

    /** Element {@code (i, j)} of a rank-2 view. */
    public double get(int i, int j) {
        return load(offset(i, j));
    }

    /** Element {@code (i, j, k)} of a rank-3 view. */
    public double get(int i, int j, int k) {
        return load(offset(i, j, k));
    }

    /** Element at {@code idx}. */
    public double get(Index idx) {
        return load(offset(idx));
    }

    /** Sets element {@code i} of a rank-1 view. */
    public void set(int i, double value) {
        store(offset(i), value);
    }

    /** Sets element {@code (i, j)} of a rank-2 view. */
    public void set(int i, int j, double value) {
        store(offset(i, j), value);
    }

    /** Sets element {@code (i, j, k)} of a rank-3 view. */
    public void set(int i, int j, int k, double value) {
        store(offset(i, j, k), value);
    }

    /** Sets the element at {@code idx}. */
    public void set(Index idx, double value) {
        store(offset(idx), value);
    }

    /** Plain read of the element at checked element offset {@code element}. */
    private double load(long element) {
        return cursor != null ? Double.longBitsToDouble((long) modelLoad(element)) : segment.getAtIndex(ValueLayout.JAVA_DOUBLE, element);
    }

    /** Plain write of the element at checked element offset {@code element}. */
    private void store(long element, double value) {
        if (cursor != null) {
            modelStore(element, Double.doubleToRawLongBits(value));
        } else {
            segment.setAtIndex(ValueLayout.JAVA_DOUBLE, element, value);
        }
    }

    /** {@code atomic_fetch_add} (seq_cst) of a double to element {@code i} (rank 1); returns the previous value. */
    public double atomicFetchAdd(int i, double delta) {
        return atomicFetchAdd(i, delta, CppMemoryOrder.SEQ_CST);
    }

    /**
     * {@code atomic_fetch_add_explicit} of a double to element {@code i} (rank 1): a compare-and-set
     * loop on the bits, correct on every kind of memory; returns the previous value.
     */
    public double atomicFetchAdd(int i, double delta, CppMemoryOrder order) {
        return Double.longBitsToDouble((long) atomicFetchAddFloatingBits(i, delta, order));
    }
}
