package org.hsa4j.amp;

import java.lang.foreign.ValueLayout;

/**
 * An {@link ArrayView} of floats: the element accessors of {@code float} over the shared
 * implementation in {@link ArrayView} (which says why it is shared). In fidelity mode its accesses
 * go through the runtime's coherence model.
 */
public final class FloatArrayView extends ArrayView {
    FloatArrayView(ViewMemory memory, Extent extent, AcceleratorView source) {
        this(memory, extent, 0, denseStrides(extent), source);
    }

    private FloatArrayView(ViewMemory memory, Extent extent, long origin, long[] strides, AcceleratorView source) {
        super(memory, Float.BYTES, extent, origin, strides[0], strides[1], source);
    }

    /** The sub-view of shape {@code ext} starting at {@code from}, sharing this view's memory. */
    public FloatArrayView section(Index from, Extent ext) {
        return new FloatArrayView(memory, ext, sectionOrigin(from, ext), new long[] {s0, s1}, source);
    }

    /** Element {@code i} of a rank-1 view. */
    public float get(int i) {
        return load(offset(i));
    }

    /** Element {@code (i, j)} of a rank-2 view. */
    public float get(int i, int j) {
        return load(offset(i, j));
    }

    /** Element {@code (i, j, k)} of a rank-3 view. */
    public float get(int i, int j, int k) {
        return load(offset(i, j, k));
    }

    /** Element at {@code idx}. */
    public float get(Index idx) {
        return load(offset(idx));
    }

    /** Sets element {@code i} of a rank-1 view. */
    public void set(int i, float value) {
        store(offset(i), value);
    }

    /** Sets element {@code (i, j)} of a rank-2 view. */
    public void set(int i, int j, float value) {
        store(offset(i, j), value);
    }

    /** Sets element {@code (i, j, k)} of a rank-3 view. */
    public void set(int i, int j, int k, float value) {
        store(offset(i, j, k), value);
    }

    /** Sets the element at {@code idx}. */
    public void set(Index idx, float value) {
        store(offset(idx), value);
    }

    /** Plain read of the element at checked element offset {@code element}. */
    private float load(long element) {
        return cursor != null ? Float.intBitsToFloat((int) modelLoad(element)) : segment.getAtIndex(ValueLayout.JAVA_FLOAT, element);
    }

    /** Plain write of the element at checked element offset {@code element}. */
    private void store(long element, float value) {
        if (cursor != null) {
            modelStore(element, Float.floatToRawIntBits(value));
        } else {
            segment.setAtIndex(ValueLayout.JAVA_FLOAT, element, value);
        }
    }

    /** {@code atomic_fetch_add} (seq_cst) of a float to element {@code i} (rank 1); returns the previous value. */
    public float atomicFetchAdd(int i, float delta) {
        return atomicFetchAdd(i, delta, CppMemoryOrder.SEQ_CST);
    }

    /**
     * {@code atomic_fetch_add_explicit} of a float to element {@code i} (rank 1): a compare-and-set
     * loop on the bits, correct on every kind of memory; returns the previous value.
     */
    public float atomicFetchAdd(int i, float delta, CppMemoryOrder order) {
        return Float.intBitsToFloat((int) atomicFetchAddFloatingBits(i, delta, order));
    }
}
