package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.PublishObserver;
import org.hsa4j.queue.Queue;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalWaiter;

/**
 * The shadow ring of a GPU-resident queue: the producer's own thread copies its packets into tagged
 * 128-byte lines that the command processor loads in the same PCIe round trip as the slot's header,
 * so a packet on a quiet queue costs one PCIe read instead of two (round trip p50 5.6 to 4.8-5.0 us,
 * docs/GPU.md). The runtime's launch call copies just before its header store ({@link #beforePublish}:
 * the line is there before the header is); any other producer's packets are copied at its doorbell
 * store through the signal API ({@link #signalChanged}), which lands after the header, so a look in
 * between misses the copy and takes the ring's way.
 *
 * <p><b>Why.</b> Read from the ring alone, a packet takes two dependent PCIe round trips (~1.3 us
 * each): the header with acquire, then the body. The body cannot ride along with the header: a
 * relaxed body load may be served before the producer's body stores while the header load is
 * served after them, and PTX gives a 64-byte load no single-copy atomicity. A shadow line carries
 * its own proof of consistency, so it can.
 *
 * <p><b>How a line proves itself.</b> Word k of the line of slot {@code id & (size - 1)} is
 * {@code (int) id << 32 | payload k}: the tag is the packet id's low half, the payload the packet's
 * 32-bit word k, except words {@link ResidentLayout#SHADOW_ID_LOW} and {@link ResidentLayout#SHADOW_ID_HIGH}
 * (the packet's reserved2, which must be 0 to be shadowed), which carry the id itself (and the
 * batch hint, {@link ResidentLayout#SHADOW_MORE}). Each word is one 8-byte store here and one
 * element of an 8-byte-aligned vector load there, single-copy atomic on both sides. The processor
 * takes a line as packet {@code read} only when all sixteen tags are {@code (int) read} and the high
 * word is {@code read >>> 32}; any other line, a torn one included, sends it to the ring as before.
 * When it retires slot {@code id} it overwrites all sixteen tags with {@code ~(int) id} (with
 * INVALID in the ring header, before the fence that releases the read index), which never equals
 * the tag of the slot's next packet {@code id + size}: {@code ~a == a + size} would need an even
 * number to equal an odd one. So a line accepted for {@code read} holds only stores made for
 * {@code read} itself.
 *
 * <p><b>Why an accepted line is the packet.</b> The copier copies packet {@code id} only when
 * {@code id < readIndex + size}, the read index read with acquire (now or at an earlier copy: a
 * lower bound suffices): then packet {@code id - size} was consumed and
 * its INVALID store, made before the read index was released, is visible; a valid header then (an
 * acquire load) is packet {@code id}'s, and nobody writes the slot again before {@code id} is
 * consumed, after which the processor never looks for {@code id}. The processor takes a line only
 * in a look whose acquire load of the slot's header saw it published: that load is the packet's
 * acquire, as without a shadow; the line only spares the body's round trip.
 *
 * <p><b>One copier at a time.</b> A doorbell store that finds another thread copying skips its copy:
 * correctness never rests on the shadow (an unshadowed packet is read from the ring, as is one
 * published by a store behind the API). So one line changes only by whole copies in increasing id
 * order and by the processor's retirements. The one residue: a copier stalled inside a copy while
 * 2^32 packets pass through the queue could finish a line whose tags match again; the ids are 64-bit,
 * the tags 32.
 *
 * <p><b>Cost.</b> A copy starts at the first packet reserved since the last one (the read index
 * lags: the processor publishes it lazily) and takes at most {@value #AHEAD} packets (a batch's later
 * packets come through the processor's 32-slot windows, which a body round repays); it is 16
 * ordered stores into cached host memory on the producer's thread, after its doorbell store.
 */
final class ResidentShadow implements SignalWaiter, PublishObserver {
    /** Packets copied per doorbell store at most: the quiet queue's first packet and the one a batch hint needs. */
    static final int AHEAD = 2;
    /** How long {@link #close} waits for a copy in progress (a copy takes well under a microsecond). */
    private static final long CLOSE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final VarHandle WORD = JAVA_LONG.varHandle();
    private static final VarHandle BUSY;

