package org.hsa4j.amp;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.hsa4j.memory.AtomicOp;

/** An {@link ArrayView} of ints. In fidelity mode its accesses go through the runtime's coherence model (see {@link ArrayView}). */
public final class IntArrayView extends ArrayView {
    IntArrayView(ViewMemory memory, Extent extent, AcceleratorView source) {
        this(memory, extent, 0, denseStrides(extent), source);
    }

    private IntArrayView(ViewMemory memory, Extent extent, long origin, long[] strides, AcceleratorView source) {
        super(memory, extent, origin, strides[0], strides[1], source);
    }

    @Override
    public int elementSize() {
        return Integer.BYTES;
    }

    /** The sub-view of shape {@code ext} starting at {@code from}, sharing this view's memory. */
    public IntArrayView section(Index from, Extent ext) {
        return new IntArrayView(memory, ext, sectionOrigin(from, ext), new long[] {s0, s1}, source);
    }

    /** Element {@code i} of a rank-1 view. */
    public int get(int i) {
        return load(offset(i));
    }

    /** Element {@code (i, j)} of a rank-2 view. */
    public int get(int i, int j) {
        return load(offset(i, j));
    }

    /** Element {@code (i, j, k)} of a rank-3 view. */
    public int get(int i, int j, int k) {
        return load(offset(i, j, k));
    }

    /** Element at {@code idx}. */
    public int get(Index idx) {
        return load(offset(idx));
    }

    /** Sets element {@code i} of a rank-1 view. */
    public void set(int i, int value) {
        store(offset(i), value);
    }

    /** Sets element {@code (i, j)} of a rank-2 view. */
    public void set(int i, int j, int value) {
        store(offset(i, j), value);
    }

    /** Sets element {@code (i, j, k)} of a rank-3 view. */
    public void set(int i, int j, int k, int value) {
        store(offset(i, j, k), value);
    }

    /** Sets the element at {@code idx}. */
    public void set(Index idx, int value) {
        store(offset(idx), value);
    }

    /** Plain read of the element at checked element offset {@code element}. */
    private int load(long element) {
        if (model != null) {
            return (int) cursor.load(address + element * Integer.BYTES, Integer.BYTES);
        }
        return segment.getAtIndex(ValueLayout.JAVA_INT, element);
    }

    /** Plain write of the element at checked element offset {@code element}. */
    private void store(long element, int value) {
        if (model != null) {
            cursor.store(address + element * Integer.BYTES, Integer.BYTES, value);
            return;
        }
        segment.setAtIndex(ValueLayout.JAVA_INT, element, value);
    }

    // ---- atomics (C++11 orders, see CppMemoryOrder); natural alignment required ----------------

    private static final VarHandle ATOMIC = ValueLayout.JAVA_INT.varHandle();

    private long at(int i) {
        return offset(i) * Integer.BYTES;
    }

    /** Fidelity mode: {@code op} on element {@code i} in the coherence model. */
    private int atomicInModel(int i, AtomicOp op, int x, int y, CppMemoryOrder order) {
        return (int) atomicInModel(at(i), Integer.BYTES, op, x, y, order);
    }

