package org.hsa4j.memory;

import java.util.function.IntConsumer;

/**
 * The L2 of one GPU agent in fidelity mode (agent scope): shared by the agent's compute units,
 * written back to home (the allocation's own memory) only on eviction, on a system-scope release
 * (fine-grained lines) or by the packet's system-scope release fence at kernel end (every line).
 * It is also the coherence point of coarse-grained memory for the agent's atomics. Guarded by
 * {@link CacheGeometry#L2_STRIPES} locks, each over one contiguous range of sets; every operation
 * touches one set under its lock, except the whole-cache passes, which take the stripes one after
 * another.
 *
 * <p>Why ranges and not {@code set % STRIPES}: consecutive lines of an allocation fill consecutive
 * sets, so units streaming through different parts of memory touch different ranges, and each
 * keeps its stripe's lock (on a cache line of its own) in its own core's cache. Interleaved stripes
 * made every unit cycle through every lock, and each lock word crossed between cores on nearly
 * every miss.
 */
final class AgentCache {
    private static final int STRIPES = CacheGeometry.L2_STRIPES;

    private final CacheLines lines;
    /** The stripe locks: stripe {@code t} guards sets {@code t * setsPerStripe .. (t + 1) * setsPerStripe - 1}. */
    private final StripeLocks stripes = new StripeLocks(STRIPES);
    /** log2 of the sets each stripe guards. */
    private final int stripeShift;
    /**
     * Which sets hold a line, so whole-cache passes visit only those: stripe {@code t} owns words
     * {@code t * wordsPerStripe ..}, and bit {@code k % 64} of word {@code k / 64} of them stands for
     * the stripe's {@code k}-th set, so a word is only ever touched under its stripe's lock.
     */
    private final long[] occupied;
    private final int wordsPerStripe;

    AgentCache(int lineCount) {
        this.lines = new CacheLines(lineCount);
        this.stripeShift = Integer.numberOfTrailingZeros(lineCount / STRIPES);
        this.wordsPerStripe = Math.max(1, (lineCount / STRIPES) >>> 6);
        this.occupied = new long[STRIPES * wordsPerStripe];
    }

    /** The stripe of set {@code set}. */
    private int stripe(int set) {
        return set >>> stripeShift;
    }

    /** The word of {@link #occupied} that holds set {@code set}'s bit. */
    private int word(int set) {
        return (set >>> stripeShift) * wordsPerStripe + ((set & ((1 << stripeShift) - 1)) >>> 6);
    }

    /** Set {@code set}'s bit in its word (a shift by the set's index inside its stripe, mod 64). */
    private long bit(int set) {
        return 1L << (set & ((1 << stripeShift) - 1));
    }

    /** Under the set's lock: makes set {@code s} hold {@code line} of {@code a}, writing an evicted line's dirty bytes home. */
    private void claim(int s, Allocation a, long line) {
        if (!lines.holds(s, a, line)) {
            if (lines.dirty[s] != 0) {
                lines.writeHome(s, lines.dirty[s]);
            }
            lines.assign(s, a, line);
            occupied[word(s)] |= bit(s);
        }
    }

    /** Under the stripe's lock: drops the clean bytes of set {@code s}, and forgets the set when nothing is left. */
    private void dropClean(int s) {
        lines.dropClean(s);
        if (lines.tags[s] == 0) {
            occupied[word(s)] &= ~bit(s);
        }
    }

    /** The occupied sets of stripe {@code t}, for a pass under its lock: visits each with {@code visit}. */
    private void forOccupied(int t, IntConsumer visit) {
        for (int w = 0; w < wordsPerStripe; w++) {
            long bits = occupied[t * wordsPerStripe + w];
            while (bits != 0) {
                int k = w * Long.SIZE + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                visit.accept((t << stripeShift) + k);
            }
        }
    }

    /** Under the set's lock: makes the bytes of {@code need} valid, reading the missing ones from home. */
    private void fill(int s, Allocation a, long line, long need) {
        long missing = need & ~lines.valid[s];
        if (missing != 0) {
            lines.readHome(missing, a, line, s);
            lines.valid[s] |= missing;
        }
    }

    /** Copies the bytes of {@code need} of {@code line} into {@code dst} (an L1 line's words), fetching them from home if absent. */
    void fetch(Allocation a, long line, long need, long[] dst) {
        int s = lines.set(line);
        stripes.lock(stripe(s));
        try {
            claim(s, a, line);
            fill(s, a, line, need);
            CacheLines.copyMasked(need, lines.words, s * CacheLines.WORDS, dst, 0);
        } finally {
            stripes.unlock(stripe(s));
        }
    }

    /** Takes the dirty bytes {@code mask} of {@code line} from {@code src} (an L1 line's words). */
    void writeBack(Allocation a, long line, long mask, long[] src) {
        int s = lines.set(line);
        stripes.lock(stripe(s));
        try {
            claim(s, a, line);
            CacheLines.copyMasked(mask, src, 0, lines.words, s * CacheLines.WORDS);
            lines.valid[s] |= mask;
            lines.dirty[s] |= mask;
        } finally {
            stripes.unlock(stripe(s));
        }
    }

    /**
     * Runs {@code op} on {@code size} bytes at {@code address} inside this cache, atomically with
     * respect to every other access of the agent (coarse-grained memory's coherence point).
     */
    long atomic(Allocation a, long address, int size, AtomicOp op, long x, long y, MemoryOrder order) {
        long line = address & -CacheLines.LINE;
        int offset = (int) (address - line);
        long mask = CacheLines.bytes(offset, size);
        int s = lines.set(line);
        stripes.lock(stripe(s));
        try {
            claim(s, a, line);
            fill(s, a, line, mask);
            long result = op.apply(lines.data, (long) s * CacheLines.LINE + offset, size, x, y, order);
            if (op.writes()) {
                lines.dirty[s] |= mask;
            }
            return result;
        } finally {
            stripes.unlock(stripe(s));
        }
    }

    /** Before an atomic at home: moves the dirty bytes of {@code mask} of {@code line} home and drops them here. */
    void evictBytes(Allocation a, long line, long mask) {
        int s = lines.set(line);
        stripes.lock(stripe(s));
        try {
            if (lines.holds(s, a, line)) {
                long d = lines.dirty[s] & mask;
                if (d != 0) {
                    lines.writeHome(s, d);
                }
                lines.dirty[s] &= ~mask;
                lines.valid[s] &= ~mask;
            }
        } finally {
            stripes.unlock(stripe(s));
        }
    }

    /** Writes every dirty byte home (fine-grained lines only when {@code fineOnly}); the lines stay, clean. */
    void writeBackHome(boolean fineOnly) {
        for (int t = 0; t < STRIPES; t++) {
            stripes.lock(t);
            try {
                forOccupied(t, s -> {
                    long d = lines.dirty[s];
                    if (d != 0 && (!fineOnly || !lines.owners[s].coarseGrainedAt(lines.tags[s]))) {
                        lines.writeHome(s, d);
                        lines.dirty[s] = 0;
                    }
                });
            } finally {
                stripes.unlock(t);
            }
        }
    }

    /** Drops every clean byte (of fine-grained lines only when {@code fineOnly}); dirty bytes stay. */
    void invalidateClean(boolean fineOnly) {
        for (int t = 0; t < STRIPES; t++) {
            stripes.lock(t);
            try {
                forOccupied(t, s -> {
                    if (!fineOnly || !lines.owners[s].coarseGrainedAt(lines.tags[s])) {
                        dropClean(s);
                    }
                });
            } finally {
                stripes.unlock(t);
            }
        }
    }
}
