package org.hsa4j.memory.coherence;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import org.hsa4j.memory.Allocation;

/**
 * What both fidelity-mode cache levels do to the bytes of a 64-byte line: per-byte masks, masked
 * merges of a line's words between two caches, and the reads and writes of a line's bytes at home
 * (the allocation's own memory). A line's data is eight {@code long} words in native byte order:
 * byte {@code k} of the line is byte {@code k % 8} of word {@code k / 8} in memory order.
 *
 * <p>A byte may be valid without the rest of its line (a write allocates without fetching; an
 * invalidate keeps dirty bytes), so a miss fetches only the bytes it lacks and a write-back moves
 * only dirty bytes: no level ever overwrites a newer byte with an older one. Merging masked bytes
 * works word by word, since a per-byte mask spreads to a per-bit word mask with one table look-up
 * per word ({@link #SPREAD}). Home memory is only ever written byte run by byte run (or whole word
 * by whole word, or whole line by whole line), never by a wider read-modify-write, so a cache
 * never overwrites a home byte it does not hold dirty.
 */
final class CacheLines {
    static final int LINE = CacheGeometry.LINE_SIZE;
    /** Words of a line. */
    static final int WORDS = LINE / Long.BYTES;
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfShort SHORT_U = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt INT_U = ValueLayout.JAVA_INT_UNALIGNED;
    static final ValueLayout.OfLong LONG_U = ValueLayout.JAVA_LONG_UNALIGNED;
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

    private CacheLines() {
    }

    /** Mask of {@code size} bytes starting at byte {@code offset} of a line. */
    static long bytes(int offset, int size) {
        return size == LINE ? -1L : ((1L << size) - 1) << offset;
    }

    /** Mask of the bytes of line {@code line} that lie inside {@code a} (the last line may be partial; a line past the end has none). */
    static long inside(Allocation a, long line) {
        long n = a.base() + a.size() - line;
        return n >= LINE ? -1L : n <= 0 ? 0 : (1L << n) - 1;
    }

    /** True when {@code size} bytes at line byte {@code offset} lie inside one word of the line. */
    static boolean inOneWord(int offset, int size) {
        return (offset & (Long.BYTES - 1)) + size <= Long.BYTES;
    }

    /** The bit shift of byte {@code k} of a word in native order. */
    private static int shift(int k) {
        return LITTLE_ENDIAN ? k << 3 : (Long.BYTES - k - 1) << 3;
    }

    /** Reads {@code size} (1, 2, 4 or 8) bytes at {@code offset} of {@code data}, as bits (sign-extended). */
    static long get(MemorySegment data, long offset, int size) {
        return switch (size) {
            case 1 -> data.get(ValueLayout.JAVA_BYTE, offset);
            case 2 -> data.get(SHORT_U, offset);
            case 4 -> data.get(INT_U, offset);
            default -> data.get(LONG_U, offset);
        };
    }

    /** Writes the low {@code size} (1, 2, 4 or 8) bytes of {@code bits} at {@code offset} of {@code data}. */
    static void put(MemorySegment data, long offset, int size, long bits) {
        switch (size) {
            case 1 -> data.set(ValueLayout.JAVA_BYTE, offset, (byte) bits);
            case 2 -> data.set(SHORT_U, offset, (short) bits);
            case 4 -> data.set(INT_U, offset, (int) bits);
            default -> data.set(LONG_U, offset, bits);
        }
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

    /** Copies the bytes selected by {@code mask} of the line at word {@code i} of {@code src} (an L2's words) into the line at byte {@code at} of {@code dst} (an L1 sector's data). */
    static void copyMasked(long mask, long[] src, int i, MemorySegment dst, long at) {
        for (int w = 0; w < WORDS && mask != 0; w++, mask >>>= 8) {
            int m = (int) mask & 0xFF;
            long d = at + (long) w * Long.BYTES;
            if (m == 0xFF) {
                dst.set(LONG_U, d, src[i + w]);
            } else if (m != 0) {
                long bits = SPREAD[m];
                dst.set(LONG_U, d, (dst.get(LONG_U, d) & ~bits) | (src[i + w] & bits));
            }
        }
    }

    /** Copies the bytes selected by {@code mask} of the line at byte {@code at} of {@code src} (an L1 sector's data) into the line at word {@code j} of {@code dst} (an L2's words). */
    static void copyMasked(long mask, MemorySegment src, long at, long[] dst, int j) {
        for (int w = 0; w < WORDS && mask != 0; w++, mask >>>= 8) {
            int m = (int) mask & 0xFF;
            long v = src.get(LONG_U, at + (long) w * Long.BYTES);
            if (m == 0xFF) {
                dst[j + w] = v;
            } else if (m != 0) {
                long bits = SPREAD[m];
                dst[j + w] = (dst[j + w] & ~bits) | (v & bits);
            }
        }
    }

    /**
     * Reads the bytes selected by {@code mask} of line {@code line} of {@code a} from home into the
     * line at word {@code j} of {@code words} ({@code data} is the same array as a segment). Whole
     * words are read where the line lies inside the allocation (bytes outside {@code mask} are read,
     * never kept); a partial last line goes run by run.
     */
    static void readHome(long mask, Allocation a, long line, long[] words, MemorySegment data, int j) {
        long home = line - a.base();
        if (home + LINE > a.segment().byteSize()) {
            copyRuns(mask, a.segment(), home, data, (long) j * Long.BYTES);
            return;
        }
        if (mask == -1L) {
            for (int w = 0; w < WORDS; w++) {
                words[j + w] = a.segment().get(LONG_U, home + ((long) w << 3));
            }
            return;
        }
        for (int w = 0; w < WORDS && mask != 0; w++, mask >>>= 8) {
            int m = (int) mask & 0xFF;
            if (m != 0) {
                long v = a.segment().get(LONG_U, home + ((long) w << 3));
                long bits = SPREAD[m];
                words[j + w] = (words[j + w] & ~bits) | (v & bits);
            }
        }
    }

    /**
     * Writes the bytes selected by {@code mask} of the line at word {@code j} of {@code words} (and
     * {@code data}, the same array as a segment) home to line {@code line} of {@code a}, unless it
     * was freed: whole words where the mask covers a whole word, byte runs elsewhere.
     */
    static void writeHome(long mask, Allocation a, long line, long[] words, MemorySegment data, int j) {
        if (MemoryInternals.isFreed(a)) {
            return;
        }
        try {
            long home = line - a.base();
            if (mask == -1L) {
                for (int w = 0; w < WORDS; w++) {
                    a.segment().set(LONG_U, home + ((long) w << 3), words[j + w]);
                }
                return;
            }
            for (int w = 0; w < WORDS && mask != 0; w++, mask >>>= 8) {
                int m = (int) mask & 0xFF;
                if (m == 0xFF) {
                    a.segment().set(LONG_U, home + ((long) w << 3), words[j + w]);
                } else if (m != 0) {
                    copyRuns((long) m << (w << 3), data, (long) j * Long.BYTES, a.segment(), home);
                }
            }
        } catch (IllegalStateException freedMeanwhile) {
            // the allocation's arena closed after the check: its bytes are gone, nothing to keep
        }
    }
}
