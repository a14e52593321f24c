package org.hsa4j.amp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/** An {@link ArrayView} of longs. */
public final class LongArrayView extends ArrayView {
    LongArrayView(MemorySegment segment, long address, Extent extent, AcceleratorView source) {
        this(segment, address, extent, 0, denseStrides(extent), source);
    }

    private LongArrayView(MemorySegment segment, long address, Extent extent, long origin, long[] strides,
                   AcceleratorView source) {
        super(segment, address, extent, origin, strides[0], strides[1], source);
    }

    @Override
    public int elementSize() {
        return Long.BYTES;
    }

    /** The sub-view of shape {@code ext} starting at {@code from}, sharing this view's memory. */
    public LongArrayView section(Index from, Extent ext) {
        return new LongArrayView(segment, address, ext, sectionOrigin(from, ext), new long[] {s0, s1}, source);
    }

    /** Element {@code i} of a rank-1 view. */
    public long get(int i) {
        return segment.getAtIndex(ValueLayout.JAVA_LONG, offset(i));
    }

    /** Element {@code (i, j)} of a rank-2 view. */
    public long get(int i, int j) {
        return segment.getAtIndex(ValueLayout.JAVA_LONG, offset(i, j));
    }

    /** Element {@code (i, j, k)} of a rank-3 view. */
    public long get(int i, int j, int k) {
        return segment.getAtIndex(ValueLayout.JAVA_LONG, offset(i, j, k));
    }

    /** Element at {@code idx}. */
    public long get(Index idx) {
        return segment.getAtIndex(ValueLayout.JAVA_LONG, offset(idx));
    }

    /** Sets element {@code i} of a rank-1 view. */
    public void set(int i, long value) {
        segment.setAtIndex(ValueLayout.JAVA_LONG, offset(i), value);
    }

    /** Sets element {@code (i, j)} of a rank-2 view. */
    public void set(int i, int j, long value) {
        segment.setAtIndex(ValueLayout.JAVA_LONG, offset(i, j), value);
    }

    /** Sets element {@code (i, j, k)} of a rank-3 view. */
    public void set(int i, int j, int k, long value) {
        segment.setAtIndex(ValueLayout.JAVA_LONG, offset(i, j, k), value);
    }

    /** Sets the element at {@code idx}. */
    public void set(Index idx, long value) {
        segment.setAtIndex(ValueLayout.JAVA_LONG, offset(idx), value);
    }

    // ---- atomics (C++11 orders, see CppMemoryOrder); natural alignment required ----------------

    private static final VarHandle ATOMIC = ValueLayout.JAVA_LONG.varHandle();

    private long at(int i) {
        return offset(i) * Long.BYTES;
    }

    /** {@code atomic_load_explicit} of element {@code i} (rank 1). */
    public long atomicLoad(int i, CppMemoryOrder order) {
        long o = at(i);
        return switch (order) {
            case RELAXED -> (long) ATOMIC.getOpaque(segment, o);
            case CONSUME, ACQUIRE -> (long) ATOMIC.getAcquire(segment, o);
            case SEQ_CST -> (long) ATOMIC.getVolatile(segment, o);
            default -> throw new IllegalArgumentException("an atomic load cannot be " + order);
        };
    }

    /** {@code atomic_store_explicit} of element {@code i} (rank 1). */
    public void atomicStore(int i, long value, CppMemoryOrder order) {
        long o = at(i);
        switch (order) {
            case RELAXED -> ATOMIC.setOpaque(segment, o, value);
            case RELEASE -> ATOMIC.setRelease(segment, o, value);
            case SEQ_CST -> ATOMIC.setVolatile(segment, o, value);
            default -> throw new IllegalArgumentException("an atomic store cannot be " + order);
        }
    }

    /** {@code atomic_fetch_add} (seq_cst) on element {@code i}; returns the previous value. */
    public long atomicFetchAdd(int i, long delta) {
        return atomicFetchAdd(i, delta, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_add_explicit} on element {@code i}; returns the previous value. */
    public long atomicFetchAdd(int i, long delta, CppMemoryOrder order) {
        long o = at(i);
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (long) ATOMIC.getAndAddAcquire(segment, o, delta);
            case RELEASE -> (long) ATOMIC.getAndAddRelease(segment, o, delta);
            default -> (long) ATOMIC.getAndAdd(segment, o, delta);
        };
    }

