package org.hsa4j.memory.coherence;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.AtomicOp;
import org.hsa4j.memory.MemoryOrder;

/**
 * The L2 of one GPU agent in fidelity mode (agent scope): shared by the agent's compute units,
 * written back to home (the allocation's own memory) only on eviction, on a system-scope release
 * (fine-grained lines) or by the packet's system-scope release fence at kernel end (every line).
 * It is also the coherence point of coarse-grained memory for the agent's atomics.
 *
 * <h2>Storage</h2>
 * Direct-mapped by sector (an aligned block of {@link CacheGeometry#SECTOR_LINES} lines, as the
 * L1s), with per-byte valid and dirty masks per line. All sets live in one {@code long[]}, each
 * set's tag, invalidation stamps, masks and data side by side (layout in {@link CacheGeometry}:
 * {@code L2_SET_LONGS} longs a set), so an L1 sector's fill or write-back is one tag check and one
 * set's worth of consecutive host memory. The allocation a set's sector belongs to is kept apart
 * ({@link #owners}): it tells two allocations with the same address apart (a slot reused after 64
 * generations) and gives the segment to write home.
 *
 * <h2>Locks</h2>
 * {@link CacheGeometry#L2_STRIPES} locks, each over one contiguous range of sets; every operation
 * touches one set under its lock, except the write-back passes, which take the stripes one after
 * another. Why ranges and not {@code set % STRIPES}: consecutive sectors of an allocation fill
 * consecutive sets, so units streaming through different parts of memory touch different ranges,
 * and each keeps its stripe's lock (on a cache line of its own) in its own core's cache.
 *
 * <p>One read takes no lock: a whole-sector L1 fill whose set's tag names another block (the
 * streaming case) reads home at once ({@link #fetch}). A set changes its tag only under its lock,
 * with a release store (of its copy in {@link #tags}, dense, so the test finds it in the host's
 * cache) after the evicted sector's dirty bytes went home ({@link #claim}), and the test reads it
 * with acquire, so a tag that names another block means that no byte of the block
 * is in this L2 now, or that one is being put there by a write-back that races with this read
 * (no synchronization orders the two, so either value is one the reader may see); a write-back
 * ordered before the read by a release and an acquire has set the tag, and the read takes the lock.
 * Catching the set up can only free it, never make it hold the block, so the lock-free path needs
 * no catching up either.
 *
 * <h2>Invalidation is lazy</h2>
 * An invalidation (a packet's system-scope acquire fence drops every clean byte; a kernel's
 * system-scope acquire drops the clean bytes of fine-grained lines) only counts: it increments
 * the whole-L2 or the fine-grained count in {@link #epochs}. Each set records the two counts it
 * last caught up with, and every operation on a set first catches up, dropping the clean bytes the
 * missed invalidations would have dropped ({@link #catchUp}). The outcome is the one of walking the
 * whole cache at the invalidation, since the bytes are dropped before anyone can read them, but an
 * invalidation costs one atomic add instead of a pass over every set. Dirty bytes are never
 * dropped, so the write-back passes need no catching up. The sets holding dirty bytes are marked in
 * {@link #dirtySets}, so a write-back pass visits only those.
 *
 * <h2>Misses are adversarial</h2>
 * A sector this L2 does not hold is not fetched fresh from home: it is read as home stood at the
 * agent's last snapshot (its last invalidation that dropped the sector's clean bytes), as if the
 * line had been resident since then, which a GPU's L2 may well do. The bytes written at home since
 * then by anyone but this agent were saved before they changed ({@link SavedHome}, through
 * {@link CoherenceModel#beforeHomeWrite}); this L2's own write-backs refresh what it saved, so it
 * reads its own writes. So a kernel that reads a line it never cached after an agent-scope acquire
 * sees the old value, every time; a system-scope acquire takes a new snapshot and reads home.
 *
 * <h2>Read misses do not allocate</h2>
 * A clean byte of this L2 always equals what a miss on it would read: both are home as of the
 * snapshot with this agent's own write-backs and home atomics applied (a fill after the snapshot
 * reads the saved bytes, and the saved bytes take the agent's own writes; an invalidation drops
 * the clean bytes exactly when it starts a new snapshot). So keeping a clean copy changes no value
 * any unit can read, and a whole-sector L1 fill of a sector this L2 holds no byte of copies home
 * (or the saved bytes) straight into the L1 sector and leaves the set alone: one bulk copy instead
 * of two, and no eviction of the set's dirty sector on the way. The L2 still takes every write-back
 * (its dirty bytes are what agent scope means) and serves the sectors it holds.
 */
