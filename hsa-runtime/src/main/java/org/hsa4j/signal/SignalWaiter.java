package org.hsa4j.signal;

/** Something to wake when a signal's value changes through the signal API: a parked thread, a packet processor. */
@FunctionalInterface
public interface SignalWaiter {
    /** Called by the thread that changed {@code signal}; must be short and must not block. */
    void signalChanged(Signal signal);
}
