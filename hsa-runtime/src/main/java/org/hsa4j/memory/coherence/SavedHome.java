package org.hsa4j.memory.coherence;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.hsa4j.memory.Allocation;

/**
 * Fidelity mode: the bytes of one allocation as one GPU agent's L2 may still see them, home as it
 * was at the agent's last system-scope invalidation (its snapshot), for the sectors written at
 * home since then by anyone but the agent itself.
 *
 * <h2>Why</h2>
 * A GPU's L2 keeps lines from earlier work; an agent-scope acquire does not drop them. So a kernel
 * that reads, after an agent-scope acquire, a line the host has just written may get the old value
 * even if no unit of the agent ever read that line in this kernel: the line may have been resident
 * since before. A model that fetched every line the L2 does not hold fresh from home would miss
 * that mistake. Here the L2 is adversarial: it behaves as if every line had been resident since the
 * agent's snapshot, so a miss reads the saved bytes, not home. A system-scope acquire (or a packet's
 * system-scope acquire fence) takes a new snapshot, and the saved bytes no longer count.
 *
 * <h2>How</h2>
 * Copy-on-write by sector ({@link CacheGeometry#SECTOR_SIZE} bytes): before anyone but the agent
 * writes a sector at home, {@link #save} copies the sector's home bytes here, once per snapshot
 * (the sector's stamp records the snapshot id it was saved for; 0 means never). The agent's own
 * write-backs and home atomics {@link #refresh} the saved bytes they change, so the agent always
 * reads its own writes. Saved bytes live in 4 KiB pages made on first use. Saving, refreshing and
 * reading saved bytes run under this object's lock, so the saving writer and a filling L2 never
 * see half a sector; the checks that a sector is saved run without it (a streaming L2 miss on a
 * sector nobody saved takes no lock: {@link #savedFor}).
 */
final class SavedHome {
    private static final int SECTOR = CacheGeometry.SECTOR_SIZE;
    private static final int PAGE_SHIFT = 12;
    private static final int PAGE = 1 << PAGE_SHIFT;
    private static final VarHandle STAMP = MethodHandles.arrayElementVarHandle(long[].class);

    /** Per sector: the snapshot id its saved bytes belong to, 0 when none. */
    private final long[] stamps;
    /** Saved bytes, one 4 KiB page (of the allocation's offsets) each, made on first save. */
    private final MemorySegment[] pages;

    SavedHome(long size) {
        this.stamps = new long[(int) ((size + SECTOR - 1) / SECTOR)];
        this.pages = new MemorySegment[(int) ((size + PAGE - 1) >>> PAGE_SHIFT)];
    }

    /**
     * Before a foreign write to the sector at {@code offset} of {@code a}: saves its home bytes
     * unless saved for snapshot {@code id}. The common case, saved already, is one acquire load:
     * the stamp is stored with release after the copy, so a writer that sees it writes home after
     * the copy read it.
     */
    void save(Allocation a, long offset, long id) {
        int s = (int) (offset / SECTOR);
        if ((long) STAMP.getAcquire(stamps, s) != id) {
            saveLocked(a, s, id);
        }
    }

    private synchronized void saveLocked(Allocation a, int s, long id) {
        if (stamps[s] == id || MemoryInternals.isFreed(a)) {
            return;
        }
        long start = (long) s * SECTOR;
        long length = Math.min(SECTOR, a.size() - start);
        try {
            MemorySegment.copy(a.segment(), start, page(start), start & (PAGE - 1), length);
        } catch (IllegalStateException freedMeanwhile) {
            return; // the allocation's arena closed after the check: nothing left to save or to read
        }
        STAMP.setRelease(stamps, s, id);
        // the writer writes home next: no home byte may become visible before the stamp (see savedFor)
        VarHandle.storeStoreFence();
    }

    /**
     * True when the sector at {@code offset} is saved for snapshot {@code id}: one acquire load, no
     * lock. A reader that finds it false reads home, then, after a load-load fence, asks again: a
     * writer saves (and stamps) a sector before it writes the sector at home, so a second false
     * means home was read whole before any such write, and a true sends the reader to the saved
     * bytes ({@link #savedPage}, under the lock).
     */
    boolean savedFor(long offset, long id) {
        return (long) STAMP.getAcquire(stamps, (int) (offset / SECTOR)) == id;
    }

    /**
     * The page holding the saved sector at {@code offset} when it was saved for snapshot {@code id},
     * else null (then home is as fresh as the snapshot). Callers hold this object's lock.
     */
    MemorySegment savedPage(long offset, long id) {
        return stamps[(int) (offset / SECTOR)] == id ? pages[(int) (offset >>> PAGE_SHIFT)] : null;
    }

    /** After the agent itself wrote the bytes {@code mask} of the line at {@code offset} of {@code a} at home: a sector saved for snapshot {@code id} takes them. */
    synchronized void refresh(Allocation a, long offset, long mask, long id) {
        if (stamps[(int) (offset / SECTOR)] == id && !MemoryInternals.isFreed(a)) {
            try {
                CacheLines.copyRuns(mask, a.segment(), offset, pages[(int) (offset >>> PAGE_SHIFT)], offset & (PAGE - 1));
            } catch (IllegalStateException freedMeanwhile) {
                // the allocation's arena closed after the check: nobody reads these bytes again
            }
        }
    }

    private MemorySegment page(long offset) {
        int p = (int) (offset >>> PAGE_SHIFT);
        MemorySegment page = pages[p];
        if (page == null) {
            page = MemorySegment.ofArray(new long[PAGE / Long.BYTES]);
            pages[p] = page;
        }
        return page;
    }

    /** Offset of {@code offset} inside its page. */
    static long inPage(long offset) {
        return offset & (PAGE - 1);
    }
}