final class AgentCache {
    private static final int STRIPES = CacheGeometry.L2_STRIPES;
    private static final int LINE = CacheGeometry.LINE_SIZE;
    private static final int LINES = CacheGeometry.SECTOR_LINES;
    private static final int WORDS = CacheLines.WORDS;
    private static final int SET = CacheGeometry.L2_SET_LONGS;
    private static final int TAG = CacheGeometry.L2_TAG;
    private static final int FULL_STAMP = CacheGeometry.L2_FULL_STAMP;
    private static final int FINE_STAMP = CacheGeometry.L2_FINE_STAMP;
    private static final int VALID = CacheGeometry.L2_VALID;
    private static final int DIRTY = CacheGeometry.L2_DIRTY;
    private static final int DATA = CacheGeometry.L2_DATA;
    /** Index in {@link #epochs} of the whole-L2 invalidation count. */
    private static final int FULL_EPOCH = 16;
    /** Index in {@link #epochs} of the fine-grained invalidation count (a cache line away from the other). */
    private static final int FINE_EPOCH = 32;
    private static final VarHandle EPOCH = MethodHandles.arrayElementVarHandle(long[].class);
    /** An element of {@link #tags}: written with release under the set's lock, read with acquire by {@link #fetch}'s lock-free test. */
    private static final VarHandle TAG_COPY = MethodHandles.arrayElementVarHandle(long[].class);

    private final int setCount;
    /** Every set, {@link #SET} longs each. */
    private final long[] sets;
    /** {@link #sets} as a segment, for byte runs and for atomics on a set's words. */
    private final MemorySegment data;
    /**
     * Per set, a copy of its tag ({@code L2_TAG}), dense (8 bytes a set, where a set's own words
     * span several host cache lines), so the lock-free test of a streaming fill reads memory the
     * host keeps in its cache instead of a cold set.
     */
    private final long[] tags;
    /** The allocation of the sector each set holds; null when the set is empty. */
    private final Allocation[] owners;
    /** The stripe locks: stripe {@code t} guards sets {@code t * setsPerStripe .. (t + 1) * setsPerStripe - 1}. */
    private final StripeLocks stripes = new StripeLocks(STRIPES);
    /** log2 of the sets each stripe guards. */
    private final int stripeShift;
    /**
     * Which sets hold dirty bytes, so write-back passes visit only those: stripe {@code t} owns words
     * {@code t * wordsPerStripe ..}, and bit {@code k % 64} of word {@code k / 64} of them stands for
     * the stripe's {@code k}-th set, so a word is only ever touched under its stripe's lock.
     */
    private final long[] dirtySets;
    private final int wordsPerStripe;
    /** The invalidation counts at {@link #FULL_EPOCH} and {@link #FINE_EPOCH}, each on a cache line of its own. */
    private final long[] epochs = new long[FINE_EPOCH + 16];
    /** The model, which saves home bytes for the other agents' L2s; null for a cache driven alone (tests). */
    private final CoherenceModel model;
    /** The index of this L2's agent. */
    final int agent;

    /** An L2 of {@code setCount} sectors driven alone: nothing is saved before its write-backs. */
    AgentCache(int setCount) {
        this(null, 0, setCount);
    }

    /** The L2 of agent {@code agent} of {@code model}, of {@code setCount} sectors (a power of two, at least {@link CacheGeometry#L2_STRIPES}). */
    AgentCache(CoherenceModel model, int agent, int setCount) {
        this.model = model;
        this.agent = agent;
        this.setCount = setCount;
        this.sets = new long[setCount * SET];
        this.data = MemorySegment.ofArray(sets);
        this.owners = new Allocation[setCount];
        this.tags = new long[setCount];
        this.stripeShift = Integer.numberOfTrailingZeros(setCount / STRIPES);
        this.wordsPerStripe = Math.max(1, (setCount / STRIPES) >>> 6);
        this.dirtySets = new long[STRIPES * wordsPerStripe];
    }

    /** The set of the sector at {@code block}. */
    private int set(long block) {
        return CacheGeometry.sector(block, setCount);
    }

