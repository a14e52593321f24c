package org.hsa4j.agent.spi;

import org.hsa4j.agent.Agent;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueErrorCallback;
import org.hsa4j.queue.QueueType;
import org.hsa4j.status.HsaException;

/**
 * What serves the queues of a <i>provided</i> agent ({@code runtime.spi.AgentFactory.provided}): an agent whose packets
 * something other than the runtime's compute units process, such as a real GPU behind a driver
 * (module hsa-cuda). Chosen once, when the agent is made: {@link Agent#createQueue} of a provided
 * agent hands the call to its backend, which returns one of the runtime's own {@link Queue}s with
 * that agent as owner, so the host writes it exactly as for a CPU-pool agent.
 */
public interface QueueBackend {
    /** {@code hsa_queue_create} for the provided agent; the same statuses as {@link Agent#createQueue}. */
    Queue createQueue(int size, QueueType type, QueueErrorCallback errorCallback);

    /** Number of live queues. */
    int queueCount();

    /**
     * Stops serving within about {@code timeoutNanos}: destroys the queues (their pending packets fail
     * with {@code reason}) and releases the device. Called once by the runtime as it shuts down;
     * must not throw.
     */
    void shutdown(HsaException reason, long timeoutNanos);
}
