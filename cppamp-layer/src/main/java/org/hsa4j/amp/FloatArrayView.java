package org.hsa4j.amp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/** An {@link ArrayView} of floats. */
public final class FloatArrayView extends ArrayView {
    FloatArrayView(MemorySegment segment, long address, Extent extent, AcceleratorView source) {
        this(segment, address, extent, 0, denseStrides(extent), source);
    }

    private FloatArrayView(MemorySegment segment, long address, Extent extent, long origin, long[] strides,
                   AcceleratorView source) {
        super(segment, address, extent, origin, strides[0], strides[1], source);
    }

    @Override
    public int elementSize() {
        return Float.BYTES;
    }

    /** The sub-view of shape {@code ext} starting at {@code from}, sharing this view's memory. */
    public FloatArrayView section(Index from, Extent ext) {
        return new FloatArrayView(segment, address, ext, sectionOrigin(from, ext), new long[] {s0, s1}, source);
    }

    /** Element {@code i} of a rank-1 view. */
    public float get(int i) {
        return segment.getAtIndex(ValueLayout.JAVA_FLOAT, offset(i));
    }

    /** Element {@code (i, j)} of a rank-2 view. */
    public float get(int i, int j) {
        return segment.getAtIndex(ValueLayout.JAVA_FLOAT, offset(i, j));
    }

    /** Element {@code (i, j, k)} of a rank-3 view. */
    public float get(int i, int j, int k) {
        return segment.getAtIndex(ValueLayout.JAVA_FLOAT, offset(i, j, k));
    }

    /** Element at {@code idx}. */
    public float get(Index idx) {
        return segment.getAtIndex(ValueLayout.JAVA_FLOAT, offset(idx));
    }

    /** Sets element {@code i} of a rank-1 view. */
    public void set(int i, float value) {
        segment.setAtIndex(ValueLayout.JAVA_FLOAT, offset(i), value);
    }

    /** Sets element {@code (i, j)} of a rank-2 view. */
    public void set(int i, int j, float value) {
        segment.setAtIndex(ValueLayout.JAVA_FLOAT, offset(i, j), value);
    }

    /** Sets element {@code (i, j, k)} of a rank-3 view. */
    public void set(int i, int j, int k, float value) {
        segment.setAtIndex(ValueLayout.JAVA_FLOAT, offset(i, j, k), value);
    }

    /** Sets the element at {@code idx}. */
    public void set(Index idx, float value) {
        segment.setAtIndex(ValueLayout.JAVA_FLOAT, offset(idx), value);
    }

    private static final VarHandle BITS = ValueLayout.JAVA_INT.varHandle();

    /** {@code atomic_fetch_add} (seq_cst) of a float to element {@code i} (rank 1); returns the previous value. */
    public float atomicFetchAdd(int i, float delta) {
        return atomicFetchAdd(i, delta, CppMemoryOrder.SEQ_CST);
    }

    /**
     * {@code atomic_fetch_add_explicit} of a float to element {@code i} (rank 1): a compare-and-set
     * loop on the bits, correct on every kind of memory; returns the previous value.
     */
    public float atomicFetchAdd(int i, float delta, CppMemoryOrder order) {
        long o = offset(i) * Float.BYTES;
        while (true) {
            int seen = (int) BITS.getOpaque(segment, o);
            int next = Float.floatToRawIntBits(Float.intBitsToFloat(seen) + delta);
            boolean ok = switch (order) {
                case RELAXED -> BITS.weakCompareAndSetPlain(segment, o, seen, next);
                case CONSUME, ACQUIRE -> BITS.weakCompareAndSetAcquire(segment, o, seen, next);
                case RELEASE -> BITS.weakCompareAndSetRelease(segment, o, seen, next);
                default -> BITS.weakCompareAndSet(segment, o, seen, next);
            };
            if (ok) {
                return Float.intBitsToFloat(seen);
            }
        }
    }
}
