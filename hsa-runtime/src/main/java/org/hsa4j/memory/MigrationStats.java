package org.hsa4j.memory;

/**
 * Page accounting counters for managed and plain system memory, for the whole runtime or for one
 * agent (the agent that touched the page, or the prefetch destination).
 *
 * @param faultMigrations        pages that migrated to the agent that touched them (XNACK on)
 * @param prefetchMigrations     pages that migrated because of a prefetch
 * @param remoteAccesses         pages an agent started to access in place, where they lie
 * @param readMostlyDuplications read-only copies made of read-mostly pages
 * @param faults                 accesses refused with a memory fault (a GPU on plain system memory, XNACK off)
 */
public record MigrationStats(long faultMigrations, long prefetchMigrations, long remoteAccesses,
                             long readMostlyDuplications, long faults) {
}
