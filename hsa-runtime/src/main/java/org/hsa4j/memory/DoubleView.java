package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A checked {@link SvmView} of consecutive doubles in SVM: the {@code double} accessors over the shared
 * implementation. Atomic element operations work on the bits, as {@link Svm}'s do: acquire/release
 * are volatile accesses and the add is a compare-and-swap loop.
 */
public final class DoubleView extends SvmView {
    private final FpAtomicPolicy fp;

    DoubleView(long address, MemorySegment segment, SvmAccess access, Allocation allocation, FpAtomicPolicy fp) {
        super(address, segment, access, allocation, Double.BYTES);
        this.fp = fp;
    }

    /** Plain read of element {@code i}. */
    public double get(long i) {
        try {
            return cursor != null ? Double.longBitsToDouble((long) modelLoad(i)) : segment.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Plain write of element {@code i}. */
    public void set(long i, double value) {
        try {
            if (cursor != null) {
                modelStore(i, Double.doubleToRawLongBits(value));
            } else {
                segment.setAtIndex(ValueLayout.JAVA_DOUBLE, i, value);
            }
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** HSA scacquire load of element {@code i} (volatile). */
    public double loadAcquire(long i) {
        return Double.longBitsToDouble((long) loadAcquireBits(i));
    }

    /** HSA screlease store of element {@code i} (volatile). */
    public void storeRelease(long i, double value) {
        storeReleaseBits(i, Double.doubleToRawLongBits(value));
    }

    /**
     * Atomic add on element {@code i} as a compare-and-swap loop on the bits; returns the previous
     * value. The runtime's {@link FpAtomics} setting applies as in {@link Svm}'s atomic adds.
     */
    public double fetchAdd(long i, double delta) {
        return Double.longBitsToDouble((long) fetchAddFloatingBits(i, delta, fp));
    }

    /** Atomic load of element {@code i} with an explicit {@link MemoryOrder} (RELAXED, ACQUIRE or SEQ_CST). */
    public double atomicLoad(long i, MemoryOrder order) {
        return Double.longBitsToDouble(loadBits(i, order));
    }

    /** Atomic store of element {@code i} with an explicit {@link MemoryOrder} (RELAXED, RELEASE or SEQ_CST). */
    public void atomicStore(long i, double value, MemoryOrder order) {
        storeBits(i, Double.doubleToRawLongBits(value), order);
    }
}
