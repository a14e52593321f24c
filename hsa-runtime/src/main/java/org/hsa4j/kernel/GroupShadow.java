package org.hsa4j.kernel;

import java.util.Arrays;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Fidelity mode's group-memory race detector: shadow state for every byte of one compute unit's
 * group segment, fed by the {@link CheckedGroupMemory} views of its work-items.
 *
 * <h2>What a race is here</h2>
 * HSA orders the group-memory accesses of two work-items of one workgroup only through a
 * workgroup barrier (or workgroup-scope atomics with release and acquire, which this detector does
 * not model). Two plain accesses to the same byte by different work-items in the same barrier
 * phase, at least one of them a write, are a data race: on a GPU the reader sees either value,
 * depending on wavefront scheduling. The detector reports the first such pair, naming the kernel,
 * the workgroup, the byte's group-segment offset and both work-items (flat ids in the workgroup,
 * HSAIL {@code workitemflatid}), by throwing EXCEPTION from the second access, which fails the
 * dispatch as any kernel exception does. A work-item's own read after its own write is program
 * order and never reported. An atomic access is not recorded (atomics do not race with each
 * other); it is reported only when it meets another work-item's plain write of the phase.
 *
 * <h2>How</h2>
 * Per byte, five ints ({@link #STRIDE}): the stamp and work-item of the last plain write, and the
 * stamp and the last two distinct work-items of the plain reads of the newest read stamp. Two
 * readers are enough: a write by work-item W races with some read of its phase exactly when one
 * of those two is not W (if the phase had a reader other than W, either it is kept, or two
 * distinct readers are, and one of them is not W). A stamp names a barrier phase of a workgroup:
 * {@code base + phase}, where each workgroup takes a fresh {@code base} above every stamp handed
 * out before and a work-item's phase counts the barriers it passed. Entries from earlier phases
 * or groups carry smaller stamps, so they never compare equal: reaching a barrier resets the
 * detector for the work-item that reached it without touching the shadow, and a new workgroup
 * resets all of it. Only the unit's own thread (or the work-item holding its baton) touches it,
 * one access at a time, so nothing here is synchronized.
 */
final class GroupShadow {
    /** Offset of the last plain write's stamp in a byte's entry. */
    static final int WRITE_STAMP = 0;
    /** Offset of the last plain writer's flat id. */
    static final int WRITER = 1;
    /** Offset of the newest plain read's stamp. */
    static final int READ_STAMP = 2;
    /** Offset of the last reader of that stamp. */
    static final int READER_A = 3;
    /** Offset of the reader before it, if another, else {@link #NONE}. */
    static final int READER_B = 4;
    /** Ints per byte of group segment. */
    static final int STRIDE = 5;

    private static final int NONE = -1;
    /** Stamps above this start the shadow over, long before an int overflows. */
    private static final int STAMP_LIMIT = Integer.MAX_VALUE - (1 << 24);

    private int[] state = new int[0];
    /** Stamp of phase 0 of the running workgroup. */
    private int base = 1;
    /** The highest stamp handed out so far. */
    private int highest = 1;
    private String kernelName;
    private long flatGroup;

    /** A workgroup of kernel {@code kernel} with a group segment of {@code bytes} bytes starts: every entry goes stale. */
    void beginGroup(int bytes, String kernel, long group) {
        kernelName = kernel;
        flatGroup = group;
        if (highest >= STAMP_LIMIT) {
            Arrays.fill(state, 0);
            highest = 0;
        }
        base = highest + 1;
        highest = base;
        if (state.length < (long) bytes * STRIDE) {
            state = new int[bytes * STRIDE];
        }
    }

    /** The stamp of a work-item that passed {@code phase} barriers in the running workgroup. */
    int stamp(int phase) {
        int s = base + phase;
        if (s > highest) {
            highest = s;
        }
        return s;
    }

    /** Work-item {@code item} at {@code stamp} reads bytes {@code [offset, offset + bytes)}. */
    void read(int item, int stamp, long offset, int bytes) {
        int[] st = state;
        for (int e = (int) offset * STRIDE, end = e + bytes * STRIDE; e < end; e += STRIDE) {
            if (st[e + WRITE_STAMP] == stamp && st[e + WRITER] != item) {
                throw race(e, st[e + WRITER], "wrote", item, "read");
            }
            if (st[e + READ_STAMP] != stamp) {
                st[e + READ_STAMP] = stamp;
                st[e + READER_A] = item;
                st[e + READER_B] = NONE;
            } else if (st[e + READER_A] != item && st[e + READER_B] != item) {
                st[e + READER_B] = st[e + READER_A];
                st[e + READER_A] = item;
            }
        }
    }

    /** Work-item {@code item} at {@code stamp} writes bytes {@code [offset, offset + bytes)}. */
    void write(int item, int stamp, long offset, int bytes) {
        int[] st = state;
        for (int e = (int) offset * STRIDE, end = e + bytes * STRIDE; e < end; e += STRIDE) {
            if (st[e + WRITE_STAMP] == stamp && st[e + WRITER] != item) {
                throw race(e, st[e + WRITER], "wrote", item, "wrote");
            }
            if (st[e + READ_STAMP] == stamp) {
                int other = st[e + READER_A] != item ? st[e + READER_A] : st[e + READER_B];
                if (other != NONE && other != item) {
                    throw race(e, other, "read", item, "wrote");
                }
            }
            st[e + WRITE_STAMP] = stamp;
            st[e + WRITER] = item;
        }
    }

    /** Work-item {@code item} at {@code stamp} accesses bytes {@code [offset, offset + bytes)} atomically. */
    void atomic(int item, int stamp, long offset, int bytes) {
        int[] st = state;
        for (int e = (int) offset * STRIDE, end = e + bytes * STRIDE; e < end; e += STRIDE) {
            if (st[e + WRITE_STAMP] == stamp && st[e + WRITER] != item) {
                throw race(e, st[e + WRITER], "wrote", item, "accessed atomically");
            }
        }
    }

    private HsaException race(int entry, int first, String firstDid, int second, String secondDid) {
        return new HsaException(HsaStatus.EXCEPTION, String.format(
                "kernel %s: group-memory race at group-segment offset %d of workgroup %d: work-item %d %s it and"
                        + " work-item %d %s it with no barrier between them", kernelName, entry / STRIDE, flatGroup,
                first, firstDid, second, secondDid));
    }
}
