package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;

/**
 * How an agent's memory accesses reach memory, chosen once per runtime: {@link #DIRECT} (normal
 * mode: every access goes straight to home, the allocation's own off-heap memory) or fidelity
 * mode's coherent strategy (package {@code org.hsa4j.memory.coherence}: GPU units' L1s and L2s and
 * host threads' store buffers). An {@link Svm}, its views, a {@link ComputeUnitThread}, the packet
 * processor and the signals each hold the runtime's strategy in a final field and call it on every
 * path, so no path tests whether the mode is on, and a new access path cannot forget the model.
 *
 * <h2>Why a strategy, and why here</h2>
 * The mode used to be a nullable model tested on every path (over a hundred tests in fifteen files).
 * Here the choice is made once, as Disruptor picks a WaitStrategy; in a JVM that never runs
 * fidelity mode the coherent class is never loaded, so every call site sees one implementation and
 * the JIT inlines {@link #DIRECT}'s body, which is what the paths ran before. The coherent strategy
 * lives in a package of its own that depends on this one and not the reverse (no package cycle):
 * its classes reach the internals they need (an allocation's cache-exempt flag, its freed flag, its
 * per-agent saved home, a unit's L1, an atomic's application) through the protected static
 * accessors below, which only a subclass sees. Not API: the runtime picks the strategy.
 *
 * <p>Orders and scopes: {@link #fence}, {@link #release}, {@link #acquire} are the model's halves
 * of a synchronizing operation; the Java fences and volatile accesses that order the host itself
 * are the callers' (see {@link MemoryOrder}).
 */
public abstract class SvmAccess {
    /** Normal mode: every access at home, every synchronization hook a no-op. */
    public static final SvmAccess DIRECT = new DirectAccess();

    /** For the coherent strategy, the one other implementation. */
    protected SvmAccess() {
    }

    /** True for fidelity mode's coherent strategy. */
    public abstract boolean coherent();

    // ---- plain access (bounds checked and the allocation resolved for the agent by the caller) ----

    /** A plain load of {@code size} (1, 2, 4 or 8) bytes at {@code address} inside {@code a}, as bits (sign-extended). */
    public abstract long load(Allocation a, long address, int size);

    /** A plain store of the low {@code size} (1, 2, 4 or 8) bytes of {@code bits} at {@code address} inside {@code a}. */
    public abstract void store(Allocation a, long address, int size, long bits);

    /** Copies {@code bytes} bytes from {@code src} in {@code sa} to {@code dst} in {@code da} with plain accesses. */
    public abstract void copy(Allocation da, long dst, Allocation sa, long src, long bytes);

    /** Sets {@code bytes} bytes at {@code address} of {@code a} to {@code value} with plain stores. */
    public abstract void fill(Allocation a, long address, long bytes, byte value);

    /**
     * Atomic {@code op} on {@code size} (4 or 8) aligned bytes at {@code address} of {@code a}, with
     * the release before and the acquire after that {@code order} and {@code scope} call for; bounds,
     * alignment and the order's validity are checked by the caller.
     */
    public abstract long atomic(Allocation a, long address, int size, AtomicOp op, long x, long y, MemoryOrder order,
                                MemoryScope scope);

    /** The calling thread takes a raw slice of {@code bytes} bytes at {@code address} of {@code a}, which bypasses any cache. */
    public abstract void rawAccess(Allocation a, long address, long bytes);

    /**
     * The plain element accesses of a view of {@code a}, or null when plain element accesses go
     * straight to the view's segment ({@link #DIRECT}): a view tests that final field once, and a
     * kernel loop's test is hoisted out of the loop, so the direct element access stays one segment
     * access the JIT vectorises.
     */
    public abstract ElementAccess elements(Allocation a);

    // ---- synchronization by the calling thread ---------------------------------------------------

    /** The model's half of a fence by the calling thread (the Java fence is the caller's). */
    public abstract void fence(MemoryOrder order, MemoryScope scope);

