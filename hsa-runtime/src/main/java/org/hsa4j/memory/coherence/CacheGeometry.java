package org.hsa4j.memory.coherence;

import org.hsa4j.memory.SvmAddress;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Geometry of the fidelity mode's caches (the descriptor of {@link CoherenceModel}'s storage).
 *
 * <p>Both levels keep per-byte valid and dirty masks per 64-byte line, and both are organized by
 * <em>sector</em>: an aligned block of {@link #SECTOR_LINES} consecutive lines of one allocation,
 * allocated, filled and written back together, so a stream through memory costs one L1 miss, one
 * L2 lock and one tag check per sector instead of per line, and a view's lease covers a whole
 * sector. The L2 is direct-mapped; the L1 is {@link #L1_WAYS}-way set-associative, because the
 * streams of a kernel move through their arrays in step, so two arrays whose sectors met in one
 * direct-mapped set would meet there at every element and evict each other at every access. A
 * sector's set mixes the SVM allocation slot into the sector number (see {@link #sector}), so byte
 * 0 of two allocations do not compete for one set, while consecutive sectors of one allocation
 * fill consecutive sets.
 *
 * @param l1Lines lines of each compute unit's private L1 (workgroup scope); a power of two, at least
 *                {@link #SECTOR_LINES} times {@link #L1_WAYS}
 * @param l2Lines lines of each GPU agent's shared L2 (agent scope); a power of two, at least
 *                {@link #L2_STRIPES} sectors
 */
public record CacheGeometry(int l1Lines, int l2Lines) {
    /** Bytes per cache line: a line's per-byte valid and dirty masks are one long each. */
    public static final int LINE_SIZE = 64;
    /** log2 of {@link #LINE_SIZE}. */
    public static final int LINE_SHIFT = 6;
    /**
     * Lines per sector: eight (512 bytes, 128 floats a lease), because a streaming kernel pays one
     * L1 miss, lease grant and L2 lock per sector; four cost about 10% more compute-unit CPU on the
     * 1M-float vector add, sixteen no less than eight.
     */
    public static final int SECTOR_LINES = 8;
    /** Bytes per sector. */
    public static final int SECTOR_SIZE = SECTOR_LINES * LINE_SIZE;
    /** log2 of {@link #SECTOR_SIZE}. */
    public static final int SECTOR_SHIFT = 9;
    /** Ways of each L1 set: sectors that share a set and are looked up together. */
    public static final int L1_WAYS = 4;
    /** Number of locks guarding an L2, each over an equal contiguous range of its sets. */
    public static final int L2_STRIPES = 64;
    /** Default L1: 16 KiB per compute unit, as on CDNA. */
    public static final int DEFAULT_L1_LINES = 256;
    /** Default L2: 2 MiB per agent (a real L2 is larger; smaller keeps eviction in reach of tests). */
    public static final int DEFAULT_L2_LINES = 32768;

    private static final long SLOT_MIX = 0x9E37_79B9_7F4A_7C15L;

    // ---- one L1 sector's int[] (data and dirty flags in one array, so a leased 4-byte store is
    // ---- two plain int stores: no read-modify-write chains one store to the next)

    /** Ints of an L1 sector's array. */
    static final int L1_SECTOR_INTS = 2 * SECTOR_SIZE / Integer.BYTES;
    /** The sector's data: bytes {@code 4j .. 4j + 3} of the block in int {@code L1_DATA + j}, in native byte order. */
    static final int L1_DATA = 0;
    /**
     * Dirty flags: int {@code L1_DIRTY + j} holds one flag byte per data byte of int {@code j}, in
     * the same places: 1 when the byte was written here and not yet written back to the L2, else 0.
     */
    static final int L1_DIRTY = SECTOR_SIZE / Integer.BYTES;

    // ---- one L2 set in the L2's long[] (tag, stamps, masks and data side by side: one set is a
    // ---- few consecutive host cache lines, not one line in each of several arrays)

    /** The SVM address of the sector the set holds (its tag, a multiple of the sector size); 0 when the set is empty. */
    static final int L2_TAG = 0;
    /** The agent's whole-L2 invalidation count the set has caught up with (see {@code AgentCache}). */
    static final int L2_FULL_STAMP = 1;
    /** The agent's fine-grained invalidation count the set has caught up with. */
    static final int L2_FINE_STAMP = 2;
    /** Line {@code k}'s valid mask at {@code L2_VALID + k}: bytes that hold the line's current value as the agent sees it. */
    static final int L2_VALID = 3;
    /** Line {@code k}'s dirty mask at {@code L2_DIRTY + k}: bytes written here and not yet home (a subset of valid). */
    static final int L2_DIRTY = L2_VALID + SECTOR_LINES;
    /** The sector's data: line {@code k}'s eight words from {@code L2_DATA + 8k}, in native byte order. */
    static final int L2_DATA = L2_DIRTY + SECTOR_LINES;
    /** Longs per L2 set. */
    static final int L2_SET_LONGS = L2_DATA + SECTOR_SIZE / Long.BYTES;

    public CacheGeometry {
        if (Integer.bitCount(l1Lines) != 1 || Integer.bitCount(l2Lines) != 1 || l1Lines < SECTOR_LINES * L1_WAYS
                || l2Lines < L2_STRIPES * SECTOR_LINES) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "cache line counts must be powers of two (L1 at least "
                    + SECTOR_LINES * L1_WAYS + ", L2 at least " + L2_STRIPES * SECTOR_LINES + "), were " + l1Lines
                    + " and " + l2Lines);
        }
    }

    /** The default geometry. */
    public static CacheGeometry defaults() {
        return new CacheGeometry(DEFAULT_L1_LINES, DEFAULT_L2_LINES);
    }

    /** Sets of each compute unit's L1 ({@link #L1_WAYS} sectors each). */
    public int l1Sets() {
        return l1Lines / SECTOR_LINES / L1_WAYS;
    }

    /** Sectors of each GPU agent's L2. */
    public int l2Sectors() {
        return l2Lines / SECTOR_LINES;
    }

    /** The set of the sector holding {@code address} in a cache of {@code sets} sets (a power of two). */
    static int sector(long address, int sets) {
        long sectorInAllocation = SvmAddress.offset(address) >>> SECTOR_SHIFT;
        long mix = (SvmAddress.slot(address) * SLOT_MIX) >>> 40;
        return (int) ((sectorInAllocation + mix) & (sets - 1));
    }
}
