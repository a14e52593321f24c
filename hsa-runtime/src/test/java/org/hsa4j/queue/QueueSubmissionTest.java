package org.hsa4j.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.BitSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.packet.PacketType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Several producers, full queues and back-pressure, through the queue's conveniences. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueSubmissionTest {
    private HsaRuntime rt;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).queueMinSize(16).build());
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    /** One producer's record: the ids it was handed and a completion signal per packet. */
    private record Produced(long[] ids, Signal[] completions) {
    }

    private Produced produce(Queue q, int count) {
        long[] ids = new long[count];
        Signal[] signals = new Signal[count];
        for (int i = 0; i < count; i++) {
            signals[i] = rt.createSignal(1);
        }
        for (int i = 0; i < count; i++) {
            ids[i] = Submit.barrierAnd(q, signals[i]);
        }
        return new Produced(ids, signals);
    }

    @Test
    void shouldCompleteEveryPacketOfTwoProducersExactlyOnce() throws InterruptedException {
        int perProducer = 10_000;
        Queue q = rt.gpuAgent().createQueue(256, QueueType.MULTI, null);
        AtomicReference<Produced> other = new AtomicReference<>();
        AtomicReference<Throwable> otherFailure = new AtomicReference<>();
        Thread producer = Thread.ofPlatform().name("producer-2").start(() -> {
            try {
                other.set(produce(q, perProducer));
            } catch (Throwable t) {
                otherFailure.set(t);
            }
        });
        Produced mine = produce(q, perProducer);
        producer.join(Await.DEFAULT.toMillis());
        assertFalse(producer.isAlive(), "second producer did not finish");
        assertNull(otherFailure.get());

        BitSet handedOut = new BitSet();
        for (Produced p : new Produced[] {mine, other.get()}) {
            for (long id : p.ids()) {
                assertFalse(handedOut.get((int) id), "slot id " + id + " handed out twice");
                handedOut.set((int) id);
            }
        }
        assertEquals(2 * perProducer, handedOut.cardinality());
        assertEquals(2 * perProducer, handedOut.nextClearBit(0), "ids are 0..n-1 without gaps");

        for (Produced p : new Produced[] {mine, other.get()}) {
            for (Signal s : p.completions()) {
                Await.completion(s);
            }
        }
        Await.until(() -> q.loadReadIndexScacquire() == 2L * perProducer, "read index to reach the write index");
        assertEquals(2L * perProducer, q.loadWriteIndexScacquire());
        for (Produced p : new Produced[] {mine, other.get()}) {
            for (Signal s : p.completions()) {
                assertEquals(0, s.loadScacquire(), "packet completed more than once: signal " + s);
            }
        }
    }

    /** Fills a queue of 16 behind a barrier-AND that waits on {@code gate}; returns the completions. */
    private Signal[] fillBehindGate(Queue q, Signal gate) {
        Signal[] done = new Signal[q.size()];
        done[0] = rt.createSignal(1);
        Submit.barrierAnd(q, done[0], gate.handle());
        for (int i = 1; i < q.size(); i++) {
            done[i] = rt.createSignal(1);
            Submit.barrierAnd(q, done[i]);
        }
        assertEquals(q.size(), q.loadWriteIndexScacquire());
        return done;
    }

    private static void awaitParked(Thread t) {
        Await.until(() -> t.getState() == Thread.State.TIMED_WAITING || t.getState() == Thread.State.WAITING,
                t.getName() + " to wait for space");
    }

    @Test
    void shouldMakeReserveSlotWaitUntilTheHostReleasesABlockedQueue() throws InterruptedException {
        Queue q = rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
        Signal gate = rt.createSignal(1);
        Signal[] first = fillBehindGate(q, gate);
        Signal more = rt.createSignal(20);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread producer = Thread.ofPlatform().name("blocked-producer").start(() -> {
            try {
                for (int i = 0; i < 20; i++) {
                    Submit.barrierAnd(q, more);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        awaitParked(producer);
        assertEquals(16, q.loadWriteIndexScacquire(), "no slot may be reserved while the queue is full");
        assertEquals(0, q.loadReadIndexScacquire());
        assertEquals(1, first[0].loadScacquire());

        gate.storeScrelease(0);
        producer.join(Await.DEFAULT.toMillis());
        assertFalse(producer.isAlive());
        assertNull(failure.get());
        for (Signal s : first) {
            Await.completion(s);
        }
        Await.completion(more);
        Await.until(() -> q.loadReadIndexScacquire() == 36, "every packet consumed");
    }

    @Test
    void shouldMakeWaitForSpaceWaitUntilTheHostReleasesABlockedQueue() throws InterruptedException {
        Queue q = rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
        Signal gate = rt.createSignal(1);
        Signal[] first = fillBehindGate(q, gate);
        Signal late = rt.createSignal(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long id = q.addWriteIndexScacqScrel(1);
        assertEquals(16, id);
        Thread producer = Thread.ofPlatform().name("space-waiter").start(() -> {
            try {
                q.waitForSpace(id);
                Submit.publishBarrier(q, id, PacketType.BARRIER_AND, false, late);
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        awaitParked(producer);
        assertEquals(0, q.loadReadIndexScacquire());
        gate.storeScrelease(0);
        producer.join(Await.DEFAULT.toMillis());
        assertFalse(producer.isAlive());
        assertNull(failure.get());
        for (Signal s : first) {
            Await.completion(s);
        }
        Await.completion(late);
    }

    @Test
    void shouldLetAnInterruptedProducerReserveNothing() throws InterruptedException {
        Queue q = rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
        Signal gate = rt.createSignal(1);
        Signal[] first = fillBehindGate(q, gate);
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread producer = Thread.ofPlatform().name("interrupted-producer").start(() -> {
            try {
                outcome.set(q.reserveSlot());
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        awaitParked(producer);
        producer.interrupt();
        producer.join(Await.DEFAULT.toMillis());
        assertFalse(producer.isAlive());
        HsaException e = assertInstanceOf(HsaException.class, outcome.get());
        assertEquals(HsaStatus.INVALID_RUNTIME_STATE, e.status());
        assertEquals(16, q.loadWriteIndexScacquire(), "the interrupted producer reserved a slot");

        gate.storeScrelease(0);
        for (Signal s : first) {
            Await.completion(s);
        }
        Signal next = rt.createSignal(1);
        assertEquals(16, Submit.barrierAnd(q, next), "the next producer gets the id nobody took");
        Await.completion(next);
    }
}
