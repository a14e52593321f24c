package org.hsa4j.kernel;

/** {@code hsa_executable_state_t}. */
public enum ExecutableState {
    /** Definitions and loads are allowed; symbols cannot be looked up yet. */
    UNFROZEN,
    /** No more definitions; symbols can be looked up. */
    FROZEN
}
