package org.hsa4j.services.rpc;

/** Where a service runs. */
public enum ServiceMode {
    /**
     * On the server thread that found the call: for services that finish in a few microseconds
     * and never block (getpid, clock_gettime, malloc), or that only start asynchronous work and
     * {@linkplain ServerCall#defer() defer} the reply (network, nanosleep).
     */
    INLINE,
    /**
     * For services that may block (file I/O, payload exchanges): on the server thread that found
     * the call when no other server thread runs such a call and no other port waits (the
     * substitute server thread then scans in its place while it runs, so one slow call never
     * stalls the scanning of other ports), else on a handler thread, handed over through the
     * Disruptor ring.
     */
    HANDLER
}
