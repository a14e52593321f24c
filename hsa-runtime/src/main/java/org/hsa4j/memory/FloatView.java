package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A checked {@link SvmView} of consecutive floats in SVM: the {@code float} accessors over the shared
 * implementation. Atomic element operations work on the bits, as {@link Svm}'s do: acquire/release
 * are volatile accesses and the add is a compare-and-swap loop.
 */
public final class FloatView extends SvmView {
    private final FpAtomicPolicy fp;

    FloatView(long address, MemorySegment segment, SvmAccess access, Allocation allocation, FpAtomicPolicy fp) {
        super(address, segment, access, allocation, Float.BYTES);
        this.fp = fp;
    }

    /** Plain read of element {@code i}. */
    public float get(long i) {
        try {
            return cursor != null ? Float.intBitsToFloat((int) modelLoad(i)) : segment.getAtIndex(ValueLayout.JAVA_FLOAT, i);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Plain write of element {@code i}. */
    public void set(long i, float value) {
        try {
            if (cursor != null) {
                modelStore(i, Float.floatToRawIntBits(value));
            } else {
                segment.setAtIndex(ValueLayout.JAVA_FLOAT, i, value);
            }
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** HSA scacquire load of element {@code i} (volatile). */
    public float loadAcquire(long i) {
        return Float.intBitsToFloat((int) loadAcquireBits(i));
    }

    /** HSA screlease store of element {@code i} (volatile). */
    public void storeRelease(long i, float value) {
        storeReleaseBits(i, Float.floatToRawIntBits(value));
    }

    /**
     * Atomic add on element {@code i} as a compare-and-swap loop on the bits; returns the previous
     * value. The runtime's {@link FpAtomics} setting applies as in {@link Svm}'s atomic adds.
     */
    public float fetchAdd(long i, float delta) {
        return Float.intBitsToFloat((int) fetchAddFloatingBits(i, delta, fp));
    }

    /** Atomic load of element {@code i} with an explicit {@link MemoryOrder} (RELAXED, ACQUIRE or SEQ_CST). */
    public float atomicLoad(long i, MemoryOrder order) {
        return Float.intBitsToFloat((int) loadBits(i, order));
    }

    /** Atomic store of element {@code i} with an explicit {@link MemoryOrder} (RELAXED, RELEASE or SEQ_CST). */
    public void atomicStore(long i, float value, MemoryOrder order) {
        storeBits(i, Float.floatToRawIntBits(value), order);
    }
}
