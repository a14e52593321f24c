package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A checked view of consecutive ints in SVM, for hot loops: checked once when made, then one
 * segment bounds check per element. Atomic element operations follow {@link MemoryOrder}'s mapping.
 */
public final class IntView {
    private static final VarHandle ELEMENT = ValueLayout.JAVA_INT.arrayElementVarHandle();

    private final long address;
    private final MemorySegment segment;

    IntView(long address, MemorySegment segment) {
        this.address = address;
        this.segment = segment;
    }

    /** Number of elements. */
    public long length() {
        return segment.byteSize() / Integer.BYTES;
    }

    /** SVM address of element {@code i}. */
    public long address(long i) {
        return address + i * Integer.BYTES;
    }

    /** The backing segment. */
    public MemorySegment segment() {
        return segment;
    }

    /** Plain read of element {@code i}. */
    public int get(long i) {
        return segment.getAtIndex(ValueLayout.JAVA_INT, i);
    }

    /** Plain write of element {@code i}. */
    public void set(long i, int value) {
        segment.setAtIndex(ValueLayout.JAVA_INT, i, value);
    }

    /** HSA scacquire load of element {@code i} (volatile). */
    public int loadAcquire(long i) {
        return (int) ELEMENT.getVolatile(segment, 0L, i);
    }

    /** Relaxed load of element {@code i} (opaque). */
    public int loadRelaxed(long i) {
        return (int) ELEMENT.getOpaque(segment, 0L, i);
    }

    /** HSA screlease store of element {@code i} (volatile). */
    public void storeRelease(long i, int value) {
        ELEMENT.setVolatile(segment, 0L, i, value);
    }

    /** Relaxed store of element {@code i} (opaque). */
    public void storeRelaxed(long i, int value) {
        ELEMENT.setOpaque(segment, 0L, i, value);
    }

    /** Atomic fetch-and-add on element {@code i} (sequentially consistent); returns the previous value. */
    public int fetchAdd(long i, int delta) {
        return (int) ELEMENT.getAndAdd(segment, 0L, i, delta);
    }

    /** Atomic compare-and-swap on element {@code i}; returns the value found. */
    public int compareExchange(long i, int expected, int desired) {
        return (int) ELEMENT.compareAndExchange(segment, 0L, i, expected, desired);
    }

    /** Atomic exchange on element {@code i}; returns the previous value. */
    public int exchange(long i, int value) {
        return (int) ELEMENT.getAndSet(segment, 0L, i, value);
    }
}