    /** The stripe of set {@code s}. */
    private int stripe(int s) {
        return s >>> stripeShift;
    }

    /** The word of {@link #dirtySets} that holds set {@code s}'s bit. */
    private int dirtyWord(int s) {
        return (s >>> stripeShift) * wordsPerStripe + ((s & ((1 << stripeShift) - 1)) >>> 6);
    }

    /** Set {@code s}'s bit in its word (a shift by the set's index inside its stripe, mod 64). */
    private long dirtyBit(int s) {
        return 1L << (s & ((1 << stripeShift) - 1));
    }

    /** Under the set's lock: records that set {@code s} holds dirty bytes. */
    private void markDirty(int s) {
        dirtySets[dirtyWord(s)] |= dirtyBit(s);
    }

    /** Under the set's lock: records that set {@code s} holds no dirty byte. */
    private void markClean(int s) {
        dirtySets[dirtyWord(s)] &= ~dirtyBit(s);
    }

    /** True when set {@code s} (at index {@code i}) holds the sector at {@code block} of {@code a}. */
    private boolean holds(int s, int i, Allocation a, long block) {
        return sets[i + TAG] == block && owners[s] == a;
    }

    /**
     * Under the set's lock: applies to set {@code s} (at index {@code i}) the invalidations it has
     * not caught up with: any whole-L2 one drops its clean bytes, a fine-grained one those of a
     * fine-grained sector. A set left with no byte is freed.
     */
    private void catchUp(int s, int i) {
        long full = (long) EPOCH.getAcquire(epochs, FULL_EPOCH);
        long fine = (long) EPOCH.getAcquire(epochs, FINE_EPOCH);
        if (sets[i + FULL_STAMP] == full && sets[i + FINE_STAMP] == fine) {
            return;
        }
        long tag = sets[i + TAG];
        if (tag != 0 && (sets[i + FULL_STAMP] != full || !owners[s].coarseGrainedAt(tag))) {
            long dirty = 0;
            for (int k = 0; k < LINES; k++) {
                sets[i + VALID + k] = sets[i + DIRTY + k];
                dirty |= sets[i + DIRTY + k];
            }
            if (dirty == 0) {
                sets[i + TAG] = 0;
                TAG_COPY.setRelease(tags, s, 0L);
                owners[s] = null;
            }
        }
        sets[i + FULL_STAMP] = full;
        sets[i + FINE_STAMP] = fine;
    }

    /** True when every byte of every line of set {@code i} is set in the masks at {@code masks} (VALID or DIRTY). */
    private boolean all(int i, int masks) {
        long and = -1L;
        for (int k = 0; k < LINES; k++) {
            and &= sets[i + masks + k];
        }
        return and == -1L;
    }

    /** True when {@code masks[0..3]} select every byte of a sector. */
    private static boolean all(long[] masks) {
        long and = -1L;
        for (int k = 0; k < LINES; k++) {
            and &= masks[k];
        }
        return and == -1L;
    }

    /**
     * The id of this agent's current snapshot of a sector of the given grain: it changes at every
     * invalidation that drops such a sector's clean bytes (a coarse-grained one: whole-L2 only). Never 0.
     */
    long snapshotId(boolean coarse) {
        long full = (long) EPOCH.getAcquire(epochs, FULL_EPOCH);
        return coarse ? full + 1 : full + (long) EPOCH.getAcquire(epochs, FINE_EPOCH) + 1;
    }

    /** Before someone else writes {@code length} bytes at {@code address} of {@code a} at home: saves the sectors this L2 may still read as they were. */
    void saveHome(Allocation a, long address, long length) {
        SavedHome h = MemoryInternals.savedHomeFor(a, agent);
        long end = address + length;
        for (long block = address & -CacheGeometry.SECTOR_SIZE; block < end; block += CacheGeometry.SECTOR_SIZE) {
            h.save(a, block - a.base(), snapshotId(a.coarseGrainedAt(block)));
        }
    }

    /** After this agent wrote the bytes {@code mask} of {@code line} of {@code a} at home: what it saved takes them, so it reads its own writes. */
    void refreshHome(Allocation a, long line, long mask) {
        SavedHome h = MemoryInternals.savedHome(a, agent);
        if (h != null) {
            h.refresh(a, line - a.base(), mask, snapshotId(a.coarseGrainedAt(line)));
        }
    }

