package org.hsa4j.amp;

import java.util.Arrays;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The state of one tile run as work-item loops: where each work-item stopped and the locals it
 * saved there. One per compute-unit thread, reused tile after tile; public only for the code that
 * {@code TileCompiler} generates (which lives in the kernel's package), never for applications.
 *
 * <p>A phase runs every work-item of the tile from where it stopped ({@link #resumeSite()}, 0 at
 * the start) up to its next barrier ({@link #suspend}) or its end. {@link #endPhase()} then decides:
 * all stopped at a barrier, so run another phase; all ended, so the tile is done; some of each,
 * so the tile broke the barrier contract and the dispatch fails.
 */
public final class TileFrame {
    private static final ThreadLocal<TileFrame> CURRENT = ThreadLocal.withInitial(TileFrame::new);

    private long[] prims = new long[0];
    private Object[] refs = new Object[0];
    private int[] sites = new int[0];
    private TiledIndex index;
    private int size;
    private int primStride;
    private int refStride;
    private int item;
    private int suspendedAt;
    private int suspended;
    private int finished;
    private int a;
    private int b;
    private int c;

    private TileFrame() {
    }

    /** The calling thread's frame. */
    static TileFrame current() {
        return CURRENT.get();
    }

    /** Prepares a run of the tile {@code t} is placed on, with room for the given saved locals. */
    void bind(TiledIndex t, int tileSize, int primSlots, int refSlots) {
        index = t;
        size = tileSize;
        primStride = primSlots;
        refStride = refSlots;
        if (prims.length < tileSize * primSlots) {
            prims = new long[tileSize * primSlots];
        }
        if (refs.length < tileSize * refSlots) {
            refs = new Object[tileSize * refSlots];
        }
        if (sites.length < tileSize) {
            sites = new int[tileSize];
        }
        Arrays.fill(sites, 0, tileSize, 0);
        suspended = 0;
        finished = 0;
    }

    /** Drops every reference the run saved, so no capture outlives its dispatch. */
    void unbind() {
        if (refStride > 0) {
            Arrays.fill(refs, 0, size * refStride, null);
        }
        index = null;
    }

    // ---- called by generated code -----------------------------------------------------------

    /** The frame a generated kernel body saves into (generated code only). */
    public static TileFrame of(TiledIndex t) {
        return t.frame;
    }

    /** Work-items in the tile (generated code only). */
    public int size() {
        return size;
    }

    /** Makes work-item {@code i} (row-major in the tile) current; called with 0, 1, 2, ... (generated code only). */
    public void enter(int i) {
        TiledIndex t = index;
        if (t.rank == 1) {
            t.placeLocal(i, 0, 0);
        } else {
            if (i == 0) {
                a = 0;
                b = 0;
                c = 0;
            } else if (t.rank == 2) {
                if (++c == t.t1) {
                    c = 0;
                    b++;
                }
            } else if (++c == t.t2) {
                c = 0;
                if (++b == t.t1) {
                    b = 0;
                    a++;
                }
            }
            if (t.rank == 2) {
                t.placeLocal(b, c, 0);
            } else {
                t.placeLocal(a, b, c);
            }
        }
        item = i;
        suspendedAt = 0;
    }

    /** Barrier site the current work-item resumes after, 0 to start (generated code only). */
    public int resumeSite() {
        return sites[item];
    }

    /** Saved primitive locals (generated code only). */
    public long[] prims() {
        return prims;
    }

    /** Index of the current work-item's first primitive local in {@link #prims()} (generated code only). */
    public int primBase() {
        return item * primStride;
    }

    /** Saved reference locals (generated code only). */
    public Object[] refs() {
        return refs;
    }

    /** Index of the current work-item's first reference local in {@link #refs()} (generated code only). */
    public int refBase() {
        return item * refStride;
    }

    /** The current work-item stopped at barrier site {@code site} (generated code only). */
    public void suspend(int site) {
        suspendedAt = site;
    }

    /** The current work-item returned or stopped (generated code only). */
    public void leave() {
        sites[item] = suspendedAt;
        if (suspendedAt != 0) {
            suspended++;
        } else {
            finished++;
        }
    }

    /**
     * Ends a phase: false when every work-item waits at a barrier (run the next phase), true when
     * every work-item returned (generated code only).
     *
     * @throws HsaException EXCEPTION when only part of the tile reached a barrier
     */
    public boolean endPhase() {
        int waiting = suspended;
        int done = finished;
        suspended = 0;
        finished = 0;
        if (waiting == 0) {
            return true;
        }
        if (done == 0) {
            return false;
        }
        throw new HsaException(HsaStatus.EXCEPTION, String.format(
                "a tile barrier was reached by only %d of %d work-items of tile %s; %d returned without it",
                waiting, size, index.tile(), done));
    }
}
