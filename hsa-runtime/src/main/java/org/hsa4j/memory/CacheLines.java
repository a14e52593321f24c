package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The storage of one fidelity-mode cache: per set, the line's SVM address (its tag; 0 when the
 * set is empty), the allocation it belongs to, a per-byte valid mask, a per-byte dirty mask and
 * the 64 data bytes. A byte may be valid without the rest of its line (a write allocates without
 * fetching; an invalidate keeps dirty bytes), so a miss fetches only the bytes it lacks and a
 * write-back moves only dirty bytes: no level ever overwrites a newer byte with an older one.
 * Not thread-safe: an L1 is used by its own thread, an L2 under its stripe locks.
 */
final class CacheLines {
    static final int LINE = CacheGeometry.LINE_SIZE;
    private static final ValueLayout.OfShort SHORT_U = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt INT_U = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG_U = ValueLayout.JAVA_LONG_UNALIGNED;

    final int lines;
    final long[] tags;
    final Allocation[] owners;
    final long[] valid;
    final long[] dirty;
    /** Line data: set {@code s} at byte {@code s * LINE}; backed by a long[] so aligned atomics work on it. */
    final MemorySegment data;

    CacheLines(int lines) {
        this.lines = lines;
        this.tags = new long[lines];
        this.owners = new Allocation[lines];
        this.valid = new long[lines];
        this.dirty = new long[lines];
        this.data = MemorySegment.ofArray(new long[lines * (LINE / Long.BYTES)]);
    }

    /** The set of the line at {@code line}. */
    int set(long line) {
        return CacheGeometry.set(line, lines);
    }

    /** True when set {@code s} holds line {@code line} of {@code a}. */
    boolean holds(int s, Allocation a, long line) {
        return tags[s] == line && owners[s] == a;
    }

    /** Makes set {@code s} hold nothing (the caller has written its dirty bytes back). */
    void clear(int s) {
        tags[s] = 0;
        owners[s] = null;
        valid[s] = 0;
        dirty[s] = 0;
    }

    /** Makes set {@code s} hold an empty copy of line {@code line} of {@code a}. */
    void assign(int s, Allocation a, long line) {
        tags[s] = line;
        owners[s] = a;
        valid[s] = 0;
        dirty[s] = 0;
    }

    /** Drops the clean bytes of set {@code s}; an empty set is freed. */
    void dropClean(int s) {
        valid[s] = dirty[s];
        if (dirty[s] == 0) {
            tags[s] = 0;
            owners[s] = null;
        }
    }

    /** Mask of {@code size} bytes starting at byte {@code offset} of a line. */
    static long bytes(int offset, int size) {
        return size == LINE ? -1L : ((1L << size) - 1) << offset;
    }

    /** Mask of the bytes of line {@code line} that lie inside {@code a} (the last line may be partial). */
    static long inside(Allocation a, long line) {
        long n = a.base + a.size - line;
        return n >= LINE ? -1L : (1L << n) - 1;
    }

    /** Copies the bytes selected by {@code mask} of a line, run by run. */
    static void copyRuns(long mask, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset) {
        while (mask != 0) {
            int start = Long.numberOfTrailingZeros(mask);
            int length = Long.numberOfTrailingZeros(~(mask >>> start));
            MemorySegment.copy(src, srcOffset + start, dst, dstOffset + start, length);
            if (start + length >= LINE) {
                return;
            }
            mask &= ~(((1L << length) - 1) << start);
        }
    }

    /** Writes the bytes of {@code mask} from set {@code s} to the allocation itself (home), unless it was freed. */
    void writeHome(int s, long mask) {
        Allocation a = owners[s];
        if (a.freed) {
            return;
        }
        try {
            copyRuns(mask, data, (long) s * LINE, a.segment, tags[s] - a.base);
        } catch (IllegalStateException freedMeanwhile) {
            // the allocation's arena closed after the check: its bytes are gone, nothing to keep
        }
    }

    /** Reads {@code size} (1, 2, 4 or 8) bytes at {@code offset} of the data, as bits. */
    static long get(MemorySegment data, long offset, int size) {
        return switch (size) {
            case 1 -> data.get(ValueLayout.JAVA_BYTE, offset);
            case 2 -> data.get(SHORT_U, offset);
            case 4 -> data.get(INT_U, offset);
            default -> data.get(LONG_U, offset);
        };
    }

    /** Writes the low {@code size} (1, 2, 4 or 8) bytes of {@code bits} at {@code offset} of the data. */
    static void put(MemorySegment data, long offset, int size, long bits) {
        switch (size) {
            case 1 -> data.set(ValueLayout.JAVA_BYTE, offset, (byte) bits);
            case 2 -> data.set(SHORT_U, offset, (short) bits);
            case 4 -> data.set(INT_U, offset, (int) bits);
            default -> data.set(LONG_U, offset, bits);
        }
    }
}
