package org.hsa4j.queue;

/**
 * The packet a compute unit is running, as {@code ComputeUnitThread.currentWork()} shows it: which
 * queue and which packet id. Layers that wait on packets use it to refuse a wait that can never
 * end (a kernel waiting for a later packet of its own in-order queue).
 */
public interface RunningPacket {
    /** The id of the queue the packet came from ({@code Queue.id()}). */
    long queueId();

    /** The packet's id in that queue. */
    long packetId();
}
