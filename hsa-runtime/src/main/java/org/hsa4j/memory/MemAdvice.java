package org.hsa4j.memory;

/** Advice for a range of managed or plain system memory ({@code hipMemAdvise}). */
public enum MemAdvice {
    /** Pages fault-migrate only to the given agent; other agents access them in place. */
    SET_PREFERRED_LOCATION,
    /** Removes the preferred location. */
    UNSET_PREFERRED_LOCATION,
    /** Reads by other agents duplicate the page instead of migrating it; a write collapses the copies. */
    SET_READ_MOSTLY,
    /** Removes read-mostly; existing copies collapse to the page's location. */
    UNSET_READ_MOSTLY,
    /** The range behaves as coarse-grained memory (cached by agents, unsafe FP atomics work on it). */
    SET_COARSE_GRAIN,
    /** The range is fine-grained again. */
    UNSET_COARSE_GRAIN
}
