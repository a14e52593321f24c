package org.hsa4j.kernel;

import java.util.Arrays;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Fidelity mode's group-memory race detector: shadow state for every byte of one compute unit's
 * group segment, fed by the {@link CheckedGroupMemory} views of its work-items.
 *
 * <h2>What a race is here</h2>
 * HSA orders the group-memory accesses of two work-items of one workgroup through a workgroup
 * barrier, or through group-memory atomics: a release (a RELEASE or SEQ_CST store, any
 * read-modify-write) and a later acquire (an ACQUIRE or SEQ_CST load, any read-modify-write) of the
 * same location. Two plain accesses to the same byte by different work-items in the same barrier
 * phase, at least one of them a write, and not ordered by such a release and acquire, are a data
 * race: on a GPU the reader sees either value, depending on wavefront scheduling. The detector reports the first such pair, naming the kernel,
 * the workgroup, the byte's group-segment offset and both work-items (flat ids in the workgroup,
 * HSAIL {@code workitemflatid}), by throwing EXCEPTION from the second access, which fails the
 * dispatch as any kernel exception does. A work-item's own read after its own write is program
 * order and never reported. An atomic access is not recorded (atomics do not race with each
 * other); it is reported only when it meets another work-item's unordered plain write of the phase.
 *
 * <h2>How</h2>
 * Per byte, eight ints ({@link #STRIDE}): the stamp, work-item and epoch of the last plain write,
 * and the stamp and the last two distinct work-items (with their epochs) of the plain reads of the
 * newest read stamp. Two readers are enough without atomics: a write by work-item W races with some
 * read of its phase exactly when one of those two is not W (if the phase had a reader other than
 * W, either it is kept, or two distinct readers are, and one of them is not W); with atomics a
 * dropped reader may have been the unordered one, so a race can be missed there, never invented.
 *
 * <p>Atomics order through vector clocks, made only when a work-item of the group first releases
 * or acquires: work-item i's clock row holds, per work-item j, how many of j's releases i has
 * acquired (directly or through others); its own entry is its epoch, which each release
 * increments, and each plain access is recorded with its epoch. A release joins the releaser's
 * row into the location's sync clock (keyed by offset); an acquire joins the location's sync clock
 * into its row. An access by j at epoch e is ordered before a later access by i exactly when i's
 * row holds more than e for j. Since the work-items run one at a time, every release on a location
 * before an acquire is one the acquire may read from (HSA's atomics are sequentially consistent at
 * workgroup scope), so this orders no more than HSA does.
 *
 * <p>A stamp names a barrier phase of a workgroup:
 * {@code base + phase}, where each workgroup takes a fresh {@code base} above every stamp handed
 * out before and a work-item's phase counts the barriers it passed. Entries from earlier phases
 * or groups carry smaller stamps, so they never compare equal: reaching a barrier resets the
 * detector for the work-item that reached it without touching the shadow, and a new workgroup
 * resets all of it (clock rows and sync clocks carry the workgroup's generation or are cleared).
 * Only the unit's own thread (or the work-item holding its baton) touches it, one access at a
 * time, so nothing here is synchronized.
 */
final class GroupShadow {
    /** An atomic's order acquires. */
    static final int ACQUIRE = 1;
    /** An atomic's order releases. */
    static final int RELEASE = 2;

    /** Offset of the last plain write's stamp in a byte's entry. */
    static final int WRITE_STAMP = 0;
    /** Offset of the last plain writer's flat id. */
    static final int WRITER = 1;
    /** Offset of the last plain writer's epoch at the write. */
    static final int WRITE_EPOCH = 2;
    /** Offset of the newest plain read's stamp. */
    static final int READ_STAMP = 3;
    /** Offset of the last reader of that stamp. */
    static final int READER_A = 4;
    /** Offset of its epoch at the read. */
    static final int READER_A_EPOCH = 5;
    /** Offset of the reader before it, if another, else {@link #NONE}. */
    static final int READER_B = 6;
    /** Offset of its epoch at the read. */
    static final int READER_B_EPOCH = 7;
    /** Ints per byte of group segment. */
    static final int STRIDE = 8;

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
    /** Work-items of the packet's workgroup size: the range of flat ids, the length of a clock row. */
    private int items;
    /** The running workgroup's number, which a clock row must carry to count. */
    private int generation;
    /** Vector clock rows per work-item, made at its first release or acquire; null until then. */
    private int[][] clocks = new int[0][];
    /** The generation each row belongs to. */
    private int[] clockGeneration = new int[0];
    /** Per atomic location (its offset): the join of the rows released to it in this workgroup. */
    private final java.util.Map<Long, int[]> syncClocks = new java.util.HashMap<>();

    /**
     * A workgroup of kernel {@code kernel} with a group segment of {@code bytes} bytes and flat ids
     * below {@code workItems} starts: every entry goes stale.
     */
    void beginGroup(int bytes, String kernel, long group, int workItems) {
        kernelName = kernel;
        flatGroup = group;
        items = workItems;
        if (++generation == Integer.MAX_VALUE) {
            Arrays.fill(clockGeneration, 0);
            generation = 1;
        }
        syncClocks.clear();
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
        int epoch = epoch(item);
        for (int e = (int) offset * STRIDE, end = e + bytes * STRIDE; e < end; e += STRIDE) {
            if (unorderedWrite(st, e, item, stamp)) {
                throw race(e, st[e + WRITER], "wrote", item, "read");
            }
            if (st[e + READ_STAMP] != stamp) {
                st[e + READ_STAMP] = stamp;
                st[e + READER_A] = item;
                st[e + READER_A_EPOCH] = epoch;
                st[e + READER_B] = NONE;
            } else if (st[e + READER_A] == item) {
                st[e + READER_A_EPOCH] = epoch;
            } else if (st[e + READER_B] == item) {
                st[e + READER_B_EPOCH] = epoch;
            } else {
                st[e + READER_B] = st[e + READER_A];
                st[e + READER_B_EPOCH] = st[e + READER_A_EPOCH];
                st[e + READER_A] = item;
                st[e + READER_A_EPOCH] = epoch;
            }
        }
    }

    /** Work-item {@code item} at {@code stamp} writes bytes {@code [offset, offset + bytes)}. */
    void write(int item, int stamp, long offset, int bytes) {
        int[] st = state;
        int epoch = epoch(item);
        for (int e = (int) offset * STRIDE, end = e + bytes * STRIDE; e < end; e += STRIDE) {
            if (unorderedWrite(st, e, item, stamp)) {
                throw race(e, st[e + WRITER], "wrote", item, "wrote");
            }
            if (st[e + READ_STAMP] == stamp) {
                int a = st[e + READER_A];
                if (a != item && !ordered(item, a, st[e + READER_A_EPOCH])) {
                    throw race(e, a, "read", item, "wrote");
                }
                int b = st[e + READER_B];
                if (b != NONE && b != item && !ordered(item, b, st[e + READER_B_EPOCH])) {
                    throw race(e, b, "read", item, "wrote");
                }
            }
            st[e + WRITE_STAMP] = stamp;
            st[e + WRITER] = item;
            st[e + WRITE_EPOCH] = epoch;
        }
    }

    /**
     * Work-item {@code item} at {@code stamp} accesses bytes {@code [offset, offset + bytes)}
     * atomically, acquiring and releasing as {@code sync} ({@link #ACQUIRE}, {@link #RELEASE}) says.
     */
    void atomic(int item, int stamp, long offset, int bytes, int sync) {
        int[] st = state;
        for (int e = (int) offset * STRIDE, end = e + bytes * STRIDE; e < end; e += STRIDE) {
            if (unorderedWrite(st, e, item, stamp)) {
                throw race(e, st[e + WRITER], "wrote", item, "accessed atomically");
            }
        }
        if ((sync & ACQUIRE) != 0) {
            int[] location = syncClocks.get(offset);
            if (location != null) {
                join(row(item), location);
            }
        }
        if ((sync & RELEASE) != 0) {
            int[] mine = row(item);
            mine[item]++;
            join(syncClocks.computeIfAbsent(offset, o -> new int[items]), mine);
        }
    }

    /** True when entry {@code e} holds a plain write of phase {@code stamp} by another work-item that {@code item} is not ordered after. */
    private boolean unorderedWrite(int[] st, int e, int item, int stamp) {
        return st[e + WRITE_STAMP] == stamp && st[e + WRITER] != item && !ordered(item, st[e + WRITER], st[e + WRITE_EPOCH]);
    }

    /** True when work-item {@code later} acquired a release {@code earlier} made after its epoch {@code epoch}. */
    private boolean ordered(int later, int earlier, int epoch) {
        int[] row = liveRow(later);
        return row != null && row[earlier] > epoch;
    }

    /** Work-item {@code item}'s epoch: the releases it made in this workgroup. */
    private int epoch(int item) {
        int[] row = liveRow(item);
        return row == null ? 0 : row[item];
    }

    /** Work-item {@code item}'s clock row of this workgroup, or null when it has none yet. */
    private int[] liveRow(int item) {
        return item < clockGeneration.length && clockGeneration[item] == generation ? clocks[item] : null;
    }

    /** Work-item {@code item}'s clock row of this workgroup, made (zeroed) at its first use. */
    private int[] row(int item) {
        int[] row = liveRow(item);
        if (row != null) {
            return row;
        }
        if (clocks.length < items) {
            clocks = Arrays.copyOf(clocks, items);
            clockGeneration = Arrays.copyOf(clockGeneration, items);
        }
        row = clocks[item];
        if (row == null || row.length < items) {
            row = new int[items];
            clocks[item] = row;
        } else {
            Arrays.fill(row, 0);
        }
        clockGeneration[item] = generation;
        return row;
    }

    /** {@code into[j] = max(into[j], from[j])} for every work-item j. */
    private void join(int[] into, int[] from) {
        for (int j = 0; j < items; j++) {
            if (from[j] > into[j]) {
                into[j] = from[j];
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
