package org.hsa4j.memory.coherence;

import java.nio.ByteOrder;

import org.hsa4j.memory.Allocation;

/**
 * The L1 of one GPU compute unit in fidelity mode (workgroup scope): private to the unit's thread,
 * so it has no lock. {@link CacheGeometry#L1_WAYS}-way set-associative by sector
 * ({@link CacheSector}: an aligned block of {@link CacheGeometry#SECTOR_LINES} lines), one object
 * per way for the life of the cache. A miss takes an empty way of its set, else the way filled
 * longest ago (first in, first out: a stream's sectors come back to a set in the order they left).
 *
 * <p>A load that misses fills every byte of its sector that lies inside the allocation and holds
 * no value yet, from the agent's L2 in one call (one L2 lock: the sector's lines sit in
 * consecutive L2 sets of one stripe), so the next lines of a stream are already here. Filling the
 * neighbours early changes nothing a program may rely on: they are as fresh as the missed line,
 * and any acquire that would have made a later read fresh drops them. A store never fetches: its
 * bytes stay here, dirty, until an agent- or system-scope release, the end of a workgroup of a
 * packet with an agent or system release fence, or an eviction writes them back to the L2, the
 * sector's dirty bytes in one call.
 */
final class UnitCache {
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final int LINE = CacheGeometry.LINE_SIZE;
    private static final int SECTOR = CacheGeometry.SECTOR_SIZE;
    private static final int LINES = CacheGeometry.SECTOR_LINES;
    private static final int WAYS = CacheGeometry.L1_WAYS;

    /** The model this cache belongs to (a thread of another runtime's model never uses it). */
    final CoherenceModel model;
    /** The agent's L2. */
    final AgentCache l2;
    /** Index of the agent this unit belongs to. */
    final int agent;
    /** The agent's launch-acquire count this cache last invalidated for. */
    long acquiredEpoch;
    /**
     * The unit's thread while it runs a workgroup, else null: only kernel code goes through the
     * caches. Between workgroups the unit is the packet processor, whose own accesses (the
     * completion signal's decrement above all) are the runtime's, not the kernel's, and must not
     * release its data. Written by the unit's thread only, so a plain field: no other thread can
     * ever find itself here.
     */
    Thread runner;
    /** The ways of set {@code s} at {@code s * WAYS ..}. */
    private final CacheSector[] sectors;
    /** Per set, the way the next miss replaces when none is empty. */
    private final byte[] nextVictim;
    private final int setCount;
    /** Per line of a sector being filled, the bytes it needs from the L2 (the unit's thread only). */
    private final long[] need = new long[LINES];
    /** Per line of a sector being written back, its dirty bytes (the unit's thread only). */
    private final long[] scratch = new long[LINES];

    /** An L1 of {@code setCount} sets (a power of two) of {@link CacheGeometry#L1_WAYS} sectors. */
    UnitCache(CoherenceModel model, AgentCache l2, int agent, int setCount) {
        this.model = model;
        this.l2 = l2;
        this.agent = agent;
        this.setCount = setCount;
        this.sectors = new CacheSector[setCount * WAYS];
        this.nextVictim = new byte[setCount];
        for (int s = 0; s < sectors.length; s++) {
            sectors[s] = new CacheSector(this);
        }
    }

    /** A per-line mask array for the unit's thread, reused by every call. */
    long[] scratch() {
        return scratch;
    }

    /** The sector holding {@code block} of {@code a}, or null. */
    private CacheSector find(Allocation a, long block) {
        int first = CacheGeometry.sector(block, setCount) * WAYS;
        for (int w = first; w < first + WAYS; w++) {
            if (sectors[w].holds(a, block)) {
                return sectors[w];
            }
        }
        return null;
    }

    /** A sector of {@code block}'s set made to hold an empty copy of {@code block} of {@code a}: an empty way, else the oldest, written back first. */
    private CacheSector replace(Allocation a, long block) {
        int set = CacheGeometry.sector(block, setCount);
        int first = set * WAYS;
        CacheSector c = null;
        for (int w = first; w < first + WAYS && c == null; w++) {
            if (sectors[w].tag == 0) {
                c = sectors[w];
            }
        }
        if (c == null) {
            int way = nextVictim[set];
            nextVictim[set] = (byte) ((way + 1) % WAYS);
            c = sectors[first + way];
            evict(c);
        }
        c.assign(a, block);
        return c;
    }

    /** Writes the dirty bytes of the block {@code c} holds back to the L2, before {@code c} takes another. */
    private void evict(CacheSector c) {
        long[] dirty = c.dirtyMasks();
        if (dirty != null) {
            l2.writeBack(c.owner, c.tag, c, dirty);
        }
    }

    /**
     * Loads {@code size} bytes (1, 2, 4 or 8) at {@code address} of {@code a}, as bits (inside a line
     * sign-extended as {@link CacheLines#get}). A hit (the set holds the block and the bytes hold
     * values) touches nothing but this cache; a miss fills the sector from the L2. An access that
     * crosses a line goes byte by byte.
     */
    long load(Allocation a, long address, int size) {
        int inLine = (int) (address & (LINE - 1));
        if (inLine + size > LINE) {
            return loadBytes(a, address, size);
        }
        long block = address & -SECTOR;
        int offset = (int) (address - block);
        long mask = CacheLines.bytes(inLine, size);
        CacheSector c = find(a, block);
        if (c == null || (c.held(offset / LINE) & mask) != mask) {
            c = miss(a, block, c);
        }
        return c.get(offset, size);
    }

