package org.hsa4j.trace;

/** Where a recording tracer's events go: a {@link TraceFile}, or nowhere (statistics only). */
interface EventSink {
    /** A sink that drops every event. */
    EventSink NONE = new EventSink() {
        @Override
        public void add(TraceEvent e) {
        }

        @Override
        public void close() {
        }
    };

    /** Takes {@code e} without blocking (a full sink drops and counts it). */
    void add(TraceEvent e);

    /** Writes out what is left and closes, bounded. */
    void close();
}
