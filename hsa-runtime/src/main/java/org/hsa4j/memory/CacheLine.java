package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * One line of a compute unit's L1 in fidelity mode: which line of which allocation it holds, its
 * per-byte valid and dirty masks and its 64 data bytes as eight words in native byte order. Only
 * the unit's own thread changes it; an L1 is an array of these, one per set.
 *
 * <p>A line is an object, not a slice of parallel arrays, so it can hand a view's {@link LineCursor}
 * a {@link LineLease} on its words: the next elements of the same line are then read and written
 * with one thread compare and one range compare. The line revokes its lease whenever the lease's
 * promise would break: it takes another line ({@link #assign}, {@link #clear}), loses bytes
 * ({@link #dropClean}) or its unit stops running kernel code ({@link UnitCache#stop}).
 */
final class CacheLine {
    static final int LINE = CacheGeometry.LINE_SIZE;
    /** Words of a line. */
    static final int WORDS = LINE / Long.BYTES;
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /** The L1 this line belongs to. */
    final UnitCache cache;
    /** The line's data: byte {@code k} is byte {@code k % 8} of word {@code k / 8} in memory order. */
    final long[] words = new long[WORDS];
    /** The same data as a segment, for accesses that cross a word and for the runs of a write-back. */
    final MemorySegment data = MemorySegment.ofArray(words);
    /** The SVM address of the line held (its tag); 0 when the set is empty. */
    long tag;
    /** The allocation the line belongs to; null when the set is empty. */
    Allocation owner;
    /** Bytes that hold the line's current value as this unit sees it. */
    long valid;
    /** Bytes written here and not yet written back (always a subset of {@link #valid}). */
    long dirty;
    /** This line's lease, made at the first grant; in force when its bases are not {@link LineLease#REVOKED}. */
    private LineLease lease;

    CacheLine(UnitCache cache) {
        this.cache = cache;
    }

    /** This line's lease, granted on the line held now (for loads too when every byte is valid); the caller is the unit's thread, running kernel code. */
    LineLease grant() {
        if (lease == null) {
            lease = new LineLease(Thread.currentThread(), this);
        }
        lease.grant(valid == -1L);
        return lease;
    }

    /** Revokes the lease, if it was ever made. */
    void revoke() {
        if (lease != null) {
            lease.revoke();
        }
    }

    /** True when this line holds {@code line} of {@code a}. */
    boolean holds(Allocation a, long line) {
        return tag == line && owner == a;
    }

    /** Makes this line hold an empty copy of {@code line} of {@code a} (the caller wrote the old one back). */
    void assign(Allocation a, long line) {
        revoke();
        tag = line;
        owner = a;
        valid = 0;
        dirty = 0;
    }

    /** Makes this line hold nothing (the caller wrote its dirty bytes back). */
    void clear() {
        revoke();
        tag = 0;
        owner = null;
        valid = 0;
        dirty = 0;
    }

    /** Drops the clean bytes; a line left with no byte is freed. */
    void dropClean() {
        revoke();
        valid = dirty;
        if (dirty == 0) {
            tag = 0;
            owner = null;
        }
    }

    /** The bit shift of the {@code size} bytes at byte {@code k} (inside one word) of a word in native order. */
    private static int shift(int k, int size) {
        return LITTLE_ENDIAN ? k << 3 : (Long.BYTES - k - size) << 3;
    }

    /**
     * Reads {@code size} (1, 2, 4 or 8) bytes at byte {@code offset} of the line, as bits (an int,
     * short or byte sign-extended, as {@link CacheLines#get}).
     */
    long get(int offset, int size) {
        return CacheLines.inOneWord(offset, size) ? get(words, offset, size) : CacheLines.get(data, offset, size);
    }

    /** Reads {@code size} (1, 2, 4 or 8) bytes at byte {@code offset} of a line's {@code words}, inside one word, sign-extended. */
    static long get(long[] words, int offset, int size) {
        long w = words[offset >>> 3] >>> shift(offset & (Long.BYTES - 1), size);
        return switch (size) {
            case 1 -> (byte) w;
            case 2 -> (short) w;
            case 4 -> (int) w;
            default -> w;
        };
    }

    /** Writes the low {@code size} (1, 2, 4 or 8) bytes of {@code bits} at byte {@code offset}, making them valid and dirty. */
    void put(int offset, int size, long bits) {
        if (CacheLines.inOneWord(offset, size)) {
            putInWord(offset, size, bits);
            return;
        }
        CacheLines.put(data, offset, size, bits);
        markWritten(offset, size);
    }

    /** As {@link #put} for bytes inside one word. */
    void putInWord(int offset, int size, long bits) {
        if (size == Long.BYTES) {
            words[offset >>> 3] = bits;
        } else {
            int i = offset >>> 3;
            int sh = shift(offset & (Long.BYTES - 1), size);
            long m = ((1L << (size << 3)) - 1) << sh;
            words[i] = (words[i] & ~m) | ((bits << sh) & m);
        }
        markWritten(offset, size);
    }

    /** Makes {@code size} bytes at byte {@code offset} valid and dirty. */
    private void markWritten(int offset, int size) {
        long mask = CacheLines.bytes(offset, size);
        valid |= mask;
        dirty |= mask;
    }
}
