package org.hsa4j.memory;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The runtime-wide side of page accounting: whether XNACK is on, and the migration counters
 * per agent (summed for the runtime's totals).
 */
public final class PageAccounting {
    /** Most agents counted: agent indices fit in 64-bit access masks. */
    static final int MAX_AGENTS = 64;

    private final boolean xnack;
    private final AtomicLongArray faultMigrations = new AtomicLongArray(MAX_AGENTS);
    private final AtomicLongArray prefetchMigrations = new AtomicLongArray(MAX_AGENTS);
    private final AtomicLongArray remoteAccesses = new AtomicLongArray(MAX_AGENTS);
    private final AtomicLongArray duplications = new AtomicLongArray(MAX_AGENTS);
    private final AtomicLongArray faults = new AtomicLongArray(MAX_AGENTS);

    /** Accounting for a runtime with XNACK {@code xnack}. */
    public PageAccounting(boolean xnack) {
        this.xnack = xnack;
    }

    /** True when pages migrate on fault and GPUs may touch plain system memory. */
    public boolean xnack() {
        return xnack;
    }

    void countFaultMigration(int agent) {
        faultMigrations.incrementAndGet(agent);
    }

    void countPrefetchMigration(int agent) {
        prefetchMigrations.incrementAndGet(agent);
    }

    void countRemoteAccess(int agent) {
        remoteAccesses.incrementAndGet(agent);
    }

    void countDuplication(int agent) {
        duplications.incrementAndGet(agent);
    }

    void countFault(int agent) {
        faults.incrementAndGet(agent);
    }

    /** The counters of the agent with index {@code agent}. */
    public MigrationStats stats(int agent) {
        return new MigrationStats(faultMigrations.get(agent), prefetchMigrations.get(agent),
                remoteAccesses.get(agent), duplications.get(agent), faults.get(agent));
    }

    /** The counters summed over every agent. */
    public MigrationStats totals() {
        long m = 0;
        long p = 0;
        long r = 0;
        long d = 0;
        long f = 0;
        for (int i = 0; i < MAX_AGENTS; i++) {
            m += faultMigrations.get(i);
            p += prefetchMigrations.get(i);
            r += remoteAccesses.get(i);
            d += duplications.get(i);
            f += faults.get(i);
        }
        return new MigrationStats(m, p, r, d, f);
    }
}
