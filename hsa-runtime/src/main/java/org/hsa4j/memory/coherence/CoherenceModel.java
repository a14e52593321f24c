package org.hsa4j.memory.coherence;

import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongArray;

import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.AtomicOp;
import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.memory.SvmAccess;

/**
 * The fidelity mode's memory model: the caches that make a missing fence or a too-narrow scope
 * read stale data on x86, deterministically, the way it would on a GPU.
 *
 * <h2>Why it exists</h2>
 * The JVM on x86 gives host and agents nearly sequentially consistent memory, so a protocol that
 * forgets a system-scope release, relies on a workgroup-scope release seen by another agent, or
 * reads coarse-grained memory mid-kernel passes every run and then fails on a GPU. In fidelity
 * mode the same mistake makes the reader see the old value every time: a written line simply sits
 * in a cache until something writes it back. No timing is involved.
 *
 * <h2>The model</h2>
 * <ul>
 * <li>Only GPU (kernel) agents' compute-unit threads have caches. The CPU agent's units read and
 * write home (the allocation's own off-heap memory) directly, and their releases and acquires
 * change no cache. Host threads (any thread that is not a compute unit) have a bounded store
 * buffer each ({@link HostStoreBuffer}): their plain stores reach home at their AGENT or SYSTEM
 * release, their plain loads may be stale until their acquire.</li>
 * <li>Each GPU compute unit has a private write-back L1 ({@link UnitCache}: workgroup scope); each GPU
 * agent has one L2 ({@link AgentCache}: agent scope) shared by its units. Both are direct-mapped
 * by 64-byte line with per-byte valid and dirty masks (geometry in {@link CacheGeometry}); an
 * eviction writes the dirty bytes to the next level, so no write is ever lost.</li>
 * <li>Plain loads and stores of GPU units go L1, then L2, then home, for fine- and coarse-grained
 * memory alike. Runtime-internal memory (signals, queues, kernel objects) and kernarg memory
 * bypass the caches: they are always coherent.</li>
 * <li>Atomics run at the allocation's coherence point: home for fine-grained memory, the agent's
 * L2 for coarse-grained memory. So, as on ROCm, a system-scope atomic on coarse-grained memory
 * acts at agent scope only, and the host, which reads home, does not see it mid-kernel. Before an
 * atomic the unit's own dirty bytes of the location move down and the L1 line's clean bytes are
 * dropped, so no cache level shadows the location the atomic changed.</li>
 * <li>Release at scope S (a releasing atomic, a fence, a kernel's screlease signal operation):
 * S at least AGENT writes the unit's L1 dirty bytes back to the L2; S = SYSTEM also writes the
 * L2's dirty fine-grained lines home (coarse-grained lines stay in the L2). WORKGROUP or narrower:
 * nothing leaves the L1, so another unit cannot see the data. Acquire at scope S: S at least AGENT
 * drops the unit's clean L1 bytes; S = SYSTEM also drops the L2's clean fine-grained bytes. Dirty
 * bytes are never dropped: an invalidate keeps the unit's own writes.</li>
 * <li>L2 misses are adversarial: a sector the L2 does not hold reads home as it stood at the
 * agent's last system-scope invalidation (its snapshot), as if the line had been resident since,
 * so a line a kernel never read is as stale after a too-narrow acquire as one it did. Every write
 * to home by anyone but the agent first saves the sector for it ({@link #beforeHomeWrite},
 * {@link SavedHome}); the agent's own write-backs update what it saved.</li>
 * <li>Packet fences: a launch with an AGENT acquire fence invalidates the agent's L1s (each unit
 * drops its clean bytes when it starts its next workgroup, so no thread touches another's L1);
 * SYSTEM also invalidates the whole L2 at launch. When a unit finishes a workgroup of a packet
 * whose release fence is AGENT or SYSTEM it writes its L1 back to the L2; for SYSTEM the unit that
 * finishes the last workgroup then writes the whole L2 (coarse lines too) home, all before the
 * completion signal is decremented.</li>
 * </ul>
 * The result: a correct program (system-scope release and acquire on fine-grained data, or data
 * read after the completion signal of a packet with system-scope fences) reads the right values; a
 * workgroup-scope release seen by another unit or agent, an agent-scope release seen by the host, a
 * missing fence, or coarse-grained data read mid-kernel reads stale values.
 *
 * <p>Off by default: a runtime without fidelity mode holds {@link SvmAccess#DIRECT} as its access
 * strategy, and this class is then never loaded. With the mode on this model is the strategy that
 * every {@link Svm}, view, unit thread, packet processor and signal of the runtime holds. Use after free is not modelled: a
 * line of a freed allocation is dropped, never written back.
 */
