package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * One agent's view of the shared virtual memory: typed and atomic access by SVM address.
 *
 * <p>The host holds the CPU agent's view; a kernel gets its agent's view from its work-item. Every
 * access translates the address through the {@link AddressSpace} (two array loads), checks that the
 * bytes lie inside a live allocation and that this agent may touch it, and then reads or writes the
 * allocation's off-heap segment. A bad address raises {@link MemoryFaultException}, never a crash;
 * so does an access whose allocation is freed while it runs: the free closes the allocation's arena
 * (see {@link Allocation}), so the access either completed before the free or touches nothing.
 * For hot loops take a typed view ({@link #floats}, {@link #ints}, ...) once and index it: the view is
 * checked when made and then costs one segment bounds check per element.
 *
 * <p>Atomics follow the HSA memory model: see {@link MemoryOrder} for how orders map to Java
 * accesses (acquire/release are sequentially consistent here). Atomics need natural alignment;
 * plain accesses may be unaligned.
 *
 * <p>Every path goes through the runtime's {@link SvmAccess} strategy, chosen once: in normal mode
 * ({@link SvmAccess#DIRECT}) straight to home; in fidelity mode (package
 * {@code org.hsa4j.memory.coherence}) plain accesses, copy, fill, atomics, fences and the typed views
 * of a GPU compute unit go through its caches, and a host thread's through its store buffer.
 * {@link #segment} always returns the raw home memory and bypasses the caches.
 *
 * <p>Every access that resolves an address is an abort point ({@link ComputeUnitThread#checkAbort()}):
 * a kernel whose dispatch was aborted unwinds at its next access. Element access through a typed
 * view is not one.
 */
public final class Svm {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** Where a host thread's {@link #fence} goes: nowhere until a fidelity-mode strategy is made in this JVM. */
    static volatile SvmAccess.HostFence hostFences = (order, scope) -> { };

    private final AddressSpace space;
    private final int agentIndex;
    private final long agentBit;
    private final String agentName;
    /** How every access reaches memory, chosen once by the runtime. */
    private final SvmAccess access;
    private final FpAtomicPolicy fp;

    /** The view of the agent with {@code agentIndex}: fidelity mode off, CAS-loop FP atomics. */
    public Svm(AddressSpace space, int agentIndex, String agentName) {
        this(space, agentIndex, agentName, SvmAccess.DIRECT, null);
    }

    /**
     * The view of the agent with {@code agentIndex}; the runtime makes one per agent. Accesses go
     * through {@code access} (the runtime's strategy; null: {@link SvmAccess#DIRECT}); FP atomic adds follow {@code fp} (null: {@link FpAtomics#CAS_LOOP}).
     */
    public Svm(AddressSpace space, int agentIndex, String agentName, SvmAccess access, FpAtomicPolicy fp) {
        this.space = space;
        this.agentIndex = agentIndex;
        this.agentBit = 1L << agentIndex;
        this.agentName = agentName;
        this.access = access == null ? SvmAccess.DIRECT : access;
        this.fp = fp == null || fp.mode() == FpAtomics.CAS_LOOP ? null : fp;
    }

    /** The runtime's access strategy: {@link SvmAccess#DIRECT}, or fidelity mode's. */
    public SvmAccess access() {
        return access;
    }

    /** Index of the agent this view accesses memory as. */
    public int agentIndex() {
        return agentIndex;
    }

    /**
     * Resolves {@code bytes} bytes at {@code address} for this agent: the allocation they lie in.
     *
     * @throws MemoryFaultException when the bytes are not inside one live allocation or this agent has no access
     */
    public Allocation resolve(long address, long bytes) {
        return resolve(address, bytes, false);
    }

    /** {@link #resolve(long, long)} for a write: page accounting sees the intent (read-mostly copies collapse). */
    private Allocation resolveForWrite(long address, long bytes) {
        return resolve(address, bytes, true);
    }

    private Allocation resolve(long address, long bytes, boolean write) {
        ComputeUnitThread.checkAbort();
        Allocation a = space.lookup(address);
        if (a == null || !a.contains(address, bytes)) {
            throw fault(address, bytes, a);
        }
        if (a.pages != null) {
            a.pages.touch(agentIndex, agentName, address - a.base, bytes, write);
        }
        if ((a.accessMask & agentBit) == 0) {
            throw new MemoryFaultException(HsaStatus.MEMORY_APERTURE_VIOLATION, address,
                    agentName + " has no access to " + a + " (allow_access grants it)");
        }
        return a;
    }

    private MemoryFaultException fault(long address, long bytes, Allocation a) {
        if (address == 0) {
            return new MemoryFaultException(HsaStatus.MEMORY_FAULT, 0, agentName + " dereferenced the null address");
        }
        String where = a == null ? "not inside any live allocation"
                : String.format("%d bytes at offset %d run past the end of %s", bytes, address - a.base, a);
        return new MemoryFaultException(HsaStatus.MEMORY_FAULT, address, agentName + " accessed " + where);
    }

    /**
     * The fault of an access whose allocation was freed between its check and its access: the
     * allocation's arena closed under it, so the access touched nothing.
     */
    private MemoryFaultException freedMeanwhile(long address, IllegalStateException cause) {
        MemoryFaultException e = new MemoryFaultException(HsaStatus.MEMORY_FAULT, address,
                agentName + " accessed an allocation freed during the access");
        e.initCause(cause);
        return e;
    }

    /**
     * A checked slice of {@code bytes} bytes at {@code address}, for bulk access. Its accesses
     * bypass fidelity mode's caches; a host thread's buffered stores of the range reach memory first,
     * and its copies of the range are dropped, so the slice and the thread's plain accesses stay in order.
     *
     * @throws HsaException INVALID_ARGUMENT when {@code bytes} is negative
     */
    public MemorySegment segment(long address, long bytes) {
        try {
            Allocation a = range(address, bytes, false);
            access.rawAccess(a, address, bytes);
            return slice(a, address, bytes);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Resolves a bulk range of {@code bytes} bytes (refusing a negative count) once, for a caller that also slices it. */
    private Allocation range(long address, long bytes, boolean write) {
        if (bytes < 0) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "negative byte count " + bytes);
        }
        return resolve(address, bytes, write);
    }

    private static MemorySegment slice(Allocation a, long address, long bytes) {
        return a.segment().asSlice(address - a.base, bytes);
    }

    // ---- plain typed access -------------------------------------------------------------------

    /** Reads a byte. */
    public byte getByte(long address) {
        try {
            Allocation a = resolve(address, 1);
            return (byte) access.load(a, address, 1);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Writes a byte. */
    public void setByte(long address, byte value) {
        try {
            Allocation a = resolveForWrite(address, 1);
            access.store(a, address, 1, value);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Reads a 16-bit value. */
    public short getShort(long address) {
        try {
            Allocation a = resolve(address, 2);
            return (short) access.load(a, address, 2);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Writes a 16-bit value. */
    public void setShort(long address, short value) {
        try {
            Allocation a = resolveForWrite(address, 2);
            access.store(a, address, 2, value);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Reads an int. */
    public int getInt(long address) {
        try {
            Allocation a = resolve(address, 4);
            return (int) access.load(a, address, 4);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Writes an int. */
    public void setInt(long address, int value) {
        try {
            Allocation a = resolveForWrite(address, 4);
            access.store(a, address, 4, value);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Reads a long. */
    public long getLong(long address) {
        try {
            Allocation a = resolve(address, 8);
            return access.load(a, address, 8);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Writes a long. */
    public void setLong(long address, long value) {
        try {
            Allocation a = resolveForWrite(address, 8);
            access.store(a, address, 8, value);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Reads an SVM pointer (a long). */
    public long getAddress(long address) {
        return getLong(address);
    }

    /** Writes an SVM pointer (a long). */
    public void setAddress(long address, long pointer) {
        setLong(address, pointer);
    }

    /** Reads a float. */
    public float getFloat(long address) {
        try {
            Allocation a = resolve(address, 4);
            return Float.intBitsToFloat((int) access.load(a, address, 4));
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Writes a float. */
    public void setFloat(long address, float value) {
        try {
            Allocation a = resolveForWrite(address, 4);
            access.store(a, address, 4, Float.floatToRawIntBits(value));
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Reads a double. */
    public double getDouble(long address) {
        try {
            Allocation a = resolve(address, 8);
            return Double.longBitsToDouble(access.load(a, address, 8));
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Writes a double. */
    public void setDouble(long address, double value) {
        try {
            Allocation a = resolveForWrite(address, 8);
            access.store(a, address, 8, Double.doubleToRawLongBits(value));
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Copies {@code bytes} bytes from {@code src} to {@code dst}; both ranges are checked. */
    public void copy(long dst, long src, long bytes) {
        try {
            Allocation from = range(src, bytes, false);
            Allocation to = range(dst, bytes, true);
            access.copy(to, dst, from, src, bytes);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(dst, freed);
        }
    }

    /** Sets {@code bytes} bytes at {@code address} to {@code value}. */
    public void fill(long address, long bytes, byte value) {
        try {
            Allocation a = range(address, bytes, true);
            access.fill(a, address, bytes, value);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    // ---- typed views ----------------------------------------------------------------------------

    /** A view of {@code count} ints at {@code address}. */
    public IntView ints(long address, long count) {
        try {
            Allocation a = alignedRange(address, count, 4);
            return new IntView(address, slice(a, address, count * 4), access, a);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** A view of {@code count} longs at {@code address}. */
    public LongView longs(long address, long count) {
        try {
            Allocation a = alignedRange(address, count, 8);
            return new LongView(address, slice(a, address, count * 8), access, a);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** A view of {@code count} floats at {@code address}. */
    public FloatView floats(long address, long count) {
        try {
            Allocation a = alignedRange(address, count, 4);
            return new FloatView(address, slice(a, address, count * 4), access, a, fp);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** A view of {@code count} doubles at {@code address}. */
    public DoubleView doubles(long address, long count) {
        try {
            Allocation a = alignedRange(address, count, 8);
            return new DoubleView(address, slice(a, address, count * 8), access, a, fp);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    private Allocation alignedRange(long address, long count, int elementSize) {
        if (count < 0 || count > Long.MAX_VALUE / elementSize) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "element count " + count + " of " + elementSize
                    + "-byte elements is negative or overflows a byte count");
        }
        checkAligned(address, elementSize);
        return range(address, count * elementSize, false);
    }

    // ---- atomics --------------------------------------------------------------------------------

    private Allocation atomic(long address, int bytes, MemoryOrder order, MemoryScope scope) {
        checkOrderAndScope(order, scope);
        checkAligned(address, bytes);
        return resolveForWrite(address, bytes);
    }

    private Allocation atomicLoad(long address, int bytes, MemoryOrder order, MemoryScope scope) {
        checkLoad(order);
        checkOrderAndScope(order, scope);
        checkAligned(address, bytes);
        return resolve(address, bytes);
    }

    private static void checkOrderAndScope(MemoryOrder order, MemoryScope scope) {
        if (order == null || scope == null) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "an atomic needs a memory order and a memory scope, got "
                    + order + " and " + scope);
        }
    }

    private static void checkAligned(long address, int bytes) {
        if ((address & (bytes - 1)) != 0) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT,
                    String.format("address 0x%016x is not aligned to %d bytes, as atomics need", address, bytes));
        }
    }

    private static void checkLoad(MemoryOrder order) {
        if (order != null && !order.validForLoad()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "an atomic load cannot have order " + order);
        }
    }

    private static void checkStore(MemoryOrder order) {
        if (order != null && !order.validForStore()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "an atomic store cannot have order " + order);
        }
    }

    /** Atomic int load: RELAXED is opaque, ACQUIRE and SEQ_CST are volatile (HSA scacquire). */
    public int atomicLoadInt(long address, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomicLoad(address, 4, order, scope);
            return (int) access.atomic(a, address, 4, AtomicOp.LOAD, 0, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Atomic int store: RELAXED is opaque, RELEASE and SEQ_CST are volatile (HSA screlease). */
    public void atomicStoreInt(long address, int value, MemoryOrder order, MemoryScope scope) {
        try {
            checkStore(order);
            Allocation a = atomic(address, 4, order, scope);
            access.atomic(a, address, 4, AtomicOp.STORE, value, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Atomically replaces the int; returns the previous value. */
    public int atomicExchangeInt(long address, int value, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 4, order, scope);
            return (int) access.atomic(a, address, 4, AtomicOp.EXCHANGE, value, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Compare-and-swap; returns the value found, which equals {@code expected} on success. */
    public int atomicCompareExchangeInt(long address, int expected, int desired, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 4, order, scope);
            return (int) access.atomic(a, address, 4, AtomicOp.COMPARE_EXCHANGE, expected, desired, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Fetch-and-add; returns the previous value. */
    public int atomicAddInt(long address, int delta, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 4, order, scope);
            return (int) access.atomic(a, address, 4, AtomicOp.ADD, delta, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Fetch-and-subtract; returns the previous value. */
    public int atomicSubInt(long address, int delta, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 4, order, scope);
            return (int) access.atomic(a, address, 4, AtomicOp.ADD, -delta, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Fetch-and-and; returns the previous value. */
    public int atomicAndInt(long address, int mask, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 4, order, scope);
            return (int) access.atomic(a, address, 4, AtomicOp.AND, mask, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Fetch-and-or; returns the previous value. */
    public int atomicOrInt(long address, int mask, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 4, order, scope);
            return (int) access.atomic(a, address, 4, AtomicOp.OR, mask, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Fetch-and-xor; returns the previous value. */
    public int atomicXorInt(long address, int mask, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 4, order, scope);
            return (int) access.atomic(a, address, 4, AtomicOp.XOR, mask, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Atomic signed minimum; returns the previous value. */
    public int atomicMinInt(long address, int value, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 4, order, scope);
            return (int) access.atomic(a, address, 4, AtomicOp.MIN, value, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Atomic signed maximum; returns the previous value. */
    public int atomicMaxInt(long address, int value, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 4, order, scope);
            return (int) access.atomic(a, address, 4, AtomicOp.MAX, value, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Atomic long load: RELAXED is opaque, ACQUIRE and SEQ_CST are volatile (HSA scacquire). */
    public long atomicLoadLong(long address, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomicLoad(address, 8, order, scope);
            return access.atomic(a, address, 8, AtomicOp.LOAD, 0, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Atomic long store: RELAXED is opaque, RELEASE and SEQ_CST are volatile (HSA screlease). */
    public void atomicStoreLong(long address, long value, MemoryOrder order, MemoryScope scope) {
        try {
            checkStore(order);
            Allocation a = atomic(address, 8, order, scope);
            access.atomic(a, address, 8, AtomicOp.STORE, value, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Atomically replaces the long; returns the previous value. */
    public long atomicExchangeLong(long address, long value, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 8, order, scope);
            return access.atomic(a, address, 8, AtomicOp.EXCHANGE, value, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Compare-and-swap; returns the value found, which equals {@code expected} on success. */
    public long atomicCompareExchangeLong(long address, long expected, long desired, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 8, order, scope);
            return access.atomic(a, address, 8, AtomicOp.COMPARE_EXCHANGE, expected, desired, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Fetch-and-add; returns the previous value. */
    public long atomicAddLong(long address, long delta, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 8, order, scope);
            return access.atomic(a, address, 8, AtomicOp.ADD, delta, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Fetch-and-subtract; returns the previous value. */
    public long atomicSubLong(long address, long delta, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 8, order, scope);
            return access.atomic(a, address, 8, AtomicOp.ADD, -delta, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Fetch-and-and; returns the previous value. */
    public long atomicAndLong(long address, long mask, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 8, order, scope);
            return access.atomic(a, address, 8, AtomicOp.AND, mask, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Fetch-and-or; returns the previous value. */
    public long atomicOrLong(long address, long mask, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 8, order, scope);
            return access.atomic(a, address, 8, AtomicOp.OR, mask, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Fetch-and-xor; returns the previous value. */
    public long atomicXorLong(long address, long mask, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 8, order, scope);
            return access.atomic(a, address, 8, AtomicOp.XOR, mask, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Atomic signed minimum; returns the previous value. */
    public long atomicMinLong(long address, long value, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 8, order, scope);
            return access.atomic(a, address, 8, AtomicOp.MIN, value, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** Atomic signed maximum; returns the previous value. */
    public long atomicMaxLong(long address, long value, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 8, order, scope);
            return access.atomic(a, address, 8, AtomicOp.MAX, value, 0, order, scope);
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /**
     * Float fetch-and-add as a compare-and-swap loop on the bits; returns the previous value. Under
     * {@link FpAtomics#UNSAFE} an add by a GPU compute unit on fine-grained memory is lost: it
     * returns the current value and leaves memory unchanged.
     */
    public float atomicAddFloat(long address, float delta, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 4, order, scope);
            long off = address - a.base;
            if (fp != null && fp.loses(a, address)) {
                return Float.intBitsToFloat((int) INT.getVolatile(a.segment(), off));
            }
            return Float.intBitsToFloat((int) access.atomic(a, address, 4, AtomicOp.FLOAT_ADD, Float.floatToRawIntBits(delta), 0, order, scope));
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /**
     * Double fetch-and-add as a compare-and-swap loop on the bits; returns the previous value. Under
     * {@link FpAtomics#UNSAFE} an add by a GPU compute unit on fine-grained memory is lost: it
     * returns the current value and leaves memory unchanged.
     */
    public double atomicAddDouble(long address, double delta, MemoryOrder order, MemoryScope scope) {
        try {
            Allocation a = atomic(address, 8, order, scope);
            long off = address - a.base;
            if (fp != null && fp.loses(a, address)) {
                return Double.longBitsToDouble((long) LONG.getVolatile(a.segment(), off));
            }
            return Double.longBitsToDouble(access.atomic(a, address, 8, AtomicOp.FLOAT_ADD, Double.doubleToRawLongBits(delta), 0, order, scope));
        } catch (IllegalStateException freed) {
            throw freedMeanwhile(address, freed);
        }
    }

    /** HSA scacquire int load at system scope (volatile). */
    public int loadIntAcquire(long address) {
        return atomicLoadInt(address, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
    }

    /** Relaxed int load (opaque). */
    public int loadIntRelaxed(long address) {
        return atomicLoadInt(address, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
    }

    /** HSA screlease int store at system scope (volatile). */
    public void storeIntRelease(long address, int value) {
        atomicStoreInt(address, value, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
    }

    /** Relaxed int store (opaque). */
    public void storeIntRelaxed(long address, int value) {
        atomicStoreInt(address, value, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
    }

    /** HSA scacquire long load at system scope (volatile). */
    public long loadLongAcquire(long address) {
        return atomicLoadLong(address, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
    }

    /** Relaxed long load (opaque). */
    public long loadLongRelaxed(long address) {
        return atomicLoadLong(address, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
    }

    /** HSA screlease long store at system scope (volatile). */
    public void storeLongRelease(long address, long value) {
        atomicStoreLong(address, value, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
    }

    /** Relaxed long store (opaque). */
    public void storeLongRelaxed(long address, long value) {
        atomicStoreLong(address, value, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
    }

    /**
     * A memory fence: ACQUIRE orders earlier loads before later accesses, RELEASE orders earlier
     * accesses before later stores, ACQ_REL and SEQ_CST are full fences; RELAXED does nothing.
     */
    public static void fence(MemoryOrder order, MemoryScope scope) {
        checkOrderAndScope(order, scope);
        switch (order) {
            case RELAXED -> { }
            case ACQUIRE -> VarHandle.acquireFence();
            case RELEASE -> VarHandle.releaseFence();
            case ACQ_REL, SEQ_CST -> VarHandle.fullFence();
        }
        ComputeUnitThread unit = ComputeUnitThread.current();
        if (unit != null) {
            unit.access.fence(order, scope);
        } else {
            hostFences.fence(order, scope);
        }
    }
}