    /** The sector holding {@code address} of {@code a} with every byte of it inside {@code a} holding a value, filled from the L2 when it is not. */
    CacheSector sectorForLoad(Allocation a, long address) {
        long block = address & -SECTOR;
        CacheSector c = find(a, block);
        if (c == null || !c.whole()) {
            c = miss(a, block, c);
        }
        return c;
    }

    /** Makes a sector hold every byte of {@code block} inside {@code a}: {@code c}, which holds it already, or a replaced one when {@code c} is null. */
    private CacheSector miss(Allocation a, long block, CacheSector c) {
        if (c == null) {
            c = replace(a, block);
            if (block + SECTOR <= a.base() + a.size()) {
                fetchWhole(a, block, c);
                return c;
            }
        }
        long any = 0;
        for (int k = 0; k < LINES; k++) {
            need[k] = CacheLines.inside(a, block + (long) k * LINE) & ~c.held(k);
            any |= need[k];
        }
        if (any != 0) {
            l2.fetch(a, block, need, c);
            for (int k = 0; k < LINES; k++) {
                c.valid[k] |= need[k];
            }
        }
        return c;
    }

    /** Fills {@code c}, just assigned to a block wholly inside {@code a}, with every byte of it. */
    private void fetchWhole(Allocation a, long block, CacheSector c) {
        for (int k = 0; k < LINES; k++) {
            need[k] = -1L;
        }
        l2.fetch(a, block, need, c);
        for (int k = 0; k < LINES; k++) {
            c.valid[k] = -1L;
        }
    }

    /** Stores the low {@code size} bytes (1, 2, 4 or 8) of {@code bits} at {@code address}: dirty here, nothing fetched. */
    void store(Allocation a, long address, int size, long bits) {
        if ((int) (address & (LINE - 1)) + size > LINE) {
            storeBytes(a, address, size, bits);
            return;
        }
        sectorForStore(a, address).put((int) (address & (SECTOR - 1)), size, bits);
    }

    /** The sector holding {@code address} of {@code a}, taken over (the old block written back) when the set held another; nothing fetched. */
    CacheSector sectorForStore(Allocation a, long address) {
        long block = address & -SECTOR;
        CacheSector c = find(a, block);
        return c != null ? c : replace(a, block);
    }

    /** A load that crosses a line, one byte at a time (the bytes in memory order make the value in native order; not sign-extended). */
    private long loadBytes(Allocation a, long address, int size) {
        long bits = 0;
        for (int k = 0; k < size; k++) {
            long b = load(a, address + k, 1) & 0xFF;
            bits |= b << (8 * (LITTLE_ENDIAN ? k : size - 1 - k));
        }
        return bits;
    }

    /** A store that crosses a line, one byte at a time. */
    private void storeBytes(Allocation a, long address, int size, long bits) {
        for (int k = 0; k < size; k++) {
            store(a, address + k, 1, bits >>> (8 * (LITTLE_ENDIAN ? k : size - 1 - k)));
        }
    }

    /**
     * Before an atomic on {@code mask} of {@code line}: its own dirty bytes go down to the L2 (the
     * unit's earlier store precedes its atomic), and the line keeps only its other dirty bytes, so
     * no clean copy in this L1 shadows the atomic's location afterwards.
     */
    void prepareAtomic(Allocation a, long line, long mask) {
        long block = line & -SECTOR;
        CacheSector c = find(a, block);
        if (c != null) {
            int k = (int) (line - block) / LINE;
            long d = c.dirtyMask(k) & mask;
            if (d != 0) {
                l2.writeBackLine(a, line, d, c.segment, (long) k * LINE);
                c.forget(k, d);
            }
            c.dropLine(k);
        }
    }

    /** Release at agent scope or wider: every dirty byte goes to the L2; the sectors stay, clean. */
    void writeBack() {
        for (CacheSector c : sectors) {
            long[] dirty;
            if (c.tag != 0 && (dirty = c.dirtyMasks()) != null) {
                l2.writeBack(c.owner, c.tag, c, dirty);
                c.wroteBack(dirty);
            }
        }
    }

    /** The unit stops running kernel code: no lease may outlive that. */
    void stop() {
        runner = null;
        for (CacheSector c : sectors) {
            c.revoke();
        }
    }

    /**
     * Any thread, after freeing {@code a}: revokes the lease of every sector holding a block of
     * {@code a}. The reads of the sectors' owners race with the unit's thread, which rechecks the
     * flag after each grant; a spurious revocation only sends one access down the checked path.
     */
    void revokeLeasesOf(Allocation a) {
        for (CacheSector c : sectors) {
            if (c.owner == a) {
                c.revoke();
            }
        }
    }

    /** Acquire at agent scope or wider: every clean byte is dropped; the unit's own dirty bytes stay. */
    void invalidateClean() {
        for (CacheSector c : sectors) {
            if (c.tag != 0) {
                c.dropClean();
            }
        }
    }
}
