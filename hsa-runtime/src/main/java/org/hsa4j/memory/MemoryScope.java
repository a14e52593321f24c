package org.hsa4j.memory;

/**
 * Memory scopes of the HSA memory model, narrowest first. A synchronizing pair is guaranteed to
 * synchronize only when each side's scope includes the other party. In normal mode hsa4j's memory
 * is coherent at every scope; the scope is carried for the checking (fidelity) mode.
 */
public enum MemoryScope {
    /** The single work-item. */
    WORK_ITEM,
    /** The work-items of one wavefront. */
    WAVEFRONT,
    /** The work-items of one workgroup (one compute unit). */
    WORKGROUP,
    /** Every work-item on one agent. */
    AGENT,
    /** Every agent and the host. */
    SYSTEM;

    /** True when this scope contains {@code other}. */
    public boolean includes(MemoryScope other) {
        return compareTo(other) >= 0;
    }
}
