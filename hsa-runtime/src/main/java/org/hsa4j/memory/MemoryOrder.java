package org.hsa4j.memory;

/**
 * Memory orders of the HSA memory model. In the runtime's own atomics (signals, queue indices,
 * packet headers and {@link Svm} atomics) acquire and release are HSA's sequentially consistent
 * {@code scacquire} and {@code screlease}: they map to volatile accesses, so store buffering stays
 * forbidden. {@link #RELAXED} maps to opaque access: atomic and coherent, but unordered.
 * Read-modify-writes always run at volatile strength, which is a valid strengthening of every order.
 */
public enum MemoryOrder {
    /** Atomic and coherent, no ordering: opaque access. */
    RELAXED,
    /** HSA scacquire: a load that later accesses cannot move above; volatile load. */
    ACQUIRE,
    /** HSA screlease: a store that earlier accesses cannot move below; volatile store. */
    RELEASE,
    /** Both scacquire and screlease; for read-modify-writes and fences. */
    ACQ_REL,
    /** Sequentially consistent. */
    SEQ_CST;

    /** True when this order may be used on an atomic load. */
    public boolean validForLoad() {
        return this != RELEASE && this != ACQ_REL;
    }

    /** True when this order may be used on an atomic store. */
    public boolean validForStore() {
        return this != ACQUIRE && this != ACQ_REL;
    }
}
