package org.hsa4j.memory.coherence;

import java.lang.invoke.VarHandle;

import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.SvmAccess;

/**
 * The plain element accesses of one view in fidelity mode, holding the {@link SectorLease} of the
 * L1 sector it touched last: the next access to the same sector by the same compute unit reads or
 * writes the sector's data after one thread compare and one mask test, with no cache lookup.
 * Anything else (another sector, an access not aligned to its size, a revoked lease, a load through
 * a lease granted for a store to a sector not yet whole, another thread, a host thread) goes through
 * the unit's {@link UnitCache} or {@link CoherenceModel}, which give the same result, only slower;
 * that path takes the lease of the sector it used when it can.
 *
 * <h2>Freed allocations</h2>
 * A leased access reads no freed flag: freeing an allocation revokes every lease on its blocks
 * ({@link CoherenceModel#released}) after setting the flag, and every access that takes no lease
 * reads the flag (a volatile read) before anything else, so an access ordered after the free by
 * any synchronization (a WORKGROUP-scope acquire included) faults as the direct views' accesses
 * do, and one racing with the free faults at the latest when it next leaves its sector. A grant
 * racing with the free reads the flag again after a full fence.
 *
 * <h2>Why it is safe to share</h2>
 * A view may be used by many units at once, but the cursor holds one lease: a unit takes it over
 * only when the one held is its own or revoked (so two busy units never fight over it; the second
 * takes the full path), and a lease serves only the thread it belongs to. The field is plain: a
 * lease is immutable but for its bases, which only its own thread writes, so whatever lease a
 * racing write leaves here, a thread uses only its own.
 */
final class SectorCursor implements SvmAccess.ElementAccess {
    private static final int LINE = CacheGeometry.LINE_SIZE;
    private static final int SECTOR = CacheGeometry.SECTOR_SIZE;

    private final CoherenceModel model;
    private final Allocation allocation;
    /** The lease taken last; {@link SectorLease#NONE} before the first. */
    private SectorLease lease = SectorLease.NONE;

    SectorCursor(CoherenceModel model, Allocation allocation) {
        this.model = model;
        this.allocation = allocation;
    }

    /**
     * A plain load of {@code size} (1, 2, 4 or 8) bytes at {@code address} of the view's allocation,
     * as bits (sign-extended as {@link CoherenceModel#load}); bounds checked by the caller.
     */
    public long load(long address, int size) {
        SectorLease l = lease;
        if (l.thread == Thread.currentThread() && SectorLease.covers(l.loadBase, address, size)) {
            return CacheSector.get(l.ints, (int) (address - l.loadBase), size);
        }
        return loadMiss(address, size);
    }

    private long loadMiss(long address, int size) {
        checkLive();
        UnitCache c;
        if ((int) (address & (LINE - 1)) + size > LINE || (c = cache()) == null) {
            return model.load(allocation, address, size);
        }
        CacheSector s = c.sectorForLoad(allocation, address);
        if (mayTake()) {
            lease = s.grantLoads();
            checkLiveAfterGrant(s);
        }
        return s.get((int) (address & (SECTOR - 1)), size);
    }

    /** A plain store of the low {@code size} (1, 2, 4 or 8) bytes of {@code bits} at {@code address}; bounds checked by the caller. */
    public void store(long address, int size, long bits) {
        SectorLease l = lease;
        if (l.thread == Thread.currentThread() && SectorLease.covers(l.storeBase, address, size)) {
            CacheSector.put(l.ints, (int) (address - l.storeBase), size, bits);
            return;
        }
        storeMiss(address, size, bits);
    }

    private void storeMiss(long address, int size, long bits) {
        checkLive();
        UnitCache c;
        if ((int) (address & (LINE - 1)) + size > LINE || (c = cache()) == null) {
            model.store(allocation, address, size, bits);
            return;
        }
        CacheSector s = c.sectorForStore(allocation, address);
        if (mayTake()) {
            lease = s.grantStores();
            checkLiveAfterGrant(s);
        }
        s.put((int) (address & (SECTOR - 1)), size, bits);
    }

    /** Every access that takes no lease checks that the allocation is live (a volatile read). */
    private void checkLive() {
        if (MemoryInternals.isFreed(allocation)) {
            throw new IllegalStateException("the allocation was freed");
        }
    }

    /**
     * After a grant: the allocation is still live, else the lease is revoked again. A free sets the
     * flag and then revokes the leases on the allocation's blocks ({@link CoherenceModel#released});
     * with a full fence on each side, either that revocation comes after this grant or this read
     * sees the flag, so no lease outlives a free.
     */
    private void checkLiveAfterGrant(CacheSector s) {
        VarHandle.fullFence();
        if (MemoryInternals.isFreed(allocation)) {
            s.revoke();
            throw new IllegalStateException("the allocation was freed");
        }
    }

    /**
     * The caller's L1 when it runs kernel code on a cached unit and the allocation is cached, else
     * null: the unit of the lease held when that is the caller's, without the model's lookup.
     */
    private UnitCache cache() {
        if (MemoryInternals.cacheExempt(allocation)) {
            return null;
        }
        SectorLease held = lease;
        Thread me = Thread.currentThread();
        if (held.thread == me) {
            UnitCache c = held.sector.cache;
            return c.runner == me ? c : null;
        }
        return model.current();
    }

    /** True when the caller may take a lease here: the one held is its own, or no longer in force. */
    private boolean mayTake() {
        SectorLease held = lease;
        return held.thread == Thread.currentThread() || held.storeBase == SectorLease.REVOKED && held.loadBase == SectorLease.REVOKED;
    }
}
