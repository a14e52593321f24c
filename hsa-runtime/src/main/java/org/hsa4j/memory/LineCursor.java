package org.hsa4j.memory;

/**
 * The plain element accesses of one view in fidelity mode, holding the {@link LineLease} of the L1
 * line it touched last: the next access to the same line by the same compute unit reads or writes
 * the line's words after one thread compare and one mask test, with no cache lookup. Anything else
 * (another line, an access not aligned to its size, a revoked lease, a load through a lease granted
 * for a store to a line not yet whole, another thread, a host thread) goes through the unit's
 * {@link UnitCache} or {@link CoherenceModel}, which give the same result, only slower; that path
 * takes the lease of the line it used when it can.
 *
 * <h2>Why it is safe to share</h2>
 * A view may be used by many units at once, but the cursor holds one lease: a unit takes it over
 * only when the one held is its own or revoked (so two busy units never fight over it; the second
 * takes the full path), and a lease serves only the thread it belongs to. The field is plain: a
 * lease is immutable but for its bases, which only its own thread writes, so whatever lease a
 * racing write leaves here, a thread uses only its own.
 */
public final class LineCursor {
    private static final int LINE = CacheLine.LINE;

    private final CoherenceModel model;
    private final Allocation allocation;
    /** The lease taken last; {@link LineLease#NONE} before the first. */
    private LineLease lease = LineLease.NONE;

    LineCursor(CoherenceModel model, Allocation allocation) {
        this.model = model;
        this.allocation = allocation;
    }

    /**
     * A plain load of {@code size} (1, 2, 4 or 8) bytes at {@code address} of the view's allocation,
     * as bits (sign-extended as {@link CoherenceModel#load}); bounds checked by the caller.
     */
    public long load(long address, int size) {
        LineLease l = lease;
        if (l.thread == Thread.currentThread() && LineLease.covers(l.loadBase, address, size)) {
            return CacheLine.get(l.words, (int) (address - l.loadBase), size);
        }
        return loadMiss(address, size);
    }

    private long loadMiss(long address, int size) {
        UnitCache c;
        if ((int) (address & (LINE - 1)) + size > LINE || (c = cache()) == null) {
            return model.load(allocation, address, size);
        }
        CacheLine l = c.lineForLoad(allocation, address);
        take(l);
        return l.get((int) (address & (LINE - 1)), size);
    }

    /** A plain store of the low {@code size} (1, 2, 4 or 8) bytes of {@code bits} at {@code address}; bounds checked by the caller. */
    public void store(long address, int size, long bits) {
        LineLease l = lease;
        if (l.thread == Thread.currentThread() && LineLease.covers(l.storeBase, address, size)) {
            l.line.putInWord((int) (address - l.storeBase), size, bits);
            return;
        }
        storeMiss(address, size, bits);
    }

    private void storeMiss(long address, int size, long bits) {
        UnitCache c;
        if ((int) (address & (LINE - 1)) + size > LINE || (c = cache()) == null) {
            model.store(allocation, address, size, bits);
            return;
        }
        CacheLine l = c.lineForStore(allocation, address);
        take(l);
        l.put((int) (address & (LINE - 1)), size, bits);
    }

    /**
     * The caller's L1 when it runs kernel code on a cached unit and the allocation is cached, else
     * null: the unit of the lease held when that is the caller's, without the model's lookup.
     */
    private UnitCache cache() {
        if (allocation.uncached) {
            return null;
        }
        LineLease held = lease;
        Thread me = Thread.currentThread();
        if (held.thread == me) {
            UnitCache c = held.line.cache;
            return c.runner == me ? c : null;
        }
        return model.current();
    }

    /** Takes the lease of {@code l} (the caller's line) unless another thread's lease in force is held here. */
    private void take(CacheLine l) {
        LineLease held = lease;
        if (held.thread == Thread.currentThread() || held.storeBase == LineLease.REVOKED) {
            lease = l.grant();
        }
    }
}
