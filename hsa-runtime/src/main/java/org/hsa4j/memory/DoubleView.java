package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A checked view of consecutive doubles in SVM, for hot loops: checked once when made, then one
 * segment bounds check per element. Atomic element operations work on the bits, as {@link Svm}'s
 * do: acquire/release are volatile accesses and the add is a compare-and-swap loop.
 */
public final class DoubleView {
    private static final VarHandle BITS = ValueLayout.JAVA_LONG.arrayElementVarHandle();

    private final long address;
    private final MemorySegment segment;
    private final FpAtomicPolicy fp;

    DoubleView(long address, MemorySegment segment, FpAtomicPolicy fp) {
        this.address = address;
        this.segment = segment;
        this.fp = fp;
    }

    /** Number of elements. */
    public long length() {
        return segment.byteSize() / Double.BYTES;
    }

    /** SVM address of element {@code i}. */
    public long address(long i) {
        return address + i * Double.BYTES;
    }

    /** The backing segment. */
    public MemorySegment segment() {
        return segment;
    }

    /** Plain read of element {@code i}. */
    public double get(long i) {
        return segment.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
    }

    /** Plain write of element {@code i}. */
    public void set(long i, double value) {
        segment.setAtIndex(ValueLayout.JAVA_DOUBLE, i, value);
    }

    /** HSA scacquire load of element {@code i} (volatile). */
    public double loadAcquire(long i) {
        return Double.longBitsToDouble((long) BITS.getVolatile(segment, 0L, i));
    }

    /** HSA screlease store of element {@code i} (volatile). */
    public void storeRelease(long i, double value) {
        BITS.setVolatile(segment, 0L, i, Double.doubleToRawLongBits(value));
    }

    /**
     * Atomic add on element {@code i} as a compare-and-swap loop on the bits; returns the previous
     * value. The runtime's {@link FpAtomics} setting applies as in {@link Svm}'s atomic adds.
     */
    public double fetchAdd(long i, double delta) {
        if (fp != null && fp.loses(address(i))) {
            return Double.longBitsToDouble((long) BITS.getVolatile(segment, 0L, i));
        }
        long seen = (long) BITS.getVolatile(segment, 0L, i);
        while (true) {
            long next = Double.doubleToRawLongBits(Double.longBitsToDouble(seen) + delta);
            long witness = (long) BITS.compareAndExchange(segment, 0L, i, seen, next);
            if (witness == seen) {
                return Double.longBitsToDouble(seen);
            }
            seen = witness;
        }
    }
}
