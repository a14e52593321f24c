package org.hsa4j.cuda;

import org.hsa4j.queue.Queue;
import org.hsa4j.status.HsaException;

/**
 * What serves one queue of a {@link CudaAgent}, chosen once when the queue is made: the host-side
 * {@link CudaQueueProcessor} (the default) or the GPU-resident {@link CudaResidentProcessor}.
 */
interface CudaQueueServer {
    /** The queue served. */
    Queue queue();

    /** Starts serving. */
    void start();

    /** Stops within about {@code timeoutNanos} (not when called from its own thread). */
    void stop(long timeoutNanos);

    /** The agent recreated (or lost) the context after another queue's fault: this queue's work there is gone. */
    void contextLost(HsaException cause);

    /** True when the queue's memory must outlive it (a GPU grid that did not stop still reads it). */
    default boolean holdsQueueMemory() {
        return false;
    }

    /** Fails and consumes every published packet; true when there was one. */
    boolean drainPublished(HsaException reason);
}
