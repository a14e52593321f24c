package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A checked view of consecutive longs in SVM, for hot loops: checked once when made, then one
 * segment bounds check per element. Atomic element operations follow {@link MemoryOrder}'s mapping.
 */
public final class LongView {
    private static final VarHandle ELEMENT = ValueLayout.JAVA_LONG.arrayElementVarHandle();

    private final long address;
    private final MemorySegment segment;

    LongView(long address, MemorySegment segment) {
        this.address = address;
        this.segment = segment;
    }

    /** Number of elements. */
    public long length() {
        return segment.byteSize() / Long.BYTES;
    }

    /** SVM address of element {@code i}. */
    public long address(long i) {
        return address + i * Long.BYTES;
    }

    /** The backing segment. */
    public MemorySegment segment() {
        return segment;
    }

    /** Plain read of element {@code i}. */
    public long get(long i) {
        return segment.getAtIndex(ValueLayout.JAVA_LONG, i);
    }

    /** Plain write of element {@code i}. */
    public void set(long i, long value) {
        segment.setAtIndex(ValueLayout.JAVA_LONG, i, value);
    }

    /** HSA scacquire load of element {@code i} (volatile). */
    public long loadAcquire(long i) {
        return (long) ELEMENT.getVolatile(segment, 0L, i);
    }

    /** Relaxed load of element {@code i} (opaque). */
    public long loadRelaxed(long i) {
        return (long) ELEMENT.getOpaque(segment, 0L, i);
    }

    /** HSA screlease store of element {@code i} (volatile). */
    public void storeRelease(long i, long value) {
        ELEMENT.setVolatile(segment, 0L, i, value);
    }

    /** Relaxed store of element {@code i} (opaque). */
    public void storeRelaxed(long i, long value) {
        ELEMENT.setOpaque(segment, 0L, i, value);
    }

    /** Atomic fetch-and-add on element {@code i} (sequentially consistent); returns the previous value. */
    public long fetchAdd(long i, long delta) {
        return (long) ELEMENT.getAndAdd(segment, 0L, i, delta);
    }

    /** Atomic compare-and-swap on element {@code i}; returns the value found. */
    public long compareExchange(long i, long expected, long desired) {
        return (long) ELEMENT.compareAndExchange(segment, 0L, i, expected, desired);
    }

    /** Atomic exchange on element {@code i}; returns the previous value. */
    public long exchange(long i, long value) {
        return (long) ELEMENT.getAndSet(segment, 0L, i, value);
    }
}
