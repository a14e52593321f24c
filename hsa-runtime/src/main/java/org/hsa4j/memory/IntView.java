package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A checked {@link SvmView} of consecutive ints in SVM: the {@code int} accessors over the shared implementation. */
public final class IntView extends SvmView {
    IntView(long address, MemorySegment segment, SvmAccess access, Allocation allocation) {
        super(address, segment, access, allocation, Integer.BYTES);
    }

    /** Plain read of element {@code i}. */
    public int get(long i) {
        try {
            return cursor != null ? (int) modelLoad(i) : segment.getAtIndex(ValueLayout.JAVA_INT, i);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Plain write of element {@code i}. */
    public void set(long i, int value) {
        try {
            if (cursor != null) {
                modelStore(i, value);
            } else {
                segment.setAtIndex(ValueLayout.JAVA_INT, i, value);
            }
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** HSA scacquire load of element {@code i} (volatile). */
    public int loadAcquire(long i) {
        return (int) loadAcquireBits(i);
    }

    /** Relaxed load of element {@code i} (opaque). */
    public int loadRelaxed(long i) {
        return (int) loadRelaxedBits(i);
    }

    /** HSA screlease store of element {@code i} (volatile). */
    public void storeRelease(long i, int value) {
        storeReleaseBits(i, value);
    }

    /** Relaxed store of element {@code i} (opaque). */
    public void storeRelaxed(long i, int value) {
        storeRelaxedBits(i, value);
    }

    /** Atomic fetch-and-add on element {@code i} (sequentially consistent); returns the previous value. */
    public int fetchAdd(long i, int delta) {
        return (int) fetchAddBits(i, delta);
    }

    /** Atomic compare-and-swap on element {@code i}; returns the value found. */
    public int compareExchange(long i, int expected, int desired) {
        return (int) compareExchangeBits(i, expected, desired);
    }

    /** Atomic exchange on element {@code i}; returns the previous value. */
    public int exchange(long i, int value) {
        return (int) exchangeBits(i, value);
    }

    /** Atomic load of element {@code i} with an explicit {@link MemoryOrder} (RELAXED, ACQUIRE or SEQ_CST). */
    public int atomicLoad(long i, MemoryOrder order) {
        return (int) loadBits(i, order);
    }

    /** Atomic store of element {@code i} with an explicit {@link MemoryOrder} (RELAXED, RELEASE or SEQ_CST). */
    public void atomicStore(long i, int value, MemoryOrder order) {
        storeBits(i, value, order);
    }
}
