package org.hsa4j.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The layout of an agent's per-unit counters: one run of {@link #STRIDE} longs (128 bytes, two
 * cache lines, so no adjacent-line prefetch pair is shared) per compute unit, with a run of padding
 * before the first. Counter {@code c} of unit {@code u} is at {@code (u + 1) * STRIDE + c}.
 *
 * <p>Only unit {@code u}'s own thread writes its run (an opaque read and an opaque write: one
 * writer, so no read-modify-write is needed), and any thread may read: {@link #snapshot()} sums
 * the runs with opaque loads.
 */
final class UnitCounters {
    /** Packets consumed by the processor role while this unit held it. */
    static final int PACKETS = 0;
    /** Times this unit came back from a park that another thread's wake ended. */
    static final int WAKE_UPS = 1;
    /** Times this unit took the processor role. */
    static final int ROLE_HANDOFFS = 2;
    /** This unit's failed compare-and-sets and repeated claims. */
    static final int CAS_RETRIES = 3;
    /** Times this unit parked. */
    static final int PARKS = 4;
    /** Longs per unit: 128 bytes. */
    static final int STRIDE = 16;

    private static final VarHandle COUNT = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] counts;
    private final int units;

    UnitCounters(int units) {
        this.units = units;
        this.counts = new long[(units + 2) * STRIDE];
    }

    /** Adds one to counter {@code counter} of {@code unit}; only that unit's thread calls this. */
    void increment(int unit, int counter) {
        add(unit, counter, 1);
    }

    /** Adds {@code n} to counter {@code counter} of {@code unit}; only that unit's thread calls this. */
    void add(int unit, int counter, long n) {
        int i = (unit + 1) * STRIDE + counter;
        COUNT.setOpaque(counts, i, (long) COUNT.getOpaque(counts, i) + n);
    }

    /** Counter {@code counter} summed over the units (opaque loads). */
    long sum(int counter) {
        long s = 0;
        for (int u = 0; u < units; u++) {
            s += (long) COUNT.getOpaque(counts, (u + 1) * STRIDE + counter);
        }
        return s;
    }

    /** Counter {@code counter} of {@code unit} alone (an opaque load). */
    long get(int unit, int counter) {
        return (long) COUNT.getOpaque(counts, (unit + 1) * STRIDE + counter);
    }

    /** A snapshot of every counter summed over the units. */
    AgentCounters snapshot() {
        return new AgentCounters(sum(PACKETS), sum(WAKE_UPS), sum(ROLE_HANDOFFS), sum(CAS_RETRIES), sum(PARKS));
    }
}