    /** {@code atomic_load} (seq_cst) of element {@code i} (rank 1). */
    public int atomicLoad(int i) {
        return atomicLoad(i, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_load_explicit} of element {@code i} (rank 1). */
    public int atomicLoad(int i, CppMemoryOrder order) {
        if (model != null) {
            return atomicInModel(i, AtomicOp.LOAD, 0, 0, loadOrder(order));
        }
        long o = at(i);
        return switch (order) {
            case RELAXED -> (int) ATOMIC.getOpaque(segment, o);
            case CONSUME, ACQUIRE -> (int) ATOMIC.getAcquire(segment, o);
            case SEQ_CST -> (int) ATOMIC.getVolatile(segment, o);
            default -> throw new IllegalArgumentException("an atomic load cannot be " + order);
        };
    }

    /** {@code atomic_store} (seq_cst) of element {@code i} (rank 1). */
    public void atomicStore(int i, int value) {
        atomicStore(i, value, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_store_explicit} of element {@code i} (rank 1). */
    public void atomicStore(int i, int value, CppMemoryOrder order) {
        if (model != null) {
            atomicInModel(i, AtomicOp.STORE, value, 0, storeOrder(order));
            return;
        }
        long o = at(i);
        switch (order) {
            case RELAXED -> ATOMIC.setOpaque(segment, o, value);
            case RELEASE -> ATOMIC.setRelease(segment, o, value);
            case SEQ_CST -> ATOMIC.setVolatile(segment, o, value);
            default -> throw new IllegalArgumentException("an atomic store cannot be " + order);
        }
    }

    /** {@code atomic_fetch_add} (seq_cst) on element {@code i}; returns the previous value. */
    public int atomicFetchAdd(int i, int delta) {
        return atomicFetchAdd(i, delta, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_add_explicit} on element {@code i}; returns the previous value. */
    public int atomicFetchAdd(int i, int delta, CppMemoryOrder order) {
        if (model != null) {
            return atomicInModel(i, AtomicOp.ADD, delta, 0, order);
        }
        long o = at(i);
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (int) ATOMIC.getAndAddAcquire(segment, o, delta);
            case RELEASE -> (int) ATOMIC.getAndAddRelease(segment, o, delta);
            default -> (int) ATOMIC.getAndAdd(segment, o, delta);
        };
    }

    /** {@code atomic_fetch_sub} (seq_cst) on element {@code i}; returns the previous value. */
    public int atomicFetchSub(int i, int delta) {
        return atomicFetchAdd(i, -delta, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_sub_explicit} on element {@code i}; returns the previous value. */
    public int atomicFetchSub(int i, int delta, CppMemoryOrder order) {
        return atomicFetchAdd(i, -delta, order);
    }

    /** {@code atomic_fetch_and} (seq_cst) on element {@code i}; returns the previous value. */
    public int atomicFetchAnd(int i, int mask) {
        return atomicFetchAnd(i, mask, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_and_explicit} on element {@code i}; returns the previous value. */
    public int atomicFetchAnd(int i, int mask, CppMemoryOrder order) {
        if (model != null) {
            return atomicInModel(i, AtomicOp.AND, mask, 0, order);
        }
        long o = at(i);
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (int) ATOMIC.getAndBitwiseAndAcquire(segment, o, mask);
            case RELEASE -> (int) ATOMIC.getAndBitwiseAndRelease(segment, o, mask);
            default -> (int) ATOMIC.getAndBitwiseAnd(segment, o, mask);
        };
    }

    /** {@code atomic_fetch_or} (seq_cst) on element {@code i}; returns the previous value. */
    public int atomicFetchOr(int i, int mask) {
        return atomicFetchOr(i, mask, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_or_explicit} on element {@code i}; returns the previous value. */
    public int atomicFetchOr(int i, int mask, CppMemoryOrder order) {
        if (model != null) {
            return atomicInModel(i, AtomicOp.OR, mask, 0, order);
        }
        long o = at(i);
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (int) ATOMIC.getAndBitwiseOrAcquire(segment, o, mask);
            case RELEASE -> (int) ATOMIC.getAndBitwiseOrRelease(segment, o, mask);
            default -> (int) ATOMIC.getAndBitwiseOr(segment, o, mask);
        };
    }

    /** {@code atomic_fetch_xor} (seq_cst) on element {@code i}; returns the previous value. */
    public int atomicFetchXor(int i, int mask) {
        return atomicFetchXor(i, mask, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_xor_explicit} on element {@code i}; returns the previous value. */
    public int atomicFetchXor(int i, int mask, CppMemoryOrder order) {
        if (model != null) {
            return atomicInModel(i, AtomicOp.XOR, mask, 0, order);
        }
        long o = at(i);
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (int) ATOMIC.getAndBitwiseXorAcquire(segment, o, mask);
            case RELEASE -> (int) ATOMIC.getAndBitwiseXorRelease(segment, o, mask);
            default -> (int) ATOMIC.getAndBitwiseXor(segment, o, mask);
        };
    }

    /** {@code atomic_exchange} (seq_cst) on element {@code i}; returns the previous value. */
    public int atomicExchange(int i, int value) {
        return atomicExchange(i, value, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_exchange_explicit} on element {@code i}; returns the previous value. */
    public int atomicExchange(int i, int value, CppMemoryOrder order) {
        if (model != null) {
            return atomicInModel(i, AtomicOp.EXCHANGE, value, 0, order);
        }
        long o = at(i);
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (int) ATOMIC.getAndSetAcquire(segment, o, value);
            case RELEASE -> (int) ATOMIC.getAndSetRelease(segment, o, value);
            default -> (int) ATOMIC.getAndSet(segment, o, value);
        };
    }

    /**
     * {@code atomic_compare_exchange_strong} (seq_cst) on element {@code i}: stores {@code desired} if
     * the element is {@code expected}; returns the value found ({@code expected} on success).
     */
    public int atomicCompareExchange(int i, int expected, int desired) {
        return atomicCompareExchange(i, expected, desired, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_compare_exchange_strong_explicit}; returns the value found. */
    public int atomicCompareExchange(int i, int expected, int desired, CppMemoryOrder order) {
        if (model != null) {
            return atomicInModel(i, AtomicOp.COMPARE_EXCHANGE, expected, desired, order);
        }
        long o = at(i);
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (int) ATOMIC.compareAndExchangeAcquire(segment, o, expected, desired);
            case RELEASE -> (int) ATOMIC.compareAndExchangeRelease(segment, o, expected, desired);
            default -> (int) ATOMIC.compareAndExchange(segment, o, expected, desired);
        };
    }

    /** {@code atomic_fetch_max} (seq_cst) on element {@code i}; returns the previous value. */
    public int atomicFetchMax(int i, int value) {
        return atomicFetchMax(i, value, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_max_explicit} on element {@code i}; returns the previous value. */
    public int atomicFetchMax(int i, int value, CppMemoryOrder order) {
        if (model != null) {
            return atomicInModel(i, AtomicOp.MAX, value, 0, order);
        }
        long o = at(i);
        int seen = (int) ATOMIC.getOpaque(segment, o);
        while (seen < value && !casWeak(o, seen, value, order)) {
            seen = (int) ATOMIC.getOpaque(segment, o);
        }
        return seen;
    }

    /** {@code atomic_fetch_min} (seq_cst) on element {@code i}; returns the previous value. */
    public int atomicFetchMin(int i, int value) {
        return atomicFetchMin(i, value, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_min_explicit} on element {@code i}; returns the previous value. */
    public int atomicFetchMin(int i, int value, CppMemoryOrder order) {
        if (model != null) {
            return atomicInModel(i, AtomicOp.MIN, value, 0, order);
        }
        long o = at(i);
        int seen = (int) ATOMIC.getOpaque(segment, o);
        while (seen > value && !casWeak(o, seen, value, order)) {
            seen = (int) ATOMIC.getOpaque(segment, o);
        }
        return seen;
    }

    private boolean casWeak(long o, int expected, int desired, CppMemoryOrder order) {
        return switch (order) {
            case RELAXED -> ATOMIC.weakCompareAndSetPlain(segment, o, expected, desired);
            case CONSUME, ACQUIRE -> ATOMIC.weakCompareAndSetAcquire(segment, o, expected, desired);
            case RELEASE -> ATOMIC.weakCompareAndSetRelease(segment, o, expected, desired);
            default -> ATOMIC.weakCompareAndSet(segment, o, expected, desired);
        };
    }
}
