package org.hsa4j.memory;

import java.nio.ByteOrder;

/**
 * The L1 of one GPU compute unit in fidelity mode (workgroup scope): private to the unit's thread,
 * so it has no lock. Loads fill missing bytes from the agent's L2; stores stay here, dirty, until an
 * agent- or system-scope release, the end of a workgroup of a packet with an agent or system release
 * fence, or an eviction writes them back to the L2. Direct-mapped: set {@code s} is {@link CacheLine}
 * {@code lines[s]}, one object for the life of the cache.
 */
final class UnitCache {
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final int LINE = CacheLine.LINE;

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
    private final CacheLine[] lines;

    UnitCache(CoherenceModel model, AgentCache l2, int agent, int lineCount) {
        this.model = model;
        this.l2 = l2;
        this.agent = agent;
        this.lines = new CacheLine[lineCount];
        for (int s = 0; s < lineCount; s++) {
            lines[s] = new CacheLine(this);
        }
    }

    private CacheLine setOf(long line) {
        return lines[CacheGeometry.set(line, lines.length)];
    }

    private void evict(CacheLine l) {
        if (l.dirty != 0) {
            l2.writeBack(l.owner, l.tag, l.dirty, l.words);
        }
        l.clear();
    }

    /**
     * Loads {@code size} bytes (1, 2, 4 or 8) at {@code address} of {@code a}, as bits (inside a line
     * sign-extended as {@link CacheLines#get}). A hit (the set holds the line and the bytes are valid) touches
     * nothing but this cache; a miss takes the line's missing bytes from the L2. An access that
     * crosses a line goes byte by byte.
     */
    long load(Allocation a, long address, int size) {
        long line = address & -LINE;
        int offset = (int) (address - line);
        if (offset + size > LINE) {
            return loadBytes(a, address, size);
        }
        long mask = CacheLines.bytes(offset, size);
        CacheLine l = setOf(line);
        if (l.tag != line || l.owner != a || (l.valid & mask) != mask) {
            miss(a, line, l);
        }
        return l.get(offset, size);
    }

    /** The line holding {@code address} of {@code a} with every byte of it inside {@code a} valid, filled from the L2 when it is not. */
    CacheLine lineForLoad(Allocation a, long address) {
        long line = address & -LINE;
        CacheLine l = setOf(line);
        long inside = CacheLines.inside(a, line);
        if (!l.holds(a, line) || (l.valid & inside) != inside) {
            miss(a, line, l);
        }
        return l;
    }

    /** Makes {@code l} hold every byte of {@code line} inside {@code a}, evicting the line it held. */
    private void miss(Allocation a, long line, CacheLine l) {
        if (!l.holds(a, line)) {
            evict(l);
            l.assign(a, line);
        }
        long need = CacheLines.inside(a, line) & ~l.valid;
        l2.fetch(a, line, need, l.words);
        l.valid |= need;
    }

    /** Stores the low {@code size} bytes (1, 2, 4 or 8) of {@code bits} at {@code address}: dirty here, nothing fetched. */
    void store(Allocation a, long address, int size, long bits) {
        long line = address & -LINE;
        int offset = (int) (address - line);
        if (offset + size > LINE) {
            storeBytes(a, address, size, bits);
            return;
        }
        lineForStore(a, line).put(offset, size, bits);
    }

    /** The line holding {@code address} of {@code a}, taken over (the old line written back) when the set held another; nothing fetched. */
    CacheLine lineForStore(Allocation a, long address) {
        long line = address & -LINE;
        CacheLine l = setOf(line);
        if (!l.holds(a, line)) {
            evict(l);
            l.assign(a, line);
        }
        return l;
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
        CacheLine l = setOf(line);
        if (l.holds(a, line)) {
            long d = l.dirty & mask;
            if (d != 0) {
                l2.writeBack(a, line, d, l.words);
                l.dirty &= ~mask;
            }
            l.dropClean();
        }
    }

    /** Release at agent scope or wider: every dirty byte goes to the L2; the lines stay, clean. */
    void writeBack() {
        for (CacheLine l : lines) {
            if (l.dirty != 0) {
                l2.writeBack(l.owner, l.tag, l.dirty, l.words);
                l.dirty = 0;
            }
        }
    }

    /** The unit stops running kernel code: no lease may outlive that. */
    void stop() {
        runner = null;
        for (CacheLine l : lines) {
            l.revoke();
        }
    }

    /** Acquire at agent scope or wider: every clean byte is dropped; the unit's own dirty bytes stay. */
    void invalidateClean() {
        for (CacheLine l : lines) {
            if (l.valid != 0) {
                l.dropClean();
            }
        }
    }
}
