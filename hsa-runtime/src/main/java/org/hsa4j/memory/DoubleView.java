package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A checked view of consecutive doubles in SVM, for hot loops: checked once when made. */
public final class DoubleView {
    private final long address;
    private final MemorySegment segment;

    DoubleView(long address, MemorySegment segment) {
        this.address = address;
        this.segment = segment;
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
}