public final class CoherenceModel extends SvmAccess {
    /** The writer index of a host thread or a CPU unit in {@link #beforeHomeWrite}. */
    static final int HOST = -1;
    private final CacheGeometry geometry;
    private final AgentCache[] agentCaches;
    private final UnitCache[][] unitCaches;
    /** Per agent: launches with an acquire fence of agent scope or wider; each L1 catches up at its next workgroup. */
    private final AtomicLongArray acquireEpochs;

    /**
     * A model for agents {@code 0 .. cachedUnits.length - 1}: agent {@code i} gets an L2 and
     * {@code cachedUnits[i]} L1s when {@code cachedUnits[i] > 0} (GPU agents), and no caches when it is 0.
     */
    public CoherenceModel(CacheGeometry geometry, int[] cachedUnits) {
        this.geometry = geometry;
        this.agentCaches = new AgentCache[cachedUnits.length];
        this.unitCaches = new UnitCache[cachedUnits.length][];
        this.acquireEpochs = new AtomicLongArray(cachedUnits.length);
        enableHostFences(CoherenceModel::hostFence);
        for (int agent = 0; agent < cachedUnits.length; agent++) {
            if (cachedUnits[agent] > 0) {
                agentCaches[agent] = new AgentCache(this, agent, geometry.l2Sectors());
                unitCaches[agent] = new UnitCache[cachedUnits[agent]];
                for (int u = 0; u < cachedUnits[agent]; u++) {
                    unitCaches[agent][u] = new UnitCache(this, agentCaches[agent], agent, geometry.l1Sets());
                }
            }
        }
    }

    /** The cache geometry. */
    public CacheGeometry geometry() {
        return geometry;
    }

    @Override
    public boolean coherent() {
        return true;
    }

    /** The L1 of compute unit {@code unit} of agent {@code agent}, or null when that unit has none. */
    @Override
    protected UnitCache unitState(int agent, int unit) {
        UnitCache[] units = agent >= 0 && agent < unitCaches.length ? unitCaches[agent] : null;
        return units != null && unit >= 0 && unit < units.length ? units[unit] : null;
    }

    /** The calling thread's L1 while it runs kernel code, or null for a host thread or a unit without caches. */
    UnitCache current() {
        ComputeUnitThread t = ComputeUnitThread.current();
        if (t != null) {
            UnitCache c = MemoryInternals.l1(t);
            if (c != null && c.model == this && c.runner == t) {
                return c;
            }
        }
        return null;
    }

    // ---- plain access ---------------------------------------------------------------------------

    /**
     * A plain load of {@code size} (1, 2, 4 or 8) bytes at {@code address} inside {@code a}, as bits;
     * the caller has checked the bounds (and resolved {@code a} for the accessing agent).
     */
    @Override
    public long load(Allocation a, long address, int size) {
        UnitCache c;
        if (MemoryInternals.cacheExempt(a) || (c = current()) == null) {
            if (!MemoryInternals.cacheExempt(a) && host()) {
                return HostStoreBuffer.current().load(a, address, size);
            }
            return CacheLines.get(a.segment(), address - a.base(), size);
        }
        return c.load(a, address, size);
    }

