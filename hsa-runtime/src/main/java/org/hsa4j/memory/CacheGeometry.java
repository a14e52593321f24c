package org.hsa4j.memory;

import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaStatus;

/**
 * Geometry of the fidelity mode's caches (the descriptor of {@link CoherenceModel}'s storage).
 * Both levels are direct-mapped by 64-byte line. A line's set mixes the SVM allocation slot into
 * the line number (see {@link #set}), so byte 0 of two allocations never compete for one set,
 * while consecutive lines of one allocation fill consecutive sets (a streaming kernel over three
 * arrays does not thrash).
 *
 * @param l1Lines lines of each compute unit's private L1 (workgroup scope); a power of two
 * @param l2Lines lines of each GPU agent's shared L2 (agent scope); a power of two, at least {@link #L2_STRIPES}
 */
public record CacheGeometry(int l1Lines, int l2Lines) {
    /** Bytes per cache line: a line's per-byte valid and dirty masks are one long each. */
    public static final int LINE_SIZE = 64;
    /** log2 of {@link #LINE_SIZE}. */
    public static final int LINE_SHIFT = 6;
    /** Number of locks guarding an L2, each over an equal contiguous range of its sets. */
    public static final int L2_STRIPES = 64;
    /** Default L1: 16 KiB per compute unit, as on CDNA. */
    public static final int DEFAULT_L1_LINES = 256;
    /** Default L2: 2 MiB per agent (a real L2 is larger; smaller keeps eviction in reach of tests). */
    public static final int DEFAULT_L2_LINES = 32768;

    private static final long SLOT_MIX = 0x9E37_79B9_7F4A_7C15L;

    public CacheGeometry {
        if (Integer.bitCount(l1Lines) != 1 || Integer.bitCount(l2Lines) != 1 || l2Lines < L2_STRIPES) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "cache line counts must be powers of two (L2 at least "
                    + L2_STRIPES + "), were " + l1Lines + " and " + l2Lines);
        }
    }

    /** The default geometry. */
    public static CacheGeometry defaults() {
        return new CacheGeometry(DEFAULT_L1_LINES, DEFAULT_L2_LINES);
    }

    /** The set of the line holding {@code address} in a cache of {@code lines} lines (a power of two). */
    static int set(long address, int lines) {
        long lineInAllocation = SvmAddress.offset(address) >>> LINE_SHIFT;
        long mix = (SvmAddress.slot(address) * SLOT_MIX) >>> 40;
        return (int) ((lineInAllocation + mix) & (lines - 1));
    }
}
