package org.hsa4j.trace;

/**
 * What one queue ran, as a recording tracer counted it: dispatch packets (kernel and agent
 * dispatches) with their launch-to-completion times, barrier packets, and failed packets.
 *
 * @param queueId    the queue's id ({@code Queue.id()})
 * @param agent      the name of the agent whose queue it is ("" when it ran nothing)
 * @param dispatches dispatch packets completed (failures included)
 * @param barriers   barrier packets completed
 * @param failures   dispatch packets that failed
 * @param totalNanos sum of the dispatches' launch-to-completion times
 * @param minNanos   shortest of those times (0 when none)
 * @param maxNanos   longest of those times (0 when none)
 */
public record QueueStatistics(long queueId, String agent, long dispatches, long barriers, long failures,
                              long totalNanos, long minNanos, long maxNanos) {
    /** A queue that ran nothing (or a runtime that keeps no statistics). */
    public static QueueStatistics none(long queueId) {
        return new QueueStatistics(queueId, "", 0, 0, 0, 0, 0, 0);
    }

    /** Mean launch-to-completion time in nanoseconds (0 when none). */
    public long meanNanos() {
        return dispatches == 0 ? 0 : totalNanos / dispatches;
    }
}