    /** {@code atomic_fetch_sub} (seq_cst) on element {@code i}; returns the previous value. */
    public long atomicFetchSub(int i, long delta) {
        return atomicFetchAdd(i, -delta, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_sub_explicit} on element {@code i}; returns the previous value. */
    public long atomicFetchSub(int i, long delta, CppMemoryOrder order) {
        return atomicFetchAdd(i, -delta, order);
    }

    /** {@code atomic_fetch_and} (seq_cst) on element {@code i}; returns the previous value. */
    public long atomicFetchAnd(int i, long mask) {
        return atomicFetchAnd(i, mask, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_and_explicit} on element {@code i}; returns the previous value. */
    public long atomicFetchAnd(int i, long mask, CppMemoryOrder order) {
        long o = at(i);
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (long) ATOMIC.getAndBitwiseAndAcquire(segment, o, mask);
            case RELEASE -> (long) ATOMIC.getAndBitwiseAndRelease(segment, o, mask);
            default -> (long) ATOMIC.getAndBitwiseAnd(segment, o, mask);
        };
    }

    /** {@code atomic_fetch_or} (seq_cst) on element {@code i}; returns the previous value. */
    public long atomicFetchOr(int i, long mask) {
        return atomicFetchOr(i, mask, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_or_explicit} on element {@code i}; returns the previous value. */
    public long atomicFetchOr(int i, long mask, CppMemoryOrder order) {
        long o = at(i);
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (long) ATOMIC.getAndBitwiseOrAcquire(segment, o, mask);
            case RELEASE -> (long) ATOMIC.getAndBitwiseOrRelease(segment, o, mask);
            default -> (long) ATOMIC.getAndBitwiseOr(segment, o, mask);
        };
    }

    /** {@code atomic_fetch_xor} (seq_cst) on element {@code i}; returns the previous value. */
    public long atomicFetchXor(int i, long mask) {
        return atomicFetchXor(i, mask, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_xor_explicit} on element {@code i}; returns the previous value. */
    public long atomicFetchXor(int i, long mask, CppMemoryOrder order) {
        long o = at(i);
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (long) ATOMIC.getAndBitwiseXorAcquire(segment, o, mask);
            case RELEASE -> (long) ATOMIC.getAndBitwiseXorRelease(segment, o, mask);
            default -> (long) ATOMIC.getAndBitwiseXor(segment, o, mask);
        };
    }

    /** {@code atomic_exchange} (seq_cst) on element {@code i}; returns the previous value. */
    public long atomicExchange(int i, long value) {
        return atomicExchange(i, value, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_exchange_explicit} on element {@code i}; returns the previous value. */
    public long atomicExchange(int i, long value, CppMemoryOrder order) {
        long o = at(i);
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (long) ATOMIC.getAndSetAcquire(segment, o, value);
            case RELEASE -> (long) ATOMIC.getAndSetRelease(segment, o, value);
            default -> (long) ATOMIC.getAndSet(segment, o, value);
        };
    }

    /**
     * {@code atomic_compare_exchange_strong} (seq_cst) on element {@code i}: stores {@code desired} if
     * the element is {@code expected}; returns the value found ({@code expected} on success).
     */
    public long atomicCompareExchange(int i, long expected, long desired) {
        return atomicCompareExchange(i, expected, desired, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_compare_exchange_strong_explicit}; returns the value found. */
    public long atomicCompareExchange(int i, long expected, long desired, CppMemoryOrder order) {
        long o = at(i);
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (long) ATOMIC.compareAndExchangeAcquire(segment, o, expected, desired);
            case RELEASE -> (long) ATOMIC.compareAndExchangeRelease(segment, o, expected, desired);
            default -> (long) ATOMIC.compareAndExchange(segment, o, expected, desired);
        };
    }

    /** {@code atomic_fetch_max} (seq_cst) on element {@code i}; returns the previous value. */
    public long atomicFetchMax(int i, long value) {
        return atomicFetchMax(i, value, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_max_explicit} on element {@code i}; returns the previous value. */
    public long atomicFetchMax(int i, long value, CppMemoryOrder order) {
        long o = at(i);
        long seen = (long) ATOMIC.getOpaque(segment, o);
        while (seen < value && !casWeak(o, seen, value, order)) {
            seen = (long) ATOMIC.getOpaque(segment, o);
        }
        return seen;
    }

    /** {@code atomic_fetch_min} (seq_cst) on element {@code i}; returns the previous value. */
    public long atomicFetchMin(int i, long value) {
        return atomicFetchMin(i, value, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_min_explicit} on element {@code i}; returns the previous value. */
    public long atomicFetchMin(int i, long value, CppMemoryOrder order) {
        long o = at(i);
        long seen = (long) ATOMIC.getOpaque(segment, o);
        while (seen > value && !casWeak(o, seen, value, order)) {
            seen = (long) ATOMIC.getOpaque(segment, o);
        }
        return seen;
    }

    private boolean casWeak(long o, long expected, long desired, CppMemoryOrder order) {
        return switch (order) {
            case RELAXED -> ATOMIC.weakCompareAndSetPlain(segment, o, expected, desired);
            case CONSUME, ACQUIRE -> ATOMIC.weakCompareAndSetAcquire(segment, o, expected, desired);
            case RELEASE -> ATOMIC.weakCompareAndSetRelease(segment, o, expected, desired);
            default -> ATOMIC.weakCompareAndSet(segment, o, expected, desired);
        };
    }
}
