package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Objects;

import org.hsa4j.runtime.HsaStatus;

/**
 * A checked view of consecutive ints in SVM, for hot loops: checked once when made, then one
 * segment bounds check per element. In fidelity mode the element accesses go through
 * {@link CoherenceModel} (with an index check each); {@link #segment()} stays raw and bypasses it.
 * Once the allocation is freed every element access faults with MEMORY_FAULT (and the raw
 * {@link #segment()} throws IllegalStateException): the view never reaches the block's next owner.
 * Atomic element operations follow {@link MemoryOrder}'s mapping.
 */
public final class IntView {
    private static final VarHandle ELEMENT = ValueLayout.JAVA_INT.arrayElementVarHandle();

    private final long address;
    private final MemorySegment segment;
    /** Fidelity mode's model, or null: then every access goes straight to the segment. */
    private final CoherenceModel model;
    private final Allocation allocation;
    /** Fidelity mode: the plain element accesses, with the last L1 sector they touched; null when the mode is off. */
    private final SectorCursor cursor;
    /** Number of elements. */
    private final long length;

    IntView(long address, MemorySegment segment, CoherenceModel model, Allocation allocation) {
        this.address = address;
        this.segment = segment;
        this.model = model;
        this.allocation = allocation;
        this.cursor = model == null ? null : model.cursor(allocation);
        this.length = segment.byteSize() / Integer.BYTES;
    }

    /**
     * The SVM address of element {@code i}, after a bounds check and a check that the allocation
     * is live (fidelity mode: a cached sector may serve the access without touching the closed arena).
     */
    private long checked(long i) {
        if (allocation.freed) {
            throw new IllegalStateException("the allocation was freed");
        }
        return address + Objects.checkIndex(i, length) * Integer.BYTES;
    }

    /** Fidelity mode: atomic {@code op} on element {@code i} at system scope, at the allocation's coherence point. */
    private long atomic(long i, AtomicOp op, long x, long y, MemoryOrder order) {
        return model.atomic(allocation, checked(i), 4, op, x, y, order, MemoryScope.SYSTEM);
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
        return address + i * Integer.BYTES;
    }

    /** The backing segment. */
    public MemorySegment segment() {
        return segment;
    }

    /** Plain read of element {@code i}. */
    public int get(long i) {
        try {
            if (cursor != null) {
                return (int) cursor.load(checked(i), 4);
            }
            return segment.getAtIndex(ValueLayout.JAVA_INT, i);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Plain write of element {@code i}. */
    public void set(long i, int value) {
        try {
            if (cursor != null) {
                cursor.store(checked(i), 4, value);
                return;
            }
            segment.setAtIndex(ValueLayout.JAVA_INT, i, value);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** HSA scacquire load of element {@code i} (volatile). */
    public int loadAcquire(long i) {
        try {
            if (model != null) {
                return (int) atomic(i, AtomicOp.LOAD, 0, 0, MemoryOrder.ACQUIRE);
            }
            return (int) ELEMENT.getVolatile(segment, 0L, i);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Relaxed load of element {@code i} (opaque). */
    public int loadRelaxed(long i) {
        try {
            if (model != null) {
                return (int) atomic(i, AtomicOp.LOAD, 0, 0, MemoryOrder.RELAXED);
            }
            return (int) ELEMENT.getOpaque(segment, 0L, i);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** HSA screlease store of element {@code i} (volatile). */
    public void storeRelease(long i, int value) {
        try {
            if (model != null) {
                atomic(i, AtomicOp.STORE, value, 0, MemoryOrder.RELEASE);
                return;
            }
            ELEMENT.setVolatile(segment, 0L, i, value);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Relaxed store of element {@code i} (opaque). */
    public void storeRelaxed(long i, int value) {
        try {
            if (model != null) {
                atomic(i, AtomicOp.STORE, value, 0, MemoryOrder.RELAXED);
                return;
            }
            ELEMENT.setOpaque(segment, 0L, i, value);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Atomic fetch-and-add on element {@code i} (sequentially consistent); returns the previous value. */
    public int fetchAdd(long i, int delta) {
        try {
            if (model != null) {
                return (int) atomic(i, AtomicOp.ADD, delta, 0, MemoryOrder.SEQ_CST);
            }
            return (int) ELEMENT.getAndAdd(segment, 0L, i, delta);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Atomic compare-and-swap on element {@code i}; returns the value found. */
    public int compareExchange(long i, int expected, int desired) {
        try {
            if (model != null) {
                return (int) atomic(i, AtomicOp.COMPARE_EXCHANGE, expected, desired, MemoryOrder.SEQ_CST);
            }
            return (int) ELEMENT.compareAndExchange(segment, 0L, i, expected, desired);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Atomic exchange on element {@code i}; returns the previous value. */
    public int exchange(long i, int value) {
        try {
            if (model != null) {
                return (int) atomic(i, AtomicOp.EXCHANGE, value, 0, MemoryOrder.SEQ_CST);
            }
            return (int) ELEMENT.getAndSet(segment, 0L, i, value);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }
}
