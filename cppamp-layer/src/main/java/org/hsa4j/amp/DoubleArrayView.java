package org.hsa4j.amp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** An {@link ArrayView} of doubles. */
public final class DoubleArrayView extends ArrayView {
    DoubleArrayView(MemorySegment segment, long address, Extent extent, AcceleratorView source) {
        this(segment, address, extent, 0, denseStrides(extent), source);
    }

    private DoubleArrayView(MemorySegment segment, long address, Extent extent, long origin, long[] strides,
                   AcceleratorView source) {
        super(segment, address, extent, origin, strides[0], strides[1], source);
    }

    @Override
    public int elementSize() {
        return Double.BYTES;
    }

    /** The sub-view of shape {@code ext} starting at {@code from}, sharing this view's memory. */
    public DoubleArrayView section(Index from, Extent ext) {
        return new DoubleArrayView(segment, address, ext, sectionOrigin(from, ext), new long[] {s0, s1}, source);
    }

    /** Element {@code i} of a rank-1 view. */
    public double get(int i) {
        return segment.getAtIndex(ValueLayout.JAVA_DOUBLE, offset(i));
    }

    /** Element {@code (i, j)} of a rank-2 view. */
    public double get(int i, int j) {
        return segment.getAtIndex(ValueLayout.JAVA_DOUBLE, offset(i, j));
    }

    /** Element {@code (i, j, k)} of a rank-3 view. */
    public double get(int i, int j, int k) {
        return segment.getAtIndex(ValueLayout.JAVA_DOUBLE, offset(i, j, k));
    }

    /** Element at {@code idx}. */
    public double get(Index idx) {
        return segment.getAtIndex(ValueLayout.JAVA_DOUBLE, offset(idx));
    }

    /** Sets element {@code i} of a rank-1 view. */
    public void set(int i, double value) {
        segment.setAtIndex(ValueLayout.JAVA_DOUBLE, offset(i), value);
    }

    /** Sets element {@code (i, j)} of a rank-2 view. */
    public void set(int i, int j, double value) {
        segment.setAtIndex(ValueLayout.JAVA_DOUBLE, offset(i, j), value);
    }

    /** Sets element {@code (i, j, k)} of a rank-3 view. */
    public void set(int i, int j, int k, double value) {
        segment.setAtIndex(ValueLayout.JAVA_DOUBLE, offset(i, j, k), value);
    }

    /** Sets the element at {@code idx}. */
    public void set(Index idx, double value) {
        segment.setAtIndex(ValueLayout.JAVA_DOUBLE, offset(idx), value);
    }
}
