package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.Kernel;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fidelity mode's adversarial scheduling (issue 21 part 3): of dispatches of one queue found
 * published together, each without the barrier bit runs before the one ahead of it, so a missing
 * barrier bit shows every time; the barrier bit and a barrier-AND packet keep packet order, and
 * normal mode runs packets in order as before.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OverlappingLaunchTest {
    private HsaRuntime rt;
    private Svm svm;
    private Queue queue;
    /** Int 0: entries so far; ints 1..: the ids of the kernels in the order they ran. */
    private long log;

    private void start(boolean fidelity) {
        rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(1).computeUnits(2).fidelity(fidelity).build());
        svm = rt.svm();
        queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
        log = rt.hostMalloc(64);
    }

    @AfterEach
    void stop() {
        if (rt != null) {
            rt.close();
        }
    }

    private long kernel(String name, Kernel body) {
        return rt.createExecutable().define(name, KernelDescriptor.EMPTY, body).freeze().symbol(name).kernelObject();
    }

    /** A kernel that appends {@code id} to the log with system-scope atomics. */
    private long logging(int id) {
        long at = log;
        return kernel("log" + id, wi -> {
            int pos = wi.svm().atomicAddInt(at, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            wi.svm().atomicStoreInt(at + 4 + 4L * pos, id, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        });
    }

    /**
     * Publishes the kernels into consecutive slots, last header first, so the processor finds all
     * of them at once; packet {@code i} has the barrier bit when {@code barriers[i]}. Returns their signals.
     */
    private Signal[] publishTogether(long[] kernels, boolean[] barriers) {
        Signal[] done = new Signal[kernels.length];
        long id = queue.reserveSlots(kernels.length);
        for (int i = kernels.length - 1; i >= 0; i--) {
            done[i] = rt.createSignal(1);
            Submit.kernel(queue, kernels[i]).completion(done[i]).barrier(barriers[i]).publish(id + i);
        }
        queue.ringDoorbell(id + kernels.length - 1);
        return done;
    }

    private static void awaitZero(Signal s) {
        long deadline = System.nanoTime() + Await.DEFAULT.toNanos();
        while (s.waitScacquire(SignalCondition.EQ, 0, 1_000_000L, WaitState.BLOCKED) != 0) {
            assertTrue(System.nanoTime() - deadline < 0, "a dispatch did not complete");
        }
    }

    private String runOrder(boolean... barriers) {
        long[] kernels = new long[barriers.length];
        for (int i = 0; i < kernels.length; i++) {
            kernels[i] = logging(i + 1);
        }
        for (Signal s : publishTogether(kernels, barriers)) {
            awaitZero(s);
        }
        StringBuilder order = new StringBuilder();
        for (int i = 0; i < svm.getInt(log); i++) {
            order.append(svm.getInt(log + 4 + 4L * i));
        }
        return order.toString();
    }

    @Test
    void shouldRunEachDispatchWithoutBarrierBitBeforeTheOneAheadOfIt() {
        start(true);
        assertEquals("321", runOrder(false, false, false));
    }

    @Test
    void shouldKeepPacketOrderAtEveryBarrierBit() {
        start(true);
        assertEquals("123", runOrder(false, true, true));
    }

    @Test
    void shouldBreakTheRunAtABarrierBit() {
        start(true);
        assertEquals("2143", runOrder(false, false, true, false));
    }

    @Test
    void shouldRunPacketsInOrderInNormalMode() {
        rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(1).computeUnits(1).fidelity(false).build());
        svm = rt.svm();
        queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
        log = rt.hostMalloc(64);
        assertEquals("123", runOrder(false, false, false));
    }

    /** Producer writes 42, the consumer copies it; returns what the consumer read. */
    private int consumerRead(boolean barrierBit, boolean barrierAnd) {
        long data = rt.hostMalloc(64);
        long result = rt.hostMalloc(64);
        long producer = kernel("producer", wi -> wi.svm().setInt(data, 42));
        long consumer = kernel("consumer", wi -> wi.svm().setInt(result, wi.svm().getInt(data)));
        Signal produced = rt.createSignal(1);
        Signal consumed = rt.createSignal(1);
        Signal between = rt.createSignal(1);
        long id = queue.reserveSlots(3);
        Submit.kernel(queue, consumer).completion(consumed).barrier(barrierBit).publish(id + 2);
        if (barrierAnd) {
            Submit.publishBarrier(queue, id + 1, org.hsa4j.packet.PacketType.BARRIER_AND, false, between,
                    produced.handle());
        } else {
            Submit.kernel(queue, kernel("nothing", wi -> { })).completion(between).publish(id + 1);
        }
        Submit.kernel(queue, producer).completion(produced).publish(id);
        queue.ringDoorbell(id + 2);
        awaitZero(produced);
        awaitZero(between);
        awaitZero(consumed);
        return svm.getInt(result);
    }

    @Test
    void shouldLetAConsumerWithoutBarrierBitReadBeforeItsProducerWrote() {
        start(true);
        assertEquals(0, consumerRead(false, false));
    }

    @Test
    void shouldShowTheProducersDataToAConsumerWithTheBarrierBit() {
        start(true);
        assertEquals(42, consumerRead(true, false));
    }

    @Test
    void shouldShowTheProducersDataToAConsumerBehindABarrierAndOnIt() {
        start(true);
        assertEquals(42, consumerRead(false, true));
    }

    @Test
    void shouldRunTheDispatchAheadOfOneThatFailed() {
        start(true);
        long first = logging(1);
        long failing = kernel("fails", wi -> {
            throw new IllegalStateException("fails for the test");
        });
        Signal[] done = publishTogether(new long[] {first, failing}, new boolean[] {false, false});
        long deadline = System.nanoTime() + Await.DEFAULT.toNanos();
        while (true) {
            try {
                done[1].waitScacquire(SignalCondition.EQ, 0, 1_000_000L, WaitState.BLOCKED);
            } catch (HsaException expected) {
                break;
            }
            assertTrue(System.nanoTime() - deadline < 0, "the failing dispatch never failed");
        }
        awaitZero(done[0]);
        assertEquals(1, svm.getInt(log + 4));
    }

    /** Waits (bounded) until {@code s} fails: true when it did. */
    private static boolean failsWithin(Signal s) {
        long deadline = System.nanoTime() + Await.DEFAULT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                s.waitScacquire(SignalCondition.EQ, 0, 1_000_000L, WaitState.BLOCKED);
            } catch (HsaException expected) {
                return true;
            }
        }
        return false;
    }

    @Test
    void shouldFailHeldDispatchesOfADestroyedQueueAndKeepTheAgentWorking() {
        start(true);
        long flags = rt.hostMalloc(64);
        long blocker = kernel("blocker", wi -> {
            Svm s = wi.svm();
            s.atomicStoreInt(flags, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            long deadline = System.nanoTime() + Await.DEFAULT.toNanos();
            while (s.atomicLoadInt(flags + 4, MemoryOrder.RELAXED, MemoryScope.SYSTEM) == 0
                    && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
        });
        Signal[] done = publishTogether(new long[] {logging(1), blocker}, new boolean[] {false, false});
        long deadline = System.nanoTime() + Await.DEFAULT.toNanos();
        while (svm.atomicLoadInt(flags, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) == 0) {
            assertTrue(System.nanoTime() - deadline < 0, "the blocker never started");
            Thread.onSpinWait();
        }
        queue.destroy();
        assertTrue(failsWithin(done[1]), "the running dispatch was not failed");
        assertTrue(failsWithin(done[0]), "the held dispatch was not failed");
        queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
        assertTrue(runOrder(false, false).endsWith("21"), "a later pair did not overlap");
    }
}
