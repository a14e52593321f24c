package org.hsa4j.amp;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.hsa4j.memory.AtomicOp;

/** An {@link ArrayView} of floats. In fidelity mode its accesses go through the runtime's coherence model (see {@link ArrayView}). */
public final class FloatArrayView extends ArrayView {
    FloatArrayView(ViewMemory memory, Extent extent, AcceleratorView source) {
        this(memory, extent, 0, denseStrides(extent), source);
    }

    private FloatArrayView(ViewMemory memory, Extent extent, long origin, long[] strides, AcceleratorView source) {
        super(memory, extent, origin, strides[0], strides[1], source);
    }

    @Override
    public int elementSize() {
        return Float.BYTES;
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
        if (model != null) {
            return Float.intBitsToFloat((int) cursor.load(address + element * Float.BYTES, Float.BYTES));
        }
        return segment.getAtIndex(ValueLayout.JAVA_FLOAT, element);
    }

    /** Plain write of the element at checked element offset {@code element}. */
    private void store(long element, float value) {
        if (model != null) {
            cursor.store(address + element * Float.BYTES, Float.BYTES, Float.floatToRawIntBits(value));
            return;
        }
        segment.setAtIndex(ValueLayout.JAVA_FLOAT, element, value);
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
        if (model != null) {
            return Float.intBitsToFloat((int) atomicInModel(o, Float.BYTES, AtomicOp.FLOAT_ADD,
                    Float.floatToRawIntBits(delta), 0, order));
        }
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
