package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A checked view of consecutive floats in SVM, for hot loops: checked once when made, then one
 * segment bounds check per element. Atomic element operations work on the bits, as {@link Svm}'s
 * do: acquire/release are volatile accesses and the add is a compare-and-swap loop.
 */
public final class FloatView {
    private static final VarHandle BITS = ValueLayout.JAVA_INT.arrayElementVarHandle();

    private final long address;
    private final MemorySegment segment;
    private final FpAtomicPolicy fp;

    FloatView(long address, MemorySegment segment, FpAtomicPolicy fp) {
        this.address = address;
        this.segment = segment;
        this.fp = fp;
    }

    /** Number of elements. */
    public long length() {
        return segment.byteSize() / Float.BYTES;
    }

    /** SVM address of element {@code i}. */
    public long address(long i) {
        return address + i * Float.BYTES;
    }

    /** The backing segment. */
    public MemorySegment segment() {
        return segment;
    }

    /** Plain read of element {@code i}. */
    public float get(long i) {
        return segment.getAtIndex(ValueLayout.JAVA_FLOAT, i);
    }

    /** Plain write of element {@code i}. */
    public void set(long i, float value) {
        segment.setAtIndex(ValueLayout.JAVA_FLOAT, i, value);
    }

    /** HSA scacquire load of element {@code i} (volatile). */
    public float loadAcquire(long i) {
        return Float.intBitsToFloat((int) BITS.getVolatile(segment, 0L, i));
    }

    /** HSA screlease store of element {@code i} (volatile). */
    public void storeRelease(long i, float value) {
        BITS.setVolatile(segment, 0L, i, Float.floatToRawIntBits(value));
    }

    /**
     * Atomic add on element {@code i} as a compare-and-swap loop on the bits; returns the previous
     * value. The runtime's {@link FpAtomics} setting applies as in {@link Svm}'s atomic adds.
     */
    public float fetchAdd(long i, float delta) {
        if (fp != null && fp.loses(address(i))) {
            return Float.intBitsToFloat((int) BITS.getVolatile(segment, 0L, i));
        }
        int seen = (int) BITS.getVolatile(segment, 0L, i);
        while (true) {
            int next = Float.floatToRawIntBits(Float.intBitsToFloat(seen) + delta);
            int witness = (int) BITS.compareAndExchange(segment, 0L, i, seen, next);
            if (witness == seen) {
                return Float.intBitsToFloat(seen);
            }
            seen = witness;
        }
    }
}
