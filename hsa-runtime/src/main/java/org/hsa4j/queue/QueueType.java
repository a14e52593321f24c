package org.hsa4j.queue;

/** Queue types ({@code hsa_queue_type_t}). */
public enum QueueType {
    /** Several producers may submit; they reserve slots with an atomic add on the write index. */
    MULTI(0),
    /** One producer only; its doorbell values must grow monotonically. */
    SINGLE(1);

    private final int code;

    QueueType(int code) {
        this.code = code;
    }

    /** The C enumerator value, as stored in the queue descriptor. */
    public int code() {
        return code;
    }
}
