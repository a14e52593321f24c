package org.hsa4j.memory;

import java.nio.ByteOrder;

/**
 * The L1 of one GPU compute unit in fidelity mode (workgroup scope): private to the unit's thread,
 * so it has no lock. Loads fill missing bytes from the agent's L2; stores stay here, dirty, until an
 * agent- or system-scope release, the end of a workgroup of a packet with an agent or system release
 * fence, or an eviction writes them back to the L2.
 */
final class UnitCache {
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /** The model this cache belongs to (a thread of another runtime's model never uses it). */
    final CoherenceModel model;
    /** The agent's L2. */
    final AgentCache l2;
    /** Index of the agent this unit belongs to. */
    final int agent;
    /** The agent's launch-acquire count this cache last invalidated for. */
    long acquiredEpoch;
    /**
     * True while the unit runs a workgroup: only kernel code goes through the caches. Between
     * workgroups the unit is the packet processor, whose own accesses (the completion signal's
     * decrement above all) are the runtime's, not the kernel's, and must not release its data.
     */
    boolean running;
    private final CacheLines lines;
    /** The arrays of {@link #lines}, held here too so a hit is one load shorter. */
    private final long[] tags;
    private final Allocation[] owners;
    private final long[] valid;
    private final long[] dirty;
    private final int lineCount;

    UnitCache(CoherenceModel model, AgentCache l2, int agent, int lineCount) {
        this.model = model;
        this.l2 = l2;
        this.agent = agent;
        this.lines = new CacheLines(lineCount);
        this.tags = lines.tags;
        this.owners = lines.owners;
        this.valid = lines.valid;
        this.dirty = lines.dirty;
        this.lineCount = lineCount;
    }

    private void evict(int s) {
        long d = lines.dirty[s];
        if (d != 0) {
            l2.writeBack(lines.owners[s], lines.tags[s], d, lines, s);
        }
        lines.clear(s);
    }

    /**
     * Loads {@code size} bytes (1, 2, 4 or 8) at {@code address} of {@code a}, as bits (inside a line
     * sign-extended as {@link CacheLines#get}). A hit (the set holds the line and the bytes are valid) touches
     * nothing but this cache; a miss takes the line's missing bytes from the L2. An access that
     * crosses a line goes byte by byte.
     */
    long load(Allocation a, long address, int size) {
        long line = address & -CacheLines.LINE;
        int offset = (int) (address - line);
        if (offset + size > CacheLines.LINE) {
            return loadBytes(a, address, size);
        }
        long mask = CacheLines.bytes(offset, size);
        int s = CacheGeometry.set(line, lineCount);
        if (tags[s] != line || owners[s] != a || (valid[s] & mask) != mask) {
            miss(a, line, s);
        }
        return CacheLines.inOneWord(offset, size) ? lines.getWord(s, offset, size)
                : CacheLines.get(lines.data, (long) s * CacheLines.LINE + offset, size);
    }

    /** Makes set {@code s} hold every byte of {@code line} inside {@code a}, evicting the line it held. */
    private void miss(Allocation a, long line, int s) {
        if (!lines.holds(s, a, line)) {
            evict(s);
            lines.assign(s, a, line);
        }
        long need = CacheLines.inside(a, line) & ~lines.valid[s];
        l2.fetch(a, line, need, lines, s);
        lines.valid[s] |= need;
    }

    /** Stores the low {@code size} bytes (1, 2, 4 or 8) of {@code bits} at {@code address}: dirty here, nothing fetched. */
    void store(Allocation a, long address, int size, long bits) {
        long line = address & -CacheLines.LINE;
        int offset = (int) (address - line);
        if (offset + size > CacheLines.LINE) {
            storeBytes(a, address, size, bits);
            return;
        }
        int s = CacheGeometry.set(line, lineCount);
        if (tags[s] != line || owners[s] != a) {
            evict(s);
            lines.assign(s, a, line);
        }
        if (CacheLines.inOneWord(offset, size)) {
            lines.putWord(s, offset, size, bits);
        } else {
            CacheLines.put(lines.data, (long) s * CacheLines.LINE + offset, size, bits);
        }
        long mask = CacheLines.bytes(offset, size);
        valid[s] |= mask;
        dirty[s] |= mask;
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
        int s = lines.set(line);
        if (lines.holds(s, a, line)) {
            long d = lines.dirty[s] & mask;
            if (d != 0) {
                l2.writeBack(a, line, d, lines, s);
                lines.dirty[s] &= ~mask;
            }
            lines.dropClean(s);
        }
    }

    /** Release at agent scope or wider: every dirty byte goes to the L2; the lines stay, clean. */
    void writeBack() {
        for (int s = 0; s < lines.lines; s++) {
            long d = lines.dirty[s];
            if (d != 0) {
                l2.writeBack(lines.owners[s], lines.tags[s], d, lines, s);
                lines.dirty[s] = 0;
            }
        }
    }

    /** Acquire at agent scope or wider: every clean byte is dropped; the unit's own dirty bytes stay. */
    void invalidateClean() {
        for (int s = 0; s < lines.lines; s++) {
            if (lines.valid[s] != 0) {
                lines.dropClean(s);
            }
        }
    }
}
