package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Objects;

import org.hsa4j.runtime.HsaStatus;

/**
 * A checked view of consecutive doubles in SVM, for hot loops: checked once when made, then one
 * segment bounds check per element. In fidelity mode the element accesses go through
 * {@link CoherenceModel} (with an index check each); {@link #segment()} stays raw and bypasses it.
 * Once the allocation is freed every element access faults with MEMORY_FAULT (and the raw
 * {@link #segment()} throws IllegalStateException): the view never reaches the block's next owner.
 * Atomic element operations work on the bits, as {@link Svm}'s
 * do: acquire/release are volatile accesses and the add is a compare-and-swap loop.
 */
public final class DoubleView {
    private static final VarHandle BITS = ValueLayout.JAVA_LONG.arrayElementVarHandle();

    private final long address;
    private final MemorySegment segment;
    /** Fidelity mode's model, or null: then every access goes straight to the segment. */
    private final CoherenceModel model;
    private final Allocation allocation;
    /** Fidelity mode: the plain element accesses, with the last L1 sector they touched; null when the mode is off. */
    private final SectorCursor cursor;
    /** Number of elements. */
    private final long length;
    private final FpAtomicPolicy fp;

    DoubleView(long address, MemorySegment segment, CoherenceModel model, Allocation allocation, FpAtomicPolicy fp) {
        this.address = address;
        this.segment = segment;
        this.model = model;
        this.allocation = allocation;
        this.cursor = model == null ? null : model.cursor(allocation);
        this.length = segment.byteSize() / Double.BYTES;
        this.fp = fp;
    }

    /**
     * The SVM address of element {@code i}, after a bounds check and a check that the allocation
     * is live (fidelity mode: a cached sector may serve the access without touching the closed arena).
     */
    private long checked(long i) {
        if (allocation.freed) {
            throw new IllegalStateException("the allocation was freed");
        }
        return address + Objects.checkIndex(i, length) * Double.BYTES;
    }

    /** Fidelity mode: atomic {@code op} on element {@code i} at system scope, at the allocation's coherence point. */
    private long atomic(long i, AtomicOp op, long x, long y, MemoryOrder order) {
        return model.atomic(allocation, checked(i), 8, op, x, y, order, MemoryScope.SYSTEM);
    }

    /** The fault of an access to element {@code i} after the allocation was freed: its arena is closed, nothing was touched. */
    private MemoryFaultException freed(long i, IllegalStateException cause) {
        MemoryFaultException e = new MemoryFaultException(HsaStatus.MEMORY_FAULT, address(i),
                "access through a view of a freed allocation");
        e.initCause(cause);
        return e;
    }

    /** Number of elements. */
    public long length() {
        return length;
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
        try {
            if (cursor != null) {
                return Double.longBitsToDouble(cursor.load(checked(i), 8));
            }
            return segment.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Plain write of element {@code i}. */
    public void set(long i, double value) {
        try {
            if (cursor != null) {
                cursor.store(checked(i), 8, Double.doubleToRawLongBits(value));
                return;
            }
            segment.setAtIndex(ValueLayout.JAVA_DOUBLE, i, value);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** HSA scacquire load of element {@code i} (volatile). */
    public double loadAcquire(long i) {
        try {
            if (model != null) {
                return Double.longBitsToDouble(atomic(i, AtomicOp.LOAD, 0, 0, MemoryOrder.ACQUIRE));
            }
            return Double.longBitsToDouble((long) BITS.getVolatile(segment, 0L, i));
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** HSA screlease store of element {@code i} (volatile). */
    public void storeRelease(long i, double value) {
        try {
            if (model != null) {
                atomic(i, AtomicOp.STORE, Double.doubleToRawLongBits(value), 0, MemoryOrder.RELEASE);
                return;
            }
            BITS.setVolatile(segment, 0L, i, Double.doubleToRawLongBits(value));
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /**
     * Atomic add on element {@code i} as a compare-and-swap loop on the bits; returns the previous
     * value. The runtime's {@link FpAtomics} setting applies as in {@link Svm}'s atomic adds.
     */
    public double fetchAdd(long i, double delta) {
        try {
            if (fp != null && fp.loses(address(i))) {
                return Double.longBitsToDouble((long) BITS.getVolatile(segment, 0L, i));
            }
            if (model != null) {
                return Double.longBitsToDouble(atomic(i, AtomicOp.FLOAT_ADD, Double.doubleToRawLongBits(delta), 0, MemoryOrder.SEQ_CST));
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
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }
}
