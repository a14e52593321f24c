package org.hsa4j.memory;

/**
 * The L1 of one GPU compute unit in fidelity mode (workgroup scope): private to the unit's thread,
 * so it has no lock. Loads fill missing bytes from the agent's L2; stores stay here, dirty, until an
 * agent- or system-scope release, the end of a workgroup of a packet with an agent or system release
 * fence, or an eviction writes them back to the L2.
 */
final class UnitCache {
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

    UnitCache(CoherenceModel model, AgentCache l2, int agent, int lineCount) {
        this.model = model;
        this.l2 = l2;
        this.agent = agent;
        this.lines = new CacheLines(lineCount);
    }

    /** Makes the set of {@code line} hold it, writing back the line it evicts; returns the set. */
    private int claim(Allocation a, long line) {
        int s = lines.set(line);
        if (!lines.holds(s, a, line)) {
            evict(s);
            lines.assign(s, a, line);
        }
        return s;
    }

    private void evict(int s) {
        long d = lines.dirty[s];
        if (d != 0) {
            l2.writeBack(lines.owners[s], lines.tags[s], d, lines.data, (long) s * CacheLines.LINE);
        }
        lines.clear(s);
    }

    /** Loads {@code size} bytes (1, 2, 4 or 8, inside one line) at {@code address} of {@code a}, as bits. */
    long load(Allocation a, long address, int size) {
        long line = address & -CacheLines.LINE;
        int offset = (int) (address - line);
        long mask = CacheLines.bytes(offset, size);
        int s = claim(a, line);
        if ((lines.valid[s] & mask) != mask) {
            long need = CacheLines.inside(a, line) & ~lines.valid[s];
            l2.fetch(a, line, need, lines.data, (long) s * CacheLines.LINE);
            lines.valid[s] |= need;
        }
        return CacheLines.get(lines.data, (long) s * CacheLines.LINE + offset, size);
    }

    /** Stores the low {@code size} bytes (1, 2, 4 or 8, inside one line) of {@code bits} at {@code address}. */
    void store(Allocation a, long address, int size, long bits) {
        long line = address & -CacheLines.LINE;
        int offset = (int) (address - line);
        long mask = CacheLines.bytes(offset, size);
        int s = claim(a, line);
        CacheLines.put(lines.data, (long) s * CacheLines.LINE + offset, size, bits);
        lines.valid[s] |= mask;
        lines.dirty[s] |= mask;
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
                l2.writeBack(a, line, d, lines.data, (long) s * CacheLines.LINE);
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
                l2.writeBack(lines.owners[s], lines.tags[s], d, lines.data, (long) s * CacheLines.LINE);
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
