package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.agent.spi.QueueFactory;
import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.memory.GlobalFlag;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueDescriptor;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shadow ring's host half against a Java model of the command processor's rule
 * ({@code hsa4j_r_fetch}: every tag is the id's low half, the high word its high half; retiring
 * stores the tag {@code ~id}). No GPU: the queue is a soft queue, this test its consumer.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ResidentShadowTest {
    private static final VarHandle WORD = JAVA_LONG.varHandle();
    private static final short HEADER = PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM);

    private HsaRuntime rt;
    private Arena arena;
    private Signal doorbell;
    private Queue queue;
    private MemorySegment lines;
    private ResidentShadow shadow;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        arena = Arena.ofShared();
    }

    @AfterEach
    void stop() {
        if (queue != null) {
            doorbell.removeWaiter(shadow);
            shadow.close();
            queue.destroy();
        }
        rt.close();
        arena.close();
    }

    private void queue(int size, QueueType type) {
        doorbell = rt.createSignal(-1);
        queue = rt.createSoftQueue(rt.regions(rt.cpuAgent()).stream()
                        .filter(r -> r.globalFlags().contains(GlobalFlag.FINE_GRAINED)).findFirst().orElseThrow(),
                size, type, QueueDescriptor.FEATURE_KERNEL_DISPATCH, doorbell);
        lines = arena.allocate(ResidentLayout.shadowBytes(size), ResidentLayout.SHADOW_PIECE_BYTES);
        shadow = new ResidentShadow(queue, lines, IdleStrategy.defaults());
        doorbell.addWaiter(shadow);
    }

    /** The body packet {@code id} carries in these tests: every field a function of the id. */
    private static long kernarg(long id) {
        return id * 0x9E37_79B9_7F4A_7C15L;
    }

    /** Writes packet {@code id} (reserved2 as given), publishes it; no doorbell. */
    private void write(long id, long reserved2) {
        KernelDispatchPacket k = new KernelDispatchPacket();
        k.wrap(queue.ring(), queue.slotOffset(id)).workgroupSize(1, 1, 1).gridSize((int) id + 1, 1, 1).privateSegmentSize(0)
                .groupSegmentSize(0).kernelObject(~id).kernargAddress(kernarg(id)).completionSignal(id + 5);
        queue.ring().set(JAVA_LONG, queue.slotOffset(id) + KernelDispatchPacket.RESERVED2, reserved2);
        k.publish(HEADER, 1);
    }

    /** Reserves {@code count} packets, writes them, then rings the doorbell once, as a batch producer does; returns the first id. */
    private long batch(int count) {
        long first = queue.addWriteIndexRelaxed(count);
        for (long id = first; id < first + count; id++) {
            write(id, 0);
        }
        queue.ringDoorbell(first + count - 1);
        return first;
    }

    private void publish(long id) {
        queue.waitForSpace(id);
        write(id, 0);
        queue.ringDoorbell(id);
    }

    /** The packet as the ring holds it, reserved2 read as 0 (what the processor rebuilds from a line). */
    private long[] ringPacket(long id) {
        long[] p = new long[8];
        for (int q = 0; q < 8; q++) {
            p[q] = (long) WORD.getVolatile(queue.ring(), queue.slotOffset(id) + 8L * q);
        }
        p[ResidentLayout.SHADOW_ID_LOW / 2] = 0;
        return p;
    }

    /** The processor's rule on the line of {@code read}, its words loaded in {@code order}: the packet, or null. */
    private static long[] accept(MemorySegment lines, long read, long mask, int[] order) {
        return accept(lines, read, mask, order, () -> { });
    }

    /** As above, running {@code between} between two loads. */
    private static long[] accept(MemorySegment lines, long read, long mask, int[] order, Runnable between) {
        long[] w = new long[ResidentLayout.SHADOW_WORDS];
        for (int k : order) {
            w[k] = (long) WORD.getOpaque(lines, ResidentLayout.shadowPiece(read & mask, k / 2) + 8L * (k % 2));
            between.run();
        }
        int miss = ((int) w[ResidentLayout.SHADOW_ID_HIGH] ^ (int) (read >>> 32)) & ~(int) ResidentLayout.SHADOW_MORE;
        for (long word : w) {
            miss |= (int) (word >>> 32) ^ (int) read;
        }
        if (miss != 0) {
            return null;
        }
        long[] p = new long[8];
        for (int q = 0; q < 8; q++) {
            p[q] = (w[2 * q] & 0xFFFF_FFFFL) | w[2 * q + 1] << 32;
        }
        p[ResidentLayout.SHADOW_ID_LOW / 2] = 0;
        return p;
    }

    private static int[] inOrder() {
        int[] o = new int[ResidentLayout.SHADOW_WORDS];
        for (int k = 0; k < o.length; k++) {
            o[k] = k;
        }
        return o;
    }

    /** The processor's consumption of {@code id}: ring header INVALID, the line retired, then the read index. */
    private void consume(long id) {
        AqlPacket.storeInvalid(queue.ring(), queue.slotOffset(id));
        ResidentShadow.retired(lines, id & (queue.size() - 1), id);
        queue.storeReadIndexScrelease(id + 1);
    }

    @Test
    void aDoorbellCopiesThePublishedPacketIntoItsLine() {
        queue(4, QueueType.SINGLE);
        publish(0);
        assertArrayEquals(ringPacket(0), accept(lines, 0, 3, inOrder()));
        long ids = ResidentLayout.shadowPiece(0, ResidentLayout.SHADOW_ID_LOW / 2);
        assertEquals(0L, lines.get(JAVA_LONG, ids) & 0xFFFF_FFFFL);
        assertEquals(0L, lines.get(JAVA_LONG, ids + 8) & 0xFFFF_FFFFL);
    }

    @Test
    void aLineCarriesTheFullPacketIdInItsIdWords() {
        queue(4, QueueType.SINGLE);
        long id = (7L << 32) + 2;   // a queue far into its life: ids past 2^32
        queue.storeReadIndexScrelease(id);
        queue.addWriteIndexRelaxed(id);
        shadow = replaceShadow();
        publish(id);
        long ids = ResidentLayout.shadowPiece(id & 3, ResidentLayout.SHADOW_ID_LOW / 2);
        assertEquals(2L, lines.get(JAVA_LONG, ids) & 0xFFFF_FFFFL);
        assertEquals(7L, lines.get(JAVA_LONG, ids + 8) & 0xFFFF_FFFFL);
        assertArrayEquals(ringPacket(id), accept(lines, id, 3, inOrder()));
        assertNull(accept(lines, 2, 3, inOrder()), "the same low half with another high half is another packet");
    }

    private ResidentShadow replaceShadow() {
        doorbell.removeWaiter(shadow);
        ResidentShadow s = new ResidentShadow(queue, lines, IdleStrategy.defaults());
        doorbell.addWaiter(s);
        return s;
    }

    @Test
    void aSlotsPiecesAreOneAlignedLineOfItsOwn() {
        for (long slot = 0; slot < 64; slot++) {
            long line = ResidentLayout.shadowPiece(slot, 0);
            assertEquals(0, line % 128, "slot " + slot + " starts a 128-byte line");
            for (int q = 0; q < ResidentLayout.SHADOW_PIECES; q++) {
                assertEquals(line + 16L * q, ResidentLayout.shadowPiece(slot, q), "piece " + q + " of slot " + slot);
            }
        }
        assertEquals(64 * 128, ResidentLayout.shadowBytes(64));
    }

    @Test
    void aFreshLineIsNoPacket() {
        queue(4, QueueType.SINGLE);
        for (long id = 0; id < 4; id++) {
            assertNull(accept(lines, id, 3, inOrder()), "line of packet " + id + " before any doorbell");
        }
    }

    @Test
    void aRetiredLineIsNotTheSlotsNextPacket() {
        queue(4, QueueType.SINGLE);
        publish(0);
        consume(0);
        assertNull(accept(lines, 4, 3, inOrder()));
        assertNull(accept(lines, 0, 3, inOrder()), "nor the retired packet itself");
    }

    @Test
    void theRetiredTagDiffersFromTheNextPacketsForEverySizeAndId() {
        SplittableRandom r = new SplittableRandom(19);
        for (int bits = 2; bits <= 17; bits++) {
            long size = 1L << bits;
            for (int i = 0; i < 10_000; i++) {
                long id = i < 100 ? (1L << 32) - size + i - 50 : r.nextLong() >>> 1;   // around the tags' wrap, then anywhere
                assertNotEquals(~(int) id, (int) (id + size), "id " + id + ", size " + size);
            }
        }
    }

    @Test
    void onlyTheFirstPacketsOfADoorbellAreCopied() {
        queue(8, QueueType.SINGLE);
        for (long id = 0; id < 5; id++) {
            write(id, 0);
        }
        queue.ringDoorbell(4);
        for (long id = 0; id < ResidentShadow.AHEAD; id++) {
            assertArrayEquals(ringPacket(id), accept(lines, id, 7, inOrder()), "packet " + id);
        }
        for (long id = ResidentShadow.AHEAD; id < 5; id++) {
            assertNull(accept(lines, id, 7, inOrder()), "packet " + id + " comes through the processor's window");
        }
        queue.ringDoorbell(4);
        assertArrayEquals(ringPacket(ResidentShadow.AHEAD), accept(lines, ResidentShadow.AHEAD, 7, inOrder()),
                "the next doorbell copies on from where the last stopped");
    }

    @Test
    void aDoorbellCopiesFromThePacketsReservedSinceTheLastOne() {
        queue(8, QueueType.SINGLE);
        batch(4);
        // consumed as the processor does it, late: headers still valid, the read index not yet published
        long second = batch(3);
        assertArrayEquals(ringPacket(second), accept(lines, second, 7, inOrder()), "the new batch's first packet");
        assertArrayEquals(ringPacket(second + 1), accept(lines, second + 1, 7, inOrder()));
    }

    /**
     * One packet at a time, consumed the processor's way: slots retired and the read index published
     * late, every third packet. Each packet's line is complete when its doorbell store returns.
     */
    @Test
    void everyPacketOfAPingPongIsShadowedByItsDoorbell() {
        queue(16, QueueType.SINGLE);
        long retired = 0;
        for (long id = 0; id < 1000; id++) {
            long reserved = queue.addWriteIndexScacqScrel(1);
            assertEquals(id, reserved);
            publish(id);
            assertArrayEquals(ringPacket(id), accept(lines, id, 15, inOrder()), "packet " + id);
            if (id % 3 == 2) {
                for (; retired <= id; retired++) {
                    AqlPacket.storeInvalid(queue.ring(), queue.slotOffset(retired));
                    ResidentShadow.retired(lines, retired & 15, retired);
                }
                queue.storeReadIndexScrelease(id + 1);
            }
        }
    }

    @Test
    void aPacketWithTwoMoreReservedCarriesTheBatchHint() {
        queue(8, QueueType.SINGLE);
        batch(3);
        long high = ResidentLayout.shadowPiece(0, ResidentLayout.SHADOW_ID_HIGH / 2) + 8;
        assertEquals(ResidentLayout.SHADOW_MORE, lines.get(JAVA_LONG, high) & ResidentLayout.SHADOW_MORE, "packet 0: 2 is reserved");
        assertArrayEquals(ringPacket(0), accept(lines, 0, 7, inOrder()), "the hint is not part of the id");
        long high1 = ResidentLayout.shadowPiece(1, ResidentLayout.SHADOW_ID_HIGH / 2) + 8;
        assertEquals(0L, lines.get(JAVA_LONG, high1) & ResidentLayout.SHADOW_MORE, "packet 1: 3 is not");
    }

    @Test
    void aLaunchedPacketIsCopiedBeforeItsHeaderIsPublished() {
        queue(4, QueueType.SINGLE);
        long[] atPublish = new long[1];
        QueueFactory.observePublish(queue, (q, id, headerWord) -> {
            shadow.beforePublish(q, id, headerWord);
            long[] line = accept(lines, id, 3, inOrder());
            atPublish[0] = line == null ? -1 : line[0] & 0xFFFF_FFFFL;
            assertEquals(PacketType.INVALID.code(), PacketHeader.typeCode(AqlPacket.loadHeaderWordAcquire(q.ring(), q.slotOffset(id))));
        });
        queue.launch(0x77).grid(1).workgroup(1).kernarg(0).completion(rt.createSignal(1)).dispatch();
        assertEquals(AqlPacket.loadHeaderWordAcquire(queue.ring(), queue.slotOffset(0)) & 0xFFFF_FFFFL, atPublish[0],
                "the line, whole before the header's store, carries the header word then stored");
        assertArrayEquals(ringPacket(0), accept(lines, 0, 3, inOrder()));
    }

    @Test
    void anUnpublishedPacketIsNotCopiedUntilItsOwnDoorbell() {
        queue(4, QueueType.SINGLE);
        queue.ringDoorbell(0);   // rung before the packet is written: nothing to copy
        assertNull(accept(lines, 0, 3, inOrder()));
        write(0, 0);
        queue.ringDoorbell(0);
        assertArrayEquals(ringPacket(0), accept(lines, 0, 3, inOrder()));
    }

    @Test
    void aSlotWhosePreviousPacketIsNotConsumedIsNotCopied() {
        queue(4, QueueType.SINGLE);
        for (long id = 0; id < 4; id++) {
            publish(id);
        }
        // packet 4 is reserved but slot 0 still holds the unconsumed packet 0: a doorbell now must not
        // copy packet 0's body as packet 4
        queue.ringDoorbell(4);
        assertNull(accept(lines, 4, 3, inOrder()));
        consume(0);
        publish(4);
        assertArrayEquals(ringPacket(4), accept(lines, 4, 3, inOrder()));
    }

    @Test
    void aPacketWithNonzeroReserved2IsLeftToTheRing() {
        queue(4, QueueType.SINGLE);
        write(0, 0x55);
        write(1, 0);
        queue.ringDoorbell(1);
        assertNull(accept(lines, 0, 3, inOrder()));
        assertArrayEquals(ringPacket(1), accept(lines, 1, 3, inOrder()));
    }

    @Test
    void aClosedShadowCopiesNothing() {
        queue(4, QueueType.SINGLE);
        assertTrue(shadow.close());
        publish(0);
        assertNull(accept(lines, 0, 3, inOrder()));
    }

    /**
     * Two producers and a consumer that loads each line's words in a random order with pauses
     * between them (tearing copies and retirements the way out-of-order PCIe reads would): every
     * packet the consumer takes, from a line or from the ring, is the packet of that id.
     */
    @Test
    void noLineIsEverTakenForAnotherPacket() throws InterruptedException {
        queue(4, QueueType.MULTI);
        int packets = 20_000;
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Runnable producer = () -> {
            try {
                while (true) {
                    long id = queue.addWriteIndexScacqScrel(1);
                    if (id >= packets) {
                        return;
                    }
                    publish(id);
                }
            } catch (Throwable t) {
                failed.compareAndSet(null, t);
            }
        };
        Thread a = Thread.ofPlatform().name("shadow-producer-a").start(producer);
        Thread b = Thread.ofPlatform().name("shadow-producer-b").start(producer);
        SplittableRandom r = new SplittableRandom(5);
        Runnable between = () -> {
            if (r.nextInt(8) == 0) {
                Thread.yield();   // on two cores: lets a producer's copy run between two loads of one line
            }
        };
        int[] order = inOrder();
        long hits = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(50);
        for (long read = 0; read < packets && failed.get() == null; ) {
            assertTrue(System.nanoTime() < deadline, "consumer stuck at packet " + read);
            for (int i = order.length - 1; i > 0; i--) {
                int j = r.nextInt(i + 1);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            long[] p = accept(lines, read, 3, order, between);
            int header = AqlPacket.loadHeaderWordAcquire(queue.ring(), queue.slotOffset(read));
            if (p == null && PacketHeader.typeCode(header) == PacketType.INVALID.code()) {
                Thread.onSpinWait();
                continue;
            }
            if (p != null) {
                hits++;
            } else {
                p = ringPacket(read);
            }
            assertEquals(kernarg(read), p[(int) (KernelDispatchPacket.KERNARG_ADDRESS / 8)], "kernarg of packet " + read);
            assertEquals(~read, p[(int) (KernelDispatchPacket.KERNEL_OBJECT / 8)], "kernel object of packet " + read);
            assertEquals(read + 5, p[(int) (AqlPacket.COMPLETION_SIGNAL / 8)], "completion of packet " + read);
            assertEquals((int) read + 1, (int) (p[1] >>> 32), "grid x of packet " + read);
            consume(read);
            read++;
        }
        a.join(TimeUnit.SECONDS.toMillis(10));
        b.join(TimeUnit.SECONDS.toMillis(10));
        assertNull(failed.get());
        assertFalse(a.isAlive() || b.isAlive());
        System.out.println("shadow hits: " + hits + " of " + packets);
    }
}