    /** A plain store of the low {@code size} (1, 2, 4 or 8) bytes of {@code bits}; bounds checked by the caller, as for {@link #load}. */
    @Override
    public void store(Allocation a, long address, int size, long bits) {
        UnitCache c;
        if (MemoryInternals.cacheExempt(a) || (c = current()) == null) {
            if (!MemoryInternals.cacheExempt(a) && host()) {
                HostStoreBuffer.current().store(this, a, address, size, bits);
                return;
            }
            beforeHomeWrite(a, address, size, HOST);
            CacheLines.put(a.segment(), address - a.base(), size, bits);
            return;
        }
        c.store(a, address, size, bits);
    }

    /** A cursor for the plain element accesses of a view of {@code a}. */
    @Override
    public ElementAccess elements(Allocation a) {
        return new SectorCursor(this, a);
    }

    /** Copies {@code bytes} bytes from {@code src} in {@code sa} to {@code dst} in {@code da} with plain accesses. */
    @Override
    public void copy(Allocation da, long dst, Allocation sa, long src, long bytes) {
        if (da == sa && dst > src && dst < src + bytes) {
            for (long i = bytes - 1; i >= 0; i--) {
                store(da, dst + i, 1, load(sa, src + i, 1));
            }
            return;
        }
        long done = 0;
        while (done < bytes) {
            int chunk = Integer.highestOneBit((int) Math.min(Math.min(8, bytes - done),
                    Math.min(lineRest(src + done), lineRest(dst + done))));
            store(da, dst + done, chunk, load(sa, src + done, chunk));
            done += chunk;
        }
    }

    /** Sets {@code bytes} bytes at {@code address} to {@code value} with plain stores. */
    @Override
    public void fill(Allocation a, long address, long bytes, byte value) {
        long pattern = (value & 0xFFL) * 0x0101_0101_0101_0101L;
        long done = 0;
        while (done < bytes) {
            int chunk = Integer.highestOneBit((int) Math.min(Math.min(8, bytes - done), lineRest(address + done)));
            store(a, address + done, chunk, pattern);
            done += chunk;
        }
    }

    /**
     * Before {@code length} bytes at {@code address} of {@code a} change at home, written by anyone
     * but agent {@code writer}'s caches ({@link #HOST} for a host thread or a CPU unit): every other
     * GPU agent's L2 saves the sectors it may still read as they were ({@link SavedHome}). Every
     * path that writes cached memory at home calls this first; a path that does not (a raw segment)
     * is seen fresh by every agent.
     */
    void beforeHomeWrite(Allocation a, long address, long length, int writer) {
        if (MemoryInternals.cacheExempt(a)) {
            return;
        }
        for (AgentCache l2 : agentCaches) {
            if (l2 != null && l2.agent != writer) {
                l2.saveHome(a, address, length);
            }
        }
    }

    private static int lineRest(long address) {
        return CacheLines.LINE - (int) (address & (CacheLines.LINE - 1));
    }

    // ---- atomics and fences ---------------------------------------------------------------------

    /**
     * Runs atomic {@code op} on {@code size} (4 or 8) aligned bytes at its coherence point, with the
     * release before it and the acquire after it that {@code order} and {@code scope} call for.
     * Bounds, alignment and the order's validity for {@code op} are checked by the caller.
     */
    @Override
    public long atomic(Allocation a, long address, int size, AtomicOp op, long x, long y, MemoryOrder order,
                MemoryScope scope) {
        UnitCache c;
        if ((c = current()) == null) {
            if (MemoryInternals.opWrites(op)) {
                beforeHomeWrite(a, address, size, HOST);
            }
            return host() ? hostAtomic(a, address, size, op, x, y, order, scope)
                    : MemoryInternals.run(op, a.segment(), address - a.base(), size, x, y, order);
        }
        if (MemoryInternals.cacheExempt(a)) {
            return MemoryInternals.run(op, a.segment(), address - a.base(), size, x, y, order);
        }
        if (MemoryInternals.opWrites(op) && releases(order)) {
            release(c, scope);
        }
        long line = address & -CacheLines.LINE;
        long mask = CacheLines.bytes((int) (address - line), size);
        c.prepareAtomic(a, line, mask);
        long result;
        if (!a.coarseGrainedAt(address)) {
            c.l2.evictBytes(a, line, mask);
            if (MemoryInternals.opWrites(op)) {
                beforeHomeWrite(a, address, size, c.agent);
            }
            result = MemoryInternals.run(op, a.segment(), address - a.base(), size, x, y, order);
            c.l2.refreshHome(a, line, mask);
        } else {
            result = c.l2.atomic(a, address, size, op, x, y, order);
        }
        if (MemoryInternals.opReads(op) && acquires(order)) {
            acquire(c, scope);
        }
        return result;
    }

