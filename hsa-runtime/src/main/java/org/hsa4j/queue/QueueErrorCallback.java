package org.hsa4j.queue;

import org.hsa4j.status.HsaException;

/** The callback given at queue creation; called once when the queue enters the error state. */
@FunctionalInterface
public interface QueueErrorCallback {
    /** Reports the status (and message) that put {@code queue} in the error state. Must not block for long. */
    void onError(HsaException error, Queue queue);
}