    static {
        try {
            BUSY = MethodHandles.lookup().findVarHandle(ResidentShadow.class, "busy", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Queue queue;
    private final MemorySegment ring;
    private final MemorySegment lines;
    private final long mask;
    /** How {@link #close} waits for a copy in progress. */
    private final IdleStrategy closeWait;
    /** 1 while a thread copies (or {@link #close} holds it); the copier's lock, never waited for by a producer. */
    @SuppressWarnings("unused")
    private volatile int busy;
    /** The next packet id not yet considered; guarded by {@code busy}. */
    private long next;
    /** The write index the last copy saw: packets below it were reserved before that doorbell; guarded by {@code busy}. */
    private long seen;
    /** The read index as last loaded (acquire): at most the processor's; guarded by {@code busy}. */
    private long readBound;
    /** True once closed: no copy touches {@link #lines} after; guarded by {@code busy}. */
    private boolean closed;

    /** A shadow for {@code queue} in {@code lines} ({@link ResidentLayout#shadowBytes}, device-reachable). */
    ResidentShadow(Queue queue, MemorySegment lines, IdleStrategy closeWait) {
        this.queue = queue;
        this.closeWait = closeWait;
        this.ring = queue.ring();
        this.lines = lines;
        this.mask = queue.size() - 1;
        this.next = queue.loadReadIndexScacquire();
        this.readBound = next;
        if (lines.byteSize() != ResidentLayout.shadowBytes(queue.size())) {
            throw new IllegalArgumentException(lines.byteSize() + " bytes for a shadow of " + queue.size() + " slots");
        }
        // each line as if the packet before its first one had been retired (a zeroed line would pass as packet 0)
        for (long id = next; id < next + queue.size(); id++) {
            retired(lines, id & mask, id - queue.size());
        }
    }

    /** Stores into slot {@code slot} of the shadow what the processor's retirement of packet {@code id} stores: every tag {@code ~(int) id}, payloads 0. */
    static void retired(MemorySegment lines, long slot, long id) {
        long word = (long) ~(int) id << 32;
        for (int q = 0; q < ResidentLayout.SHADOW_PIECES; q++) {
            long piece = ResidentLayout.shadowPiece(slot, q);
            WORD.setRelease(lines, piece, word);
            WORD.setRelease(lines, piece + 8, word);
        }
    }

    /** The doorbell changed: copies what was published since the last copy (at most {@link #AHEAD} packets). */
    @Override
    public void signalChanged(Signal doorbell) {
        if (!BUSY.compareAndSet(this, 0, 1)) {
            return;   // another thread copies: what it misses is read from the ring
        }
        try {
            if (!closed) {
                copy();
            }
        } finally {
            busy = 0;
        }
    }

    /**
     * The launch call is about to publish packet {@code id}: copies it now, with the header word to
     * come, so that the line is there before the header is (a copy made at the doorbell lands after
     * the header, and a look in between misses it). Safe early: the processor takes a line only in a
     * look that sees the slot's header published, and then it is this packet's.
     */
    @Override
    public void beforePublish(Queue q, long id, int headerWord) {
        if (!BUSY.compareAndSet(this, 0, 1)) {
            return;   // another thread copies: the doorbell's copy, or the ring, covers this packet
        }
        try {
            if (!closed && slotFree(id)) {   // unpublished, so not consumed: the slot is id's from here on
                copyOne(id, headerWord, queue.loadWriteIndexScacquire());
                next = Math.max(next, id + 1);   // the doorbell's copy goes on after it
            }
        } finally {
            busy = 0;
        }
    }

    private void copy() {
        long write = queue.loadWriteIndexScacquire();   // the producers' line: in this core's cache
        // from the first packet reserved since the last copy: the read index lags (the processor
        // publishes it lazily), and a batch's consumed packets may still show their headers
        long id = Math.max(Math.max(next, readBound), seen);
        seen = write;
        for (int n = 0; n < AHEAD && slotFree(id); n++, id++) {
            int header = AqlPacket.loadHeaderWordAcquire(ring, queue.slotOffset(id));
            if ((header & 0xFF) == PacketType.INVALID.code()) {
                break;   // not published yet: its own doorbell store comes later
            }
            copyOne(id, header, write);
        }
        next = id;
    }

    /**
     * Writes packet {@code id}'s line: {@code headerWord}, then the slot's other words, each under
     * the id's tag; nothing for a packet whose reserved2 is not 0 (no room for the id there: the
     * processor reads it from the ring).
     */
    private void copyOne(long id, int headerWord, long write) {
        long slot = queue.slotOffset(id);
        if ((long) WORD.get(ring, slot + 8L * (ResidentLayout.SHADOW_ID_LOW / 2)) != 0) {
            return;
        }
        long tag = id << 32;
        long more = write - id > 2 ? ResidentLayout.SHADOW_MORE : 0;
        for (int q = 0; q < ResidentLayout.SHADOW_PIECES; q++) {
            long pair = (long) WORD.get(ring, slot + 8L * q);
            long low = q == 0 ? headerWord & 0xFFFF_FFFFL : pair & 0xFFFF_FFFFL;
            long high = pair >>> 32;
            if (2 * q == ResidentLayout.SHADOW_ID_LOW) {
                low = id & 0xFFFF_FFFFL;
                high = id >>> 32 | more;
            }
            long piece = ResidentLayout.shadowPiece(id & mask, q);
            WORD.setRelease(lines, piece, tag | low);
            WORD.setRelease(lines, piece + 8, tag | high);
        }
    }

    /**
     * True when packet {@code id - size} was consumed, so the slot can hold only packet {@code id}:
     * {@code id < readIndex + size}, against the read index last loaded (acquire), a lower bound of
     * the processor's, loaded again only when it does not suffice (the line the device writes: a
     * cache miss, which would make every copy land later). Not the queue's producer-side cache
     * ({@code Queue.waitForSpace}): any producer writes that one opaque, and this check needs a value
     * loaded with acquire by this copier or one before it (ordered by {@code busy}).
     */
    private boolean slotFree(long id) {
        if (id - readBound < mask + 1) {
            return true;
        }
        readBound = queue.loadReadIndexScacquire();
        return id - readBound < mask + 1;
    }

    /**
     * Stops copying (bounded: waits at most {@value #CLOSE_NANOS} ns for a copy in progress); true
     * when no copy can touch the lines any more, so their memory may go.
     */
    boolean close() {
        long deadline = System.nanoTime() + CLOSE_NANOS;
        Idler idler = closeWait.idler().blocker(this);
        while (!BUSY.compareAndSet(this, 0, 1)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            idler.idle(left);
        }
        closed = true;
        busy = 0;
        return true;
    }
}