    /**
     * A host thread's atomic: its release first (on any memory: a release publishes the thread's
     * earlier stores whatever it writes), its own buffered bytes of a cached location home, the
     * operation at home, then its acquire.
     */
    private static long hostAtomic(Allocation a, long address, int size, AtomicOp op, long x, long y,
                                   MemoryOrder order, MemoryScope scope) {
        if (MemoryInternals.opWrites(op) && releases(order)) {
            hostRelease(scope);
        }
        if (!MemoryInternals.cacheExempt(a)) {
            HostStoreBuffer b = HostStoreBuffer.existing();
            if (b != null) {
                b.prepareAtomic(a, address, size);
            }
        }
        long result = MemoryInternals.run(op, a.segment(), address - a.base(), size, x, y, order);
        if (MemoryInternals.opReads(op) && acquires(order)) {
            hostAcquire(scope);
        }
        return result;
    }

    /** A fence by the calling thread: release and/or acquire at {@code scope} as {@code order} says. */
    @Override
    public void fence(MemoryOrder order, MemoryScope scope) {
        UnitCache c = current();
        if (c != null) {
            if (releases(order)) {
                release(c, scope);
            }
            if (acquires(order)) {
                acquire(c, scope);
            }
        } else if (host()) {
            hostFence(order, scope);
        }
    }

    /** A host thread's fence: its buffer releases and/or acquires at {@code scope} as {@code order} says. */
    static void hostFence(MemoryOrder order, MemoryScope scope) {
        if (releases(order)) {
            hostRelease(scope);
        }
        if (acquires(order)) {
            hostAcquire(scope);
        }
    }

    /** The release half of a synchronizing operation by the calling thread at {@code scope} (signals use SYSTEM). */
    @Override
    public void release(MemoryScope scope) {
        UnitCache c = current();
        if (c != null) {
            release(c, scope);
        } else if (host()) {
            hostRelease(scope);
        }
    }

    /** The acquire half of a synchronizing operation by the calling thread at {@code scope} (signals use SYSTEM). */
    @Override
    public void acquire(MemoryScope scope) {
        UnitCache c = current();
        if (c != null) {
            acquire(c, scope);
        } else if (host()) {
            hostAcquire(scope);
        }
    }

    /**
     * Writes home every dirty byte the calling host thread holds and what ended host threads left:
     * before a runtime's close frees its memory or registered memory goes back to the application.
     * Host threads still running keep theirs (a correct program released them before).
     */
    @Override
    public void drainHost() {
        if (host()) {
            HostStoreBuffer b = HostStoreBuffer.existing();
            if (b != null) {
                b.drainAll();
            }
        }
        HostStoreBuffer.sweepEnded();
    }

    /**
     * Allocation {@code a} was freed by the calling thread: every L1 revokes the leases on its
     * blocks, so a view's next element access through one takes the checked path and faults. A
     * unit granting a lease at the same moment checks the flag again after the grant
     * ({@link SectorCursor}); with a full fence on each side, one of the two sees the other.
     */
    @Override
    public void released(Allocation a) {
        VarHandle.fullFence();
        for (UnitCache[] units : unitCaches) {
            if (units != null) {
                for (UnitCache c : units) {
                    c.revokeLeasesOf(a);
                }
            }
        }
    }

    /**
     * The calling thread takes a raw slice of {@code bytes} bytes at {@code address} of {@code a},
     * which bypasses the model: a host thread's buffered stores of the range go home and its copies
     * of it are dropped, so its plain accesses and the slice's stay in program order.
     */
    @Override
    public void rawAccess(Allocation a, long address, long bytes) {
        if (!MemoryInternals.cacheExempt(a) && host()) {
            HostStoreBuffer b = HostStoreBuffer.existing();
            if (b != null) {
                b.evict(a, address, bytes);
            }
        }
    }

