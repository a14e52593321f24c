package org.hsa4j.agent;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.queue.Queue;

/**
 * The packet processor's private state for one queue. Plain fields are touched only by the
 * compute unit that holds the agent's processor role; handing the role over is a volatile
 * write and a successful compare-and-set, which orders them between holders.
 */
final class QueueSlot {
    final Queue queue;
    final MemorySegment ring;
    final long mask;
    /** Packets launched and not yet completed; decremented by compute units. */
    final AtomicInteger inflight = new AtomicInteger();
    /** Next packet id to consume (mirrors the read index). */
    long readIndex;
    /** The doorbell value the role holder saw before its last scan (role holder only). */
    long doorbellSeen;
    /** The dependencies of the barrier packet at the read index, when there is one. */
    final BarrierWatch barrier;
    /**
     * Packet id the processor stopped at because it cannot launch yet (barrier bit with packets in
     * flight, or a barrier packet's dependencies), or -1. Read without the role by
     * {@link PacketProcessor#hasPublishedWork()}; whatever unblocks it bumps the epoch.
     */
    volatile long blockedIndex = -1;
    /**
     * True when the stop at {@link #blockedIndex} is the barrier bit's (packets in flight), which is
     * over once {@code inflight} reaches 0; false for a barrier packet's dependencies. Written
     * before {@code blockedIndex}.
     */
    volatile boolean blockedOnBarrierBit;

    QueueSlot(Queue queue, BarrierWatch barrier) {
        this.queue = queue;
        this.barrier = barrier;
        this.ring = queue.ring();
        this.mask = queue.size() - 1;
    }
}
