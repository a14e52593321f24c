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
     * On a handler thread, handed over through the Disruptor ring: for services that may block
     * (file I/O, payload exchanges), so one slow call never stalls the scanning of other ports.
     */
    HANDLER
}
