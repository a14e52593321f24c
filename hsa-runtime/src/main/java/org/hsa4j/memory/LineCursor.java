package org.hsa4j.memory;

/**
 * The plain element accesses of one view in fidelity mode, holding a {@link LineLease} on the L1
 * line it touched last: the next access to the same line by the same compute unit reads or writes
 * the line's words after one thread compare and one range compare, with no cache lookup. Anything
 * else (another line, a revoked lease, a load through a lease granted for a store to a line not yet
 * whole, another thread, a host thread) goes through {@link CoherenceModel}, which gives the same
 * result, only slower; that path takes a new lease when it can.
 *
 * <h2>Why it is safe to share</h2>
 * A view may be used by many units at once, but the cursor holds one lease: a unit takes it over
 * only when it holds none in force (so two busy units never fight over it; the second takes the
 * full path), and a lease is used only by the thread it was granted to. The field is plain: a
 * lease is immutable but for its base, which only its own thread writes, so whatever lease another
 * thread's racing write leaves here, a thread uses only its own.
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
        CacheLine l;
        if ((int) (address & (LINE - 1)) + size > LINE || (l = model.lineForLoad(allocation, address)) == null) {
            return model.load(allocation, address, size);
        }
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
        CacheLine l;
        if ((int) (address & (LINE - 1)) + size > LINE || (l = model.lineForStore(allocation, address)) == null) {
            model.store(allocation, address, size, bits);
            return;
        }
        take(l);
        l.put((int) (address & (LINE - 1)), size, bits);
    }

    /** Takes a lease on {@code l} (the caller's line) unless another thread holds one in force here. */
    private void take(CacheLine l) {
        LineLease held = lease;
        if (held.thread == Thread.currentThread() || held.storeBase == LineLease.REVOKED) {
            lease = l.grant();
        }
    }
}
