package org.hsa4j.trace;

/**
 * What one kernel (by name) did over all queues, as a recording tracer counted it, like
 * {@code rocprofv3 --stats}: dispatches and their launch-to-completion times. An agent dispatch
 * handler counts under "agent dispatch type N".
 *
 * @param kernel     the kernel's name
 * @param dispatches dispatches completed (failures included)
 * @param failures   dispatches that failed
 * @param workgroups workgroups run
 * @param totalNanos sum of the launch-to-completion times
 * @param minNanos   shortest of those times
 * @param maxNanos   longest of those times
 */
public record KernelStatistics(String kernel, long dispatches, long failures, long workgroups, long totalNanos,
                               long minNanos, long maxNanos) {
    /** Mean launch-to-completion time in nanoseconds (0 when none). */
    public long meanNanos() {
        return dispatches == 0 ? 0 : totalNanos / dispatches;
    }
}