    /** Before this L2 writes {@code length} bytes at {@code address} of {@code a} home: the other agents save them. */
    private void beforeHome(Allocation a, long address, long length) {
        if (model != null) {
            model.beforeHomeWrite(a, address, length, agent);
        }
    }

    /** Under the set's lock: writes the dirty bytes of set {@code s} (at index {@code i}) home; they stay, clean. */
    private void writeHome(int s, int i) {
        Allocation owner = owners[s];
        long block = sets[i + TAG];
        long length = Math.min(CacheGeometry.SECTOR_SIZE, owner.base() + owner.size() - block);
        if (MemoryInternals.isFreed(owner)) {
            writeHomeBytes(s, i, owner, block);
            return;
        }
        beforeHome(owner, block, length);
        if (MemoryInternals.savedHome(owner, agent) == null) {
            writeHomeBytes(s, i, owner, block);
            return;
        }
        long[] written = new long[LINES];
        for (int k = 0; k < LINES; k++) {
            written[k] = sets[i + DIRTY + k];
        }
        writeHomeBytes(s, i, owner, block);
        for (int k = 0; k < LINES; k++) {
            if (written[k] != 0) {
                refreshHome(owner, block + (long) k * LINE, written[k]);
            }
        }
    }

    private void writeHomeBytes(int s, int i, Allocation owner, long block) {
        if (all(i, DIRTY)) {
            copyHome(owner, block, i);
            for (int k = 0; k < LINES; k++) {
                sets[i + DIRTY + k] = 0;
            }
            markClean(s);
            return;
        }
        for (int k = 0; k < LINES; k++) {
            long dirty = sets[i + DIRTY + k];
            if (dirty != 0) {
                CacheLines.writeHome(dirty, owner, block + (long) k * LINE, sets, data, i + DATA + k * WORDS);
                sets[i + DIRTY + k] = 0;
            }
        }
        markClean(s);
    }

    /** Under the set's lock: makes set {@code s} (at index {@code i}) hold the sector at {@code block} of {@code a}, writing an evicted sector's dirty bytes home. */
    private void claim(int s, int i, Allocation a, long block) {
        catchUp(s, i);
        if (!holds(s, i, a, block)) {
            if (!none(i, DIRTY)) {
                writeHome(s, i);
            }
            owners[s] = a;
            sets[i + TAG] = block;
            TAG_COPY.setRelease(tags, s, block);
            for (int k = 0; k < LINES; k++) {
                sets[i + VALID + k] = 0;
                sets[i + DIRTY + k] = 0;
            }
        }
    }

    /** Writes the whole sector of set {@code i} home to {@code block} of {@code a} (every byte of it inside {@code a}), unless {@code a} was freed. */
    private void copyHome(Allocation a, long block, int i) {
        if (MemoryInternals.isFreed(a)) {
            return;
        }
        try {
            MemorySegment.copy(data, (long) (i + DATA) * Long.BYTES, a.segment(), block - a.base(), CacheGeometry.SECTOR_SIZE);
        } catch (IllegalStateException freedMeanwhile) {
            // the allocation's arena closed after the check: its bytes are gone, nothing to keep
        }
    }

    /** True when no byte of any line of set {@code i} is set in the masks at {@code masks} (VALID or DIRTY). */
    private boolean none(int i, int masks) {
        long or = 0;
        for (int k = 0; k < LINES; k++) {
            or |= sets[i + masks + k];
        }
        return or == 0;
    }

    /**
     * Under the set's lock, the set not holding any byte of the sector: reads the whole sector at
     * {@code block} of {@code a} from home (or from what this agent saved of it) straight into
     * {@code dst}, one bulk copy, and the L2 keeps nothing (see "Read misses do not allocate"). A
     * sector not saved for the current snapshot (the streaming case) takes no lock: home is read,
     * then the stamp checked again ({@link SavedHome#savedFor}), and only a sector saved meanwhile
     * is read again, from the saved bytes under their lock.
     */
    private void readHome(Allocation a, long block, CacheSector dst) {
        long offset = block - a.base();
        long id = snapshotId(a.coarseGrainedAt(block));
        SavedHome h = MemoryInternals.savedHome(a, agent);
        if (h == null || !h.savedFor(offset, id)) {
            MemorySegment.copy(a.segment(), offset, dst.segment, 0, CacheGeometry.SECTOR_SIZE);
            VarHandle.loadLoadFence();
            h = MemoryInternals.savedHome(a, agent);
        }
        if (h != null && h.savedFor(offset, id)) {
            synchronized (h) {
                MemorySegment page = h.savedPage(offset, id);
                MemorySegment.copy(page != null ? page : a.segment(), page != null ? SavedHome.inPage(offset) : offset,
                        dst.segment, 0, CacheGeometry.SECTOR_SIZE);
            }
        }
    }

