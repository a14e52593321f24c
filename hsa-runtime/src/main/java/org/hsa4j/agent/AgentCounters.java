package org.hsa4j.agent;

/**
 * An immutable snapshot of an agent's scaling counters, summed over its compute units
 * ({@link Agent#counters()}). Each unit counts in its own cache line, so counting costs no shared
 * write; a snapshot reads every unit's line, so it is a moment's sum, not an atomic cut.
 *
 * @param packets      packets the processor role consumed (launched, completed barriers, rejected)
 * @param wakeUps      times a parked unit was unparked by another thread (a doorbell, a helper wake-up)
 * @param roleHandoffs times a unit took the processor role (each a compare-and-set on the role word)
 * @param casRetries   failed compare-and-sets and repeated claims of units contending for the role
 *                     or for launched work
 * @param parks        times a unit parked because it found nothing to do
 */
public record AgentCounters(long packets, long wakeUps, long roleHandoffs, long casRetries, long parks) {
    /** No events. */
    public static final AgentCounters ZERO = new AgentCounters(0, 0, 0, 0, 0);

    /** The events between {@code earlier} and this snapshot. */
    public AgentCounters minus(AgentCounters earlier) {
        return new AgentCounters(packets - earlier.packets, wakeUps - earlier.wakeUps,
                roleHandoffs - earlier.roleHandoffs, casRetries - earlier.casRetries, parks - earlier.parks);
    }

    /** Wake-ups per packet (0 with no packets). */
    public double wakeUpsPerPacket() {
        return per(wakeUps);
    }

    /** Role hand-offs per packet (0 with no packets). */
    public double roleHandoffsPerPacket() {
        return per(roleHandoffs);
    }

    /** CAS retries per packet (0 with no packets). */
    public double casRetriesPerPacket() {
        return per(casRetries);
    }

    /** Parks per packet (0 with no packets). */
    public double parksPerPacket() {
        return per(parks);
    }

    private double per(long events) {
        return packets == 0 ? 0 : (double) events / packets;
    }
}
