package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The storage of one fidelity-mode cache: per set, the line's SVM address (its tag; 0 when the
 * set is empty), the allocation it belongs to, a per-byte valid mask, a per-byte dirty mask and
 * the 64 data bytes (an agent's L2; a unit's L1 is an array of {@link CacheLine}s). A byte may be valid without the rest of its line (a write allocates without
 * fetching; an invalidate keeps dirty bytes), so a miss fetches only the bytes it lacks and a
 * write-back moves only dirty bytes: no level ever overwrites a newer byte with an older one.
 * Not thread-safe: an L2 uses it under its stripe locks.
 *
 * <p>The data is a {@code long[]}, eight words per line, in native byte order (byte {@code k} of
 * a line is byte {@code k % 8} of word {@code k / 8} in memory order, as {@link #data} shows it).
 * Moving masked bytes between two caches merges word by word ({@link #copyMasked}), since a
 * per-byte mask spreads to a per-bit word mask with one table look-up per word. Home memory is
 * only ever written byte run by byte run (or whole line by whole line), never by a wider
 * read-modify-write, so a cache never overwrites a byte it does not hold dirty.
 */
final class CacheLines {
    static final int LINE = CacheGeometry.LINE_SIZE;
    /** Words of a line. */
    static final int WORDS = LINE / Long.BYTES;
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfShort SHORT_U = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt INT_U = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG_U = ValueLayout.JAVA_LONG_UNALIGNED;
    /** For each 8-bit byte mask of a word, the bits of those bytes in the word (native order). */
    private static final long[] SPREAD = new long[256];

    static {
        for (int m = 0; m < 256; m++) {
            long bits = 0;
            for (int k = 0; k < Long.BYTES; k++) {
                if ((m & (1 << k)) != 0) {
                    bits |= 0xFFL << shift(k);
                }
            }
            SPREAD[m] = bits;
        }
    }

    final int lines;
    final long[] tags;
    final Allocation[] owners;
    final long[] valid;
    final long[] dirty;
    /** Line data: set {@code s} at words {@code s * WORDS ..}. */
    final long[] words;
    /** The same data as a segment (set {@code s} at byte {@code s * LINE}); backed by a long[] so aligned atomics work on it. */
    final MemorySegment data;

    CacheLines(int lines) {
        this.lines = lines;
        this.tags = new long[lines];
        this.owners = new Allocation[lines];
        this.valid = new long[lines];
        this.dirty = new long[lines];
        this.words = new long[lines * WORDS];
        this.data = MemorySegment.ofArray(words);
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
            long home = tags[s] - a.base;
            int j = s * WORDS;
            if (mask == -1L) {
                for (int w = 0; w < WORDS; w++) {
                    a.segment.set(LONG_U, home + ((long) w << 3), words[j + w]);
                }
                return;
            }
            for (int w = 0; w < WORDS && mask != 0; w++, mask >>>= 8) {
                int m = (int) mask & 0xFF;
                if (m == 0xFF) {
                    a.segment.set(LONG_U, home + ((long) w << 3), words[j + w]);
                } else if (m != 0) {
                    copyRuns((long) m << (w << 3), data, (long) s * LINE, a.segment, home);
                }
            }
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

    /** The bit shift of byte {@code k} of a word in native order. */
    private static int shift(int k) {
        return LITTLE_ENDIAN ? k << 3 : (Long.BYTES - k - 1) << 3;
    }

    /** True when {@code size} bytes at line byte {@code offset} lie inside one word of the line. */
    static boolean inOneWord(int offset, int size) {
        return (offset & (Long.BYTES - 1)) + size <= Long.BYTES;
    }

    /** Copies the bytes selected by {@code mask} of the line at word {@code i} of {@code src} into the line at word {@code j} of {@code dst}. */
    static void copyMasked(long mask, long[] src, int i, long[] dst, int j) {
        if (mask == -1L) {
            for (int w = 0; w < WORDS; w++) {
                dst[j + w] = src[i + w];
            }
            return;
        }
        for (int w = 0; w < WORDS && mask != 0; w++, mask >>>= 8) {
            int m = (int) mask & 0xFF;
            if (m == 0xFF) {
                dst[j + w] = src[i + w];
            } else if (m != 0) {
                long bits = SPREAD[m];
                dst[j + w] = (dst[j + w] & ~bits) | (src[i + w] & bits);
            }
        }
    }

    /**
     * Reads the bytes selected by {@code mask} of line {@code line} of {@code a} from home into set
     * {@code s}. Reads whole words where the line lies inside the allocation (bytes outside
     * {@code mask} are read, never kept); a partial last line goes run by run.
     */
    void readHome(long mask, Allocation a, long line, int s) {
        long home = line - a.base;
        if (home + LINE > a.segment.byteSize()) {
            copyRuns(mask, a.segment, home, data, (long) s * LINE);
            return;
        }
        int j = s * WORDS;
        if (mask == -1L) {
            for (int w = 0; w < WORDS; w++) {
                words[j + w] = a.segment.get(LONG_U, home + ((long) w << 3));
            }
            return;
        }
        for (int w = 0; w < WORDS && mask != 0; w++, mask >>>= 8) {
            int m = (int) mask & 0xFF;
            if (m != 0) {
                long v = a.segment.get(LONG_U, home + ((long) w << 3));
                long bits = SPREAD[m];
                words[j + w] = (words[j + w] & ~bits) | (v & bits);
            }
        }
    }
}