    /** Under the set's lock: makes the bytes of {@code need} of every line valid, reading the missing ones from home. */
    private void fill(int i, Allocation a, long block, long[] need) {
        for (int k = 0; k < LINES; k++) {
            if (need[k] != 0) {
                fill(i, a, block, k, need[k]);
            }
        }
    }

    /** Under the set's lock: makes the bytes of {@code need} of line {@code k} valid, reading the missing ones from home. */
    private void fill(int i, Allocation a, long block, int k, long need) {
        long missing = need & ~sets[i + VALID + k];
        if (missing != 0) {
            long line = block + (long) k * LINE;
            SavedHome h = MemoryInternals.savedHome(a, agent);
            if (h == null) {
                CacheLines.readHome(missing, a, line, sets, data, i + DATA + k * WORDS);
            } else {
                synchronized (h) {
                    MemorySegment page = h.savedPage(line - a.base(), snapshotId(a.coarseGrainedAt(line)));
                    if (page != null) {
                        CacheLines.copyMasked(missing, page, SavedHome.inPage(line - a.base()), sets, i + DATA + k * WORDS);
                    } else {
                        CacheLines.readHome(missing, a, line, sets, data, i + DATA + k * WORDS);
                    }
                }
            }
            sets[i + VALID + k] |= missing;
        }
    }

    /**
     * Copies the bytes of {@code need[k]} of line {@code k} of the sector at {@code block} into that
     * line's bytes of {@code dst} (an L1 sector), fetching them from home if absent. A whole-sector
     * miss on a sector this L2 holds no byte of goes from home straight into {@code dst}, leaving
     * the set as it was; when the set's tag names another block it takes no lock (see "Locks").
     */
    void fetch(Allocation a, long block, long[] need, CacheSector dst) {
        int s = set(block);
        int i = s * SET;
        if (all(need) && (long) TAG_COPY.getAcquire(tags, s) != block) {
            readHome(a, block, dst);
            return;
        }
        int t = stripe(s);
        stripes.lock(t);
        try {
            catchUp(s, i);
            if (all(need)) {
                if (!holds(s, i, a, block) || none(i, VALID)) {
                    readHome(a, block, dst);
                } else {
                    fill(i, a, block, need);
                    MemorySegment.copy(data, (long) (i + DATA) * Long.BYTES, dst.segment, 0, CacheGeometry.SECTOR_SIZE);
                }
                return;
            }
            claim(s, i, a, block);
            fill(i, a, block, need);
            for (int k = 0; k < LINES; k++) {
                if (need[k] != 0) {
                    CacheLines.copyMasked(need[k], sets, i + DATA + k * WORDS, dst.segment, (long) k * LINE);
                }
            }
        } finally {
            stripes.unlock(t);
        }
    }

    /** Takes the dirty bytes {@code masks} (one per line) of {@code src}, an L1 sector holding {@code block}. */
    void writeBack(Allocation a, long block, CacheSector src, long[] masks) {
        int s = set(block);
        int i = s * SET;
        int t = stripe(s);
        stripes.lock(t);
        try {
            claim(s, i, a, block);
            if (all(masks)) {
                MemorySegment.copy(src.segment, 0, data, (long) (i + DATA) * Long.BYTES, CacheGeometry.SECTOR_SIZE);
                for (int k = 0; k < LINES; k++) {
                    sets[i + VALID + k] = -1L;
                    sets[i + DIRTY + k] = -1L;
                }
                markDirty(s);
                return;
            }
            for (int k = 0; k < LINES; k++) {
                if (masks[k] != 0) {
                    merge(s, i, k, masks[k], src.segment, (long) k * LINE);
                }
            }
        } finally {
            stripes.unlock(t);
        }
    }

