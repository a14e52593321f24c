package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A checked {@link SvmView} of consecutive longs in SVM: the {@code long} accessors over the shared implementation. */
public final class LongView extends SvmView {
    LongView(long address, MemorySegment segment, SvmAccess access, Allocation allocation) {
        super(address, segment, access, allocation, Long.BYTES);
    }

    /** Plain read of element {@code i}. */
    public long get(long i) {
        try {
            return cursor != null ? (long) modelLoad(i) : segment.getAtIndex(ValueLayout.JAVA_LONG, i);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Plain write of element {@code i}. */
    public void set(long i, long value) {
        try {
            if (cursor != null) {
                modelStore(i, value);
            } else {
                segment.setAtIndex(ValueLayout.JAVA_LONG, i, value);
            }
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** HSA scacquire load of element {@code i} (volatile). */
    public long loadAcquire(long i) {
        return (long) loadAcquireBits(i);
    }

    /** Relaxed load of element {@code i} (opaque). */
    public long loadRelaxed(long i) {
        return (long) loadRelaxedBits(i);
    }

    /** HSA screlease store of element {@code i} (volatile). */
    public void storeRelease(long i, long value) {
        storeReleaseBits(i, value);
    }

    /** Relaxed store of element {@code i} (opaque). */
    public void storeRelaxed(long i, long value) {
        storeRelaxedBits(i, value);
    }

    /** Atomic fetch-and-add on element {@code i} (sequentially consistent); returns the previous value. */
    public long fetchAdd(long i, long delta) {
        return (long) fetchAddBits(i, delta);
    }

    /** Atomic compare-and-swap on element {@code i}; returns the value found. */
    public long compareExchange(long i, long expected, long desired) {
        return (long) compareExchangeBits(i, expected, desired);
    }

    /** Atomic exchange on element {@code i}; returns the previous value. */
    public long exchange(long i, long value) {
        return (long) exchangeBits(i, value);
    }

    /** Atomic load of element {@code i} with an explicit {@link MemoryOrder} (RELAXED, ACQUIRE or SEQ_CST). */
    public long atomicLoad(long i, MemoryOrder order) {
        return (long) loadBits(i, order);
    }

    /** Atomic store of element {@code i} with an explicit {@link MemoryOrder} (RELAXED, RELEASE or SEQ_CST). */
    public void atomicStore(long i, long value, MemoryOrder order) {
        storeBits(i, value, order);
    }
}
