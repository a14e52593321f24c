package org.hsa4j.queue;

/**
 * What a queue's packet processor does with a packet that the runtime's own launch call
 * ({@link Queue#launch}) has written and is about to publish: the body is in the slot, the header not
 * yet. A device module sets it once per queue ({@code QueueFactory.observePublish}), before the queue
 * is handed out; applications never see it. The GPU-resident processor copies the packet to where its
 * device reads it in the header's PCIe round trip, so the copy is there before the header is.
 * Packets written through the raw AQL protocol are not observed.
 */
@FunctionalInterface
public interface PublishObserver {
    /** The observer of a queue nobody observes. */
    PublishObserver NONE = (queue, id, headerWord) -> { };

    /**
     * Packet {@code id} of {@code queue} is written; {@code headerWord} (header and setup, as
     * {@code PacketHeader.word}) is what the caller stores next, with release. Called on the
     * producer's thread: must be short, must not block or throw.
     */
    void beforePublish(Queue queue, long id, int headerWord);
}