    /** Takes the dirty bytes {@code mask} of {@code line} from the line at byte {@code at} of {@code src} (an L1 sector's data). */
    void writeBackLine(Allocation a, long line, long mask, MemorySegment src, long at) {
        long block = line & -CacheGeometry.SECTOR_SIZE;
        int s = set(block);
        int i = s * SET;
        int t = stripe(s);
        stripes.lock(t);
        try {
            claim(s, i, a, block);
            merge(s, i, (int) (line - block) / LINE, mask, src, at);
        } finally {
            stripes.unlock(t);
        }
    }

    /** Under the set's lock: merges the bytes {@code mask} of line {@code k} from the line at byte {@code at} of {@code src} into set {@code s} (claimed), dirty. */
    private void merge(int s, int i, int k, long mask, MemorySegment src, long at) {
        CacheLines.copyMasked(mask, src, at, sets, i + DATA + k * WORDS);
        sets[i + VALID + k] |= mask;
        sets[i + DIRTY + k] |= mask;
        markDirty(s);
    }

    /**
     * Runs {@code op} on {@code size} bytes at {@code address} inside this cache, atomically with
     * respect to every other access of the agent (coarse-grained memory's coherence point).
     */
    long atomic(Allocation a, long address, int size, AtomicOp op, long x, long y, MemoryOrder order) {
        long block = address & -CacheGeometry.SECTOR_SIZE;
        int offset = (int) (address - block);
        int k = offset / LINE;
        long mask = CacheLines.bytes(offset % LINE, size);
        int s = set(block);
        int i = s * SET;
        int t = stripe(s);
        stripes.lock(t);
        try {
            claim(s, i, a, block);
            fill(i, a, block, k, mask);
            long result = MemoryInternals.run(op, data, (long) (i + DATA) * Long.BYTES + offset, size, x, y, order);
            if (MemoryInternals.opWrites(op)) {
                sets[i + DIRTY + k] |= mask;
                markDirty(s);
            }
            return result;
        } finally {
            stripes.unlock(t);
        }
    }

    /** Before an atomic at home: moves the dirty bytes of {@code mask} of {@code line} home and drops them here. */
    void evictBytes(Allocation a, long line, long mask) {
        long block = line & -CacheGeometry.SECTOR_SIZE;
        int k = (int) (line - block) / LINE;
        int s = set(block);
        int i = s * SET;
        int t = stripe(s);
        stripes.lock(t);
        try {
            catchUp(s, i);
            if (holds(s, i, a, block)) {
                long d = sets[i + DIRTY + k] & mask;
                if (d != 0 && !MemoryInternals.isFreed(a)) {
                    beforeHome(a, line, Math.min(LINE, a.base() + a.size() - line));
                    CacheLines.writeHome(d, a, line, sets, data, i + DATA + k * WORDS);
                    refreshHome(a, line, d);
                }
                sets[i + DIRTY + k] &= ~mask;
                sets[i + VALID + k] &= ~mask;
            }
        } finally {
            stripes.unlock(t);
        }
    }

    /** Writes every dirty byte home (of fine-grained sectors only when {@code fineOnly}); the sectors stay, clean. */
    void writeBackHome(boolean fineOnly) {
        for (int t = 0; t < STRIPES; t++) {
            stripes.lock(t);
            try {
                for (int w = t * wordsPerStripe; w < (t + 1) * wordsPerStripe; w++) {
                    long bits = dirtySets[w];
                    while (bits != 0) {
                        int s = (t << stripeShift) + (w - t * wordsPerStripe) * Long.SIZE + Long.numberOfTrailingZeros(bits);
                        bits &= bits - 1;
                        int i = s * SET;
                        if (!fineOnly || !owners[s].coarseGrainedAt(sets[i + TAG])) {
                            writeHome(s, i);
                        }
                    }
                }
            } finally {
                stripes.unlock(t);
            }
        }
    }

    /**
     * Drops every clean byte (of fine-grained sectors only when {@code fineOnly}); dirty bytes stay.
     * Lazy: counts the invalidation, and each set applies it before its next use ({@link #catchUp}).
     */
    void invalidateClean(boolean fineOnly) {
        EPOCH.getAndAdd(epochs, fineOnly ? FINE_EPOCH : FULL_EPOCH, 1L);
    }
}