    /** The release half of a synchronizing operation by the calling thread at {@code scope}. */
    public abstract void release(MemoryScope scope);

    /** The acquire half of a synchronizing operation by the calling thread at {@code scope}. */
    public abstract void acquire(MemoryScope scope);

    /** Writes home what the calling host thread and ended host threads still buffer (before memory is freed or handed back). */
    public abstract void drainHost();

    /**
     * Allocation {@code a} was freed (its flag is set): the strategy ends whatever lets an element
     * access skip the freed check, so every access ordered after the free faults (fidelity mode:
     * the view leases on its blocks). Called by the freeing thread.
     */
    public abstract void released(Allocation a);

    // ---- packets -----------------------------------------------------------------------------------

    /** A packet with acquire fence scope code {@code fenceScope} (0 none, 1 agent, 2 system) launches on agent {@code agent}. */
    public abstract void packetAcquire(int agent, int fenceScope);

    /** The calling compute unit starts a workgroup or an agent dispatch. */
    public abstract void beginWork();

    /** The calling compute unit finished a workgroup of a packet with release fence scope code {@code fenceScope}. */
    public abstract void endWork(int fenceScope);

    /** The last part of a packet with release fence scope code {@code fenceScope} finished on agent {@code agent}. */
    public abstract void packetRelease(int agent, int fenceScope);

    /** The per-unit state (an L1) of compute unit {@code unit} of agent {@code agent}, or null; kept by its {@link ComputeUnitThread}. */
    protected abstract Object unitState(int agent, int unit);

    /** The plain element accesses of one view in a coherent strategy (bounds checked by the view). */
    public interface ElementAccess {
        /**
         * A plain load of {@code size} (1, 2, 4 or 8) bytes at {@code address}, as bits (sign-extended);
         * throws IllegalStateException once the allocation is freed (see {@link #released}).
         */
        long load(long address, int size);

        /** A plain store of the low {@code size} (1, 2, 4 or 8) bytes of {@code bits} at {@code address}. */
        void store(long address, int size, long bits);
    }

    // ---- what the coherent strategy needs of this package -----------------------------------------

    /** True for memory the caches never hold: runtime-internal structures and kernarg memory. */
    protected static boolean uncached(Allocation a) {
        return a.uncached;
    }

    /** True once {@code a} is freed. */
    protected static boolean freed(Allocation a) {
        return a.freed;
    }

    /** The coherent strategy's state of {@code a} for agent {@code agent}, or null. */
    protected static Object agentState(Allocation a, int agent) {
        return a.agentState(agent);
    }

    /** {@link #agentState}, made by {@code make} (given the allocation's size) on first use. */
    protected static Object agentStateFor(Allocation a, int agent, java.util.function.LongFunction<Object> make) {
        return a.agentStateFor(agent, make);
    }

    /** The state {@link #unitState} gave unit thread {@code t}, or null. */
    protected static Object unitState(ComputeUnitThread t) {
        return t.unitState;
    }

    /** Runs {@code op} at home: {@code size} bytes at {@code offset} of {@code m}. */
    protected static long apply(AtomicOp op, MemorySegment m, long offset, int size, long x, long y, MemoryOrder order) {
        return op.apply(m, offset, size, x, y, order);
    }

    /** True when {@code op} may change memory. */
    protected static boolean writes(AtomicOp op) {
        return op.writes();
    }

    /** True when {@code op} reads memory. */
    protected static boolean reads(AtomicOp op) {
        return op.reads();
    }

    /** Where a host thread's {@link Svm#fence} goes, besides the Java fence. */
    @FunctionalInterface
    public interface HostFence {
        /** A fence by the calling host thread. */
        void fence(MemoryOrder order, MemoryScope scope);
    }

    /** Makes {@code fence} (stateless: it outlives runtimes) take host threads' fences from now on in this JVM. */
    protected static void enableHostFences(HostFence fence) {
        Svm.hostFences = fence;
    }
}
