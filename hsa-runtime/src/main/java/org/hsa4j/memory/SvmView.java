package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Objects;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * A checked view of consecutive elements in SVM, for hot loops: checked once when made, then one
 * segment bounds check per element. Atomics go through the runtime's {@link SvmAccess}; plain
 * element accesses through its {@link SvmAccess#elements} cursor (fidelity mode: the caches, with an
 * index check each) or, when it has none, straight to the segment. {@link #segment()} stays raw.
 * Once the allocation is freed every element access faults with MEMORY_FAULT (and the raw
 * {@link #segment()} throws IllegalStateException): the view never reaches the block's next owner.
 * Atomic element operations follow {@link MemoryOrder}'s mapping: acquire and release are
 * volatile accesses, read-modify-writes volatile, floating-point adds a compare-and-swap loop.
 *
 * <h2>One implementation, four element types</h2>
 * {@link IntView}, {@link LongView}, {@link FloatView} and {@link DoubleView} are only the
 * accessors of their Java type, one expression apiece, over this class: the freed-allocation
 * fault, the plain accesses' cursor test and every atomic live here once, over the element's bits (a
 * {@code long}, sign-extended for 4-byte elements) with a branch on the element width. A base
 * class rather than a build-time generator because the typed part is that small (the C++AMP
 * layer's views and tile_static arrays are shared the same way). The width test reads a final
 * field and is one predictable branch per atomic; the VarHandles are static finals, so each access
 * still compiles to one instruction; plain {@code get}/{@code set} keep their own typed segment
 * access, so kernel loops over a view compile as before.
 */
public abstract sealed class SvmView permits IntView, LongView, FloatView, DoubleView {
    private static final VarHandle INT = ValueLayout.JAVA_INT.arrayElementVarHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.arrayElementVarHandle();

    final long address;
    final MemorySegment segment;
    /** The runtime's access strategy: every atomic goes through it. */
    final SvmAccess access;
    final Allocation allocation;
    /**
     * The strategy's plain element accesses (fidelity mode: a cursor holding the last L1 sector they
     * touched), or null when they go straight to the segment ({@link SvmAccess#elements}).
     */
    final SvmAccess.ElementAccess cursor;
    /** Number of elements. */
    final long length;
    /** Bytes per element: 4 or 8. */
    final int size;

    SvmView(long address, MemorySegment segment, SvmAccess access, Allocation allocation, int size) {
        this.address = address;
        this.segment = segment;
        this.access = access;
        this.allocation = allocation;
        this.cursor = access.elements(allocation);
        this.size = size;
        this.length = segment.byteSize() / size;
    }

    /**
     * The SVM address of element {@code i}, after a bounds check and a check that the allocation
     * is live (fidelity mode: a cached sector may serve the access without touching the closed arena).
     */
    private long checked(long i) {
        if (allocation.freed) {
            throw new IllegalStateException("the allocation was freed");
        }
        return address + Objects.checkIndex(i, length) * size;
    }

    /** Atomic {@code op} on element {@code i} at system scope, through the strategy (fidelity mode: at the allocation's coherence point). */
    private long atomic(long i, AtomicOp op, long x, long y, MemoryOrder order) {
        return access.atomic(allocation, checked(i), size, op, x, y, order, MemoryScope.SYSTEM);
    }

    /** The fault of an access to element {@code i} after the allocation was freed: its arena is closed, nothing was touched. */
    final MemoryFaultException freed(long i, IllegalStateException cause) {
        MemoryFaultException e = new MemoryFaultException(HsaStatus.MEMORY_FAULT, address(i),
                "access through a view of a freed allocation");
        e.initCause(cause);
        return e;
    }

    /** Number of elements. */
    public final long length() {
        return length;
    }

    /** SVM address of element {@code i}. */
    public final long address(long i) {
        return address + i * size;
    }

    /** The backing segment. */
    public final MemorySegment segment() {
        return segment;
    }

    /**
     * Fidelity mode: plain read of element {@code i}'s bits through the model. The cursor checks
     * that the allocation is live: a leased access needs no check, since freeing revokes the leases.
     */
    final long modelLoad(long i) {
        return cursor.load(address + Objects.checkIndex(i, length) * size, size);
    }

    /** Fidelity mode: plain write of element {@code i}'s bits through the model (liveness as {@link #modelLoad}). */
    final void modelStore(long i, long bits) {
        cursor.store(address + Objects.checkIndex(i, length) * size, size, bits);
    }

    /** HSA scacquire load of element {@code i}'s bits (volatile). */
    final long loadAcquireBits(long i) {
        try {
            return atomic(i, AtomicOp.LOAD, 0, 0, MemoryOrder.ACQUIRE);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Relaxed load of element {@code i}'s bits (opaque). */
    final long loadRelaxedBits(long i) {
        try {
            return atomic(i, AtomicOp.LOAD, 0, 0, MemoryOrder.RELAXED);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** HSA screlease store of {@code bits} to element {@code i} (volatile). */
    final void storeReleaseBits(long i, long bits) {
        try {
            atomic(i, AtomicOp.STORE, bits, 0, MemoryOrder.RELEASE);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Relaxed store of {@code bits} to element {@code i} (opaque). */
    final void storeRelaxedBits(long i, long bits) {
        try {
            atomic(i, AtomicOp.STORE, bits, 0, MemoryOrder.RELAXED);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /**
     * Atomic load of element {@code i}'s bits with an explicit {@link MemoryOrder}: RELAXED is
     * opaque, ACQUIRE and SEQ_CST are HSA scacquire (volatile).
     *
     * @throws HsaException INVALID_ARGUMENT for an order a load cannot have
     */
    final long loadBits(long i, MemoryOrder order) {
        return switch (order) {
            case RELAXED -> loadRelaxedBits(i);
            case ACQUIRE, SEQ_CST -> loadAcquireBits(i);
            default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT, "an atomic load cannot be " + order);
        };
    }

    /**
     * Atomic store of {@code bits} to element {@code i} with an explicit {@link MemoryOrder}:
     * RELAXED is opaque, RELEASE and SEQ_CST are HSA screlease (volatile).
     *
     * @throws HsaException INVALID_ARGUMENT for an order a store cannot have
     */
    final void storeBits(long i, long bits, MemoryOrder order) {
        switch (order) {
            case RELAXED -> storeRelaxedBits(i, bits);
            case RELEASE, SEQ_CST -> storeReleaseBits(i, bits);
            default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT, "an atomic store cannot be " + order);
        }
    }

    /** Atomic fetch-and-add on the integer element {@code i} (sequentially consistent); returns the previous bits. */
    final long fetchAddBits(long i, long delta) {
        try {
            return atomic(i, AtomicOp.ADD, delta, 0, MemoryOrder.SEQ_CST);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Atomic compare-and-swap on element {@code i}; returns the bits found. */
    final long compareExchangeBits(long i, long expected, long desired) {
        try {
            return atomic(i, AtomicOp.COMPARE_EXCHANGE, expected, desired, MemoryOrder.SEQ_CST);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /** Atomic exchange on element {@code i}; returns the previous bits. */
    final long exchangeBits(long i, long bits) {
        try {
            return atomic(i, AtomicOp.EXCHANGE, bits, 0, MemoryOrder.SEQ_CST);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }

    /**
     * Atomic floating-point add of {@code delta} to element {@code i} (a float for 4-byte elements,
     * a double for 8) as a compare-and-swap loop on the bits; returns the previous bits. The
     * runtime's {@link FpAtomics} setting ({@code fp}) applies as in {@link Svm}'s atomic adds.
     */
    final long fetchAddFloatingBits(long i, double delta, FpAtomicPolicy fp) {
        try {
            if (fp != null && fp.loses(address(i))) {
                return size == 4 ? (int) INT.getVolatile(segment, 0L, i) : (long) LONG.getVolatile(segment, 0L, i);
            }
            return atomic(i, AtomicOp.FLOAT_ADD, size == 4 ? Float.floatToRawIntBits((float) delta)
                    : Double.doubleToRawLongBits(delta), 0, MemoryOrder.SEQ_CST);
        } catch (IllegalStateException freed) {
            throw freed(i, freed);
        }
    }
}
