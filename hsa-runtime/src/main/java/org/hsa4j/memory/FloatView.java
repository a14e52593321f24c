package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A checked view of consecutive floats in SVM, for hot loops: checked once when made. */
public final class FloatView {
    private final long address;
    private final MemorySegment segment;

    FloatView(long address, MemorySegment segment) {
        this.address = address;
        this.segment = segment;
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
}
