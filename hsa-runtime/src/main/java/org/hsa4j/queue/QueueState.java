package org.hsa4j.queue;

/** Life cycle of a queue. */
public enum QueueState {
    /** Packets are processed. */
    ACTIVE,
    /** {@code hsa_queue_inactivate} was called: no further packet is launched. */
    INACTIVE,
    /** A packet failed: the error callback ran; the queue can only be inactivated or destroyed. */
    ERROR,
    /** Destroyed: its memory is released. */
    DESTROYED
}
