package org.hsa4j.cuda;

import java.lang.foreign.MemorySegment;

import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.signal.SignalManager;
import org.hsa4j.status.HsaException;

/**
 * A host-side packet processor's read position in its queue's ring ({@link CudaQueueProcessor},
 * {@link CudaServerQueueProcessor}): where the next packet is, consuming it (slot INVALID, then the
 * read index released), failing it (consumed, the queue's error raised, its completion signal
 * failed) and draining what a queue that left the active state still holds. Only the processor's
 * thread uses it.
 */
final class HostRingCursor {
    private final Queue queue;
    private final MemorySegment ring;
    private final SignalManager signals;
    private long readIndex;

    HostRingCursor(Queue queue, SignalManager signals) {
        this.queue = queue;
        this.ring = queue.ring();
        this.signals = signals;
    }

    /** Packet id of the next packet. */
    long readIndex() {
        return readIndex;
    }

    /** Byte offset in the ring of the next packet's slot. */
    long offset() {
        return queue.slotOffset(readIndex);
    }

    /** Consumes the packet at {@code off}: its slot INVALID, then the read index moves on (release). */
    void consume(long off) {
        AqlPacket.storeInvalid(ring, off);
        readIndex++;
        queue.storeReadIndexScrelease(readIndex);
    }

    /** Consumes the packet at {@code off}, raises {@code e} on the queue, then fails the packet's completion signal. */
    void fail(long off, HsaException e) {
        long completion = PacketTranslation.completionSignal(ring, off);
        consume(off);
        queue.raiseError(e);
        failSignal(completion, e);
    }

    /** Fails and consumes every published packet with {@code reason}; true when there was one. */
    boolean drainPublished(HsaException reason) {
        boolean any = false;
        while (true) {
            long off = offset();
            int word = AqlPacket.loadHeaderWordAcquire(ring, off);
            if (PacketHeader.typeCode(word) == PacketType.INVALID.code()) {
                return any;
            }
            long completion = PacketTranslation.completionSignal(ring, off);
            consume(off);
            failSignal(completion, reason);
            any = true;
        }
    }

    /** Fails the signal {@code handle} names, if it names a live one. */
    void failSignal(long handle, HsaException e) {
        if (handle != 0) {
            try {
                signals.fromHandle(handle).fail(e);
            } catch (HsaException ignored) {
                // the packet named no live signal: nobody to tell
            }
        }
    }
}
