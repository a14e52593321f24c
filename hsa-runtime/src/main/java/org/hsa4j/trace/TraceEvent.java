package org.hsa4j.trace;

/**
 * One Chrome trace event as the tracer hands it to its sink: phase {@code ph} ('X' complete, 'b'/'e'
 * async begin/end), times in nanoseconds of the runtime's clock, the process and thread it belongs
 * to with their display names, an async id or null, and arguments as name/value pairs.
 */
record TraceEvent(char ph, String cat, String name, int pid, String process, long tid, String thread, long ts,
                  long dur, String id, Object... args) {
    /**
     * The process of host threads (waits, service calls); agent {@code i} is process {@code i + 1}
     * (at most 64 agents). Not 0, which Perfetto keeps for the kernel's idle process.
     */
    static final int HOST_PID = 100;
    /** Queue {@code q}'s track in its agent's process is thread {@code QUEUE_TID + q}; compute unit {@code u} is thread {@code u}. */
    static final long QUEUE_TID = 1_000_000;
}
