package org.hsa4j.signal;

/** Wait-state hints of {@code hsa_wait_state_t}. */
public enum WaitState {
    /** Spin briefly, then park until the signal changes: cheap on the CPU, slower to wake. */
    BLOCKED,
    /** Spin for up to {@link Signal#ACTIVE_SPIN_NANOS} before parking: fastest to wake. */
    ACTIVE
}