    /** True when the calling thread is a host thread: not a compute unit of any agent. */
    private static boolean host() {
        return !(Thread.currentThread() instanceof ComputeUnitThread);
    }

    /** A host thread's release at {@code scope}: AGENT or SYSTEM publishes its buffered stores (the host's agent is coherent at home). */
    private static void hostRelease(MemoryScope scope) {
        if (scope.includes(MemoryScope.AGENT)) {
            HostStoreBuffer b = HostStoreBuffer.existing();
            if (b != null) {
                b.release();
            } else {
                HostStoreBuffer.sweepEnded();
            }
        }
    }

    /** A host thread's acquire at {@code scope}: AGENT or SYSTEM drops its clean copies. */
    private static void hostAcquire(MemoryScope scope) {
        if (scope.includes(MemoryScope.AGENT)) {
            HostStoreBuffer b = HostStoreBuffer.existing();
            if (b != null) {
                b.acquire();
            } else {
                HostStoreBuffer.sweepEnded();
            }
        }
    }

    private static boolean releases(MemoryOrder order) {
        return order == MemoryOrder.RELEASE || order == MemoryOrder.ACQ_REL || order == MemoryOrder.SEQ_CST;
    }

    private static boolean acquires(MemoryOrder order) {
        return order == MemoryOrder.ACQUIRE || order == MemoryOrder.ACQ_REL || order == MemoryOrder.SEQ_CST;
    }

    private static void release(UnitCache c, MemoryScope scope) {
        if (scope.includes(MemoryScope.AGENT)) {
            c.writeBack();
            if (scope == MemoryScope.SYSTEM) {
                c.l2.writeBackHome(true);
            }
        }
    }

    private static void acquire(UnitCache c, MemoryScope scope) {
        if (scope.includes(MemoryScope.AGENT)) {
            c.invalidateClean();
            if (scope == MemoryScope.SYSTEM) {
                c.l2.invalidateClean(true);
            }
        }
    }

    // ---- packet fences --------------------------------------------------------------------------

    /**
     * A packet with acquire fence scope {@code fenceScope} (the header's code: 0 none, 1 agent,
     * 2 system) launches on agent {@code agent}: agent scope invalidates the agent's L1s (each unit
     * at its next {@link #beginWork}), system scope the L2 too, now.
     */
    @Override
    public void packetAcquire(int agent, int fenceScope) {
        AgentCache l2 = agentCaches[agent];
        if (fenceScope == 0 || l2 == null) {
            return;
        }
        if (fenceScope >= 2) {
            l2.invalidateClean(false);
        }
        acquireEpochs.incrementAndGet(agent);
    }

    /** The calling compute unit starts a workgroup or an agent dispatch: it applies the launch acquires it has not seen. */
    @Override
    public void beginWork() {
        ComputeUnitThread t = ComputeUnitThread.current();
        UnitCache c = t == null ? null : MemoryInternals.l1(t);
        if (c != null && c.model == this) {
            long epoch = acquireEpochs.get(c.agent);
            if (c.acquiredEpoch != epoch) {
                c.invalidateClean();
                c.acquiredEpoch = epoch;
            }
            c.runner = t;
        }
    }

    /** The calling compute unit finished a workgroup of a packet with release fence scope {@code fenceScope}: agent or system scope writes its L1 back. */
    @Override
    public void endWork(int fenceScope) {
        UnitCache c = current();
        if (c != null) {
            if (fenceScope != 0) {
                c.writeBack();
            }
            c.stop();
        }
    }

    /**
     * The last part of a packet with release fence scope {@code fenceScope} finished on agent
     * {@code agent} (every unit has run {@link #endWork}): system scope writes the agent's whole L2 home.
     */
    @Override
    public void packetRelease(int agent, int fenceScope) {
        AgentCache l2 = agentCaches[agent];
        if (l2 != null && fenceScope >= 2) {
            l2.writeBackHome(false);
        }
    }
}
