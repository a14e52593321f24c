package org.hsa4j.amp;

import java.lang.foreign.ValueLayout;

/**
 * An {@link ArrayView} of longs: the element accessors of {@code long} over the shared
 * implementation in {@link ArrayView} (which says why it is shared). In fidelity mode its accesses
 * go through the runtime's coherence model. Atomics take C++11 orders ({@link CppMemoryOrder});
 * each has a short form without an order that is seq_cst. Natural alignment required.
 */
public final class LongArrayView extends ArrayView {
    LongArrayView(ViewMemory memory, Extent extent, AcceleratorView source) {
        this(memory, extent, 0, denseStrides(extent), source);
    }

    private LongArrayView(ViewMemory memory, Extent extent, long origin, long[] strides, AcceleratorView source) {
        super(memory, Long.BYTES, extent, origin, strides[0], strides[1], source);
    }

    /** The sub-view of shape {@code ext} starting at {@code from}, sharing this view's memory. */
    public LongArrayView section(Index from, Extent ext) {
        return new LongArrayView(memory, ext, sectionOrigin(from, ext), new long[] {s0, s1}, source);
    }

    /** Element {@code i} of a rank-1 view. */
    public long get(int i) {
        return load(offset(i));
    }

    /** Element {@code (i, j)} of a rank-2 view. */
    public long get(int i, int j) {
        return load(offset(i, j));
    }

    /** Element {@code (i, j, k)} of a rank-3 view. */
    public long get(int i, int j, int k) {
        return load(offset(i, j, k));
    }

    /** Element at {@code idx}. */
    public long get(Index idx) {
        return load(offset(idx));
    }

    /** Sets element {@code i} of a rank-1 view. */
    public void set(int i, long value) {
        store(offset(i), value);
    }

    /** Sets element {@code (i, j)} of a rank-2 view. */
    public void set(int i, int j, long value) {
        store(offset(i, j), value);
    }

    /** Sets element {@code (i, j, k)} of a rank-3 view. */
    public void set(int i, int j, int k, long value) {
        store(offset(i, j, k), value);
    }

    /** Sets the element at {@code idx}. */
    public void set(Index idx, long value) {
        store(offset(idx), value);
    }

    /** Plain read of the element at checked element offset {@code element}. */
    private long load(long element) {
        return cursor != null ? (long) modelLoad(element) : segment.getAtIndex(ValueLayout.JAVA_LONG, element);
    }

    /** Plain write of the element at checked element offset {@code element}. */
    private void store(long element, long value) {
        if (cursor != null) {
            modelStore(element, value);
        } else {
            segment.setAtIndex(ValueLayout.JAVA_LONG, element, value);
        }
    }

    // ---- atomics of element i (rank 1): one line each over ArrayView's shared implementation -------

    /** {@code atomic_load} (seq_cst). */
    public long atomicLoad(int i) {
        return atomicLoad(i, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_load_explicit}. */
    public long atomicLoad(int i, CppMemoryOrder order) {
        return (long) atomicLoadBits(i, order);
    }

    /** {@code atomic_store} (seq_cst). */
    public void atomicStore(int i, long value) {
        atomicStore(i, value, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_store_explicit}. */
    public void atomicStore(int i, long value, CppMemoryOrder order) {
        atomicStoreBits(i, value, order);
    }

    /** {@code atomic_fetch_add} (seq_cst); returns the previous value. */
    public long atomicFetchAdd(int i, long delta) {
        return atomicFetchAdd(i, delta, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_add_explicit}; returns the previous value. */
    public long atomicFetchAdd(int i, long delta, CppMemoryOrder order) {
        return (long) atomicFetchAddBits(i, delta, order);
    }

    /** {@code atomic_fetch_sub} (seq_cst); returns the previous value. */
    public long atomicFetchSub(int i, long delta) {
        return atomicFetchAdd(i, -delta, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_sub_explicit}; returns the previous value. */
    public long atomicFetchSub(int i, long delta, CppMemoryOrder order) {
        return atomicFetchAdd(i, -delta, order);
    }

    /** {@code atomic_fetch_and} (seq_cst); returns the previous value. */
    public long atomicFetchAnd(int i, long mask) {
        return atomicFetchAnd(i, mask, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_and_explicit}; returns the previous value. */
    public long atomicFetchAnd(int i, long mask, CppMemoryOrder order) {
        return (long) atomicFetchAndBits(i, mask, order);
    }

    /** {@code atomic_fetch_or} (seq_cst); returns the previous value. */
    public long atomicFetchOr(int i, long mask) {
        return atomicFetchOr(i, mask, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_or_explicit}; returns the previous value. */
    public long atomicFetchOr(int i, long mask, CppMemoryOrder order) {
        return (long) atomicFetchOrBits(i, mask, order);
    }

    /** {@code atomic_fetch_xor} (seq_cst); returns the previous value. */
    public long atomicFetchXor(int i, long mask) {
        return atomicFetchXor(i, mask, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_xor_explicit}; returns the previous value. */
    public long atomicFetchXor(int i, long mask, CppMemoryOrder order) {
        return (long) atomicFetchXorBits(i, mask, order);
    }

    /** {@code atomic_exchange} (seq_cst); returns the previous value. */
    public long atomicExchange(int i, long value) {
        return atomicExchange(i, value, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_exchange_explicit}; returns the previous value. */
    public long atomicExchange(int i, long value, CppMemoryOrder order) {
        return (long) atomicExchangeBits(i, value, order);
    }

    /**
     * {@code atomic_compare_exchange_strong} (seq_cst): stores {@code desired} if the element is
     * {@code expected}; returns the value found ({@code expected} on success).
     */
    public long atomicCompareExchange(int i, long expected, long desired) {
        return atomicCompareExchange(i, expected, desired, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_compare_exchange_strong_explicit}; returns the value found. */
    public long atomicCompareExchange(int i, long expected, long desired, CppMemoryOrder order) {
        return (long) atomicCompareExchangeBits(i, expected, desired, order);
    }

    /** {@code atomic_fetch_max} (seq_cst); returns the previous value. */
    public long atomicFetchMax(int i, long value) {
        return atomicFetchMax(i, value, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_max_explicit}; returns the previous value. */
    public long atomicFetchMax(int i, long value, CppMemoryOrder order) {
        return (long) atomicFetchExtremeBits(i, value, true, order);
    }

    /** {@code atomic_fetch_min} (seq_cst); returns the previous value. */
    public long atomicFetchMin(int i, long value) {
        return atomicFetchMin(i, value, CppMemoryOrder.SEQ_CST);
    }

    /** {@code atomic_fetch_min_explicit}; returns the previous value. */
    public long atomicFetchMin(int i, long value, CppMemoryOrder order) {
        return (long) atomicFetchExtremeBits(i, value, false, order);
    }
}
