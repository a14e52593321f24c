package org.hsa4j.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.memory.MemoryFaultException;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Inactivating and destroying queues: what happens to their pending packets and to other queues. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueLifecycleTest {
    private HsaRuntime rt;
    private long flagKernel;
    private final AtomicBoolean kernelRan = new AtomicBoolean();
    private final AtomicInteger errorCallbacks = new AtomicInteger();

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build());
        flagKernel = rt.createExecutable().define("set_flag", KernelDescriptor.EMPTY, wi -> kernelRan.set(true))
                .freeze().symbol("set_flag").kernelObject();
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    private Queue gpuQueue() {
        return rt.gpuAgent().createQueue(64, QueueType.MULTI, (e, q) -> errorCallbacks.incrementAndGet());
    }

    private static HsaException failureOf(Signal s) {
        return assertThrows(HsaException.class, () -> Await.completion(s));
    }

    @Test
    void shouldFailThePendingPacketsOfAnInactivatedQueue() {
        Queue q = gpuQueue();
        Signal gate = rt.createSignal(1);
        Signal barrierDone = rt.createSignal(1);
        Signal kernelDone = rt.createSignal(1);
        Submit.barrierAnd(q, barrierDone, gate.handle());
        Submit.kernel(q, flagKernel).completion(kernelDone).submit();

        q.inactivate();

        assertEquals(HsaStatus.INVALID_QUEUE, failureOf(barrierDone).status());
        assertEquals(HsaStatus.INVALID_QUEUE, failureOf(kernelDone).status());
        assertEquals(QueueState.INACTIVE, q.state());
        gate.storeScrelease(0);
        assertFalse(kernelRan.get(), "a packet of an inactive queue was launched");
        assertEquals(0, errorCallbacks.get(), "inactivation is not an error");
    }

    @Test
    void shouldNotLaunchPacketsPublishedAfterInactivation() {
        Queue q = gpuQueue();
        q.inactivate();
        Signal done = rt.createSignal(1);
        long id = q.addWriteIndexScacqScrel(1);
        Submit.kernel(q, flagKernel).completion(done).publish(id);
        q.ringDoorbell(id);
        assertEquals(HsaStatus.INVALID_QUEUE, failureOf(done).status());
        assertFalse(kernelRan.get());
    }

    @Test
    void shouldRefuseReservingASlotOnAnInactiveQueue() {
        Queue q = gpuQueue();
        q.inactivate();
        assertEquals(HsaStatus.INVALID_QUEUE, assertThrows(HsaException.class, q::reserveSlot).status());
    }

    @Test
    void shouldKeepAnInactivatedQueueDestroyable() {
        Queue q = gpuQueue();
        q.inactivate();
        q.inactivate();
        q.destroy();
        assertEquals(QueueState.DESTROYED, q.state());
    }

    @Test
    void shouldFreeTheMemoryOfADestroyedQueue() {
        Queue q = gpuQueue();
        long ring = q.baseAddress();
        long descriptor = q.handle();
        long doorbell = q.doorbell().handle();
        q.destroy();
        assertNull(rt.pointerInfo(ring));
        assertNull(rt.pointerInfo(descriptor));
        assertThrows(MemoryFaultException.class, () -> rt.svm().getLong(descriptor + QueueDescriptor.WRITE_INDEX));
        assertEquals(HsaStatus.INVALID_SIGNAL, assertThrows(HsaException.class, () -> rt.signal(doorbell)).status());
        assertEquals(0, rt.gpuAgent().queueCount());
    }

    @Test
    void shouldFailThePendingPacketsOfADestroyedQueue() {
        Queue q = gpuQueue();
        Signal gate = rt.createSignal(1);
        Signal barrierDone = rt.createSignal(1);
        Signal kernelDone = rt.createSignal(1);
        Submit.barrierAnd(q, barrierDone, gate.handle());
        Submit.kernel(q, flagKernel).completion(kernelDone).submit();

        q.destroy();

        assertEquals(HsaStatus.INVALID_QUEUE, failureOf(barrierDone).status());
        assertEquals(HsaStatus.INVALID_QUEUE, failureOf(kernelDone).status());
        gate.storeScrelease(0);
        assertFalse(kernelRan.get());
    }

    @Test
    void shouldRefuseDestroyingAQueueTwice() {
        Queue q = gpuQueue();
        q.destroy();
        HsaException e = assertThrows(HsaException.class, q::destroy);
        assertEquals(HsaStatus.INVALID_QUEUE, e.status());
    }

    @Test
    void shouldRefuseReservingASlotOnADestroyedQueue() {
        Queue q = gpuQueue();
        q.destroy();
        assertEquals(HsaStatus.INVALID_QUEUE, assertThrows(HsaException.class, q::reserveSlot).status());
    }

    @Test
    void shouldKeepOtherQueuesWorkingWhenOneIsDestroyed() {
        Queue doomed = gpuQueue();
        Queue survivor = gpuQueue();
        Queue cpuQueue = rt.cpuAgent().createQueue(16, QueueType.MULTI, null);
        Signal gate = rt.createSignal(1);
        Signal pending = rt.createSignal(1);
        Submit.barrierAnd(doomed, pending, gate.handle());
        doomed.destroy();

        Signal kernelDone = rt.createSignal(1);
        Submit.kernel(survivor, flagKernel).completion(kernelDone).submit();
        Await.completion(kernelDone);
        assertTrue(kernelRan.get());
        Signal barrierDone = rt.createSignal(1);
        Submit.barrierAnd(cpuQueue, barrierDone);
        Await.completion(barrierDone);
        assertEquals(1, rt.gpuAgent().queueCount());
    }

    @Test
    void shouldDestroyAQueueFromItsOwnErrorCallback() {
        AtomicInteger calls = new AtomicInteger();
        Queue q = rt.gpuAgent().createQueue(16, QueueType.MULTI, (e, queue) -> {
            calls.incrementAndGet();
            queue.destroy();
        });
        Signal gate = rt.createSignal(1);
        Signal head = rt.createSignal(1);
        Signal bad = rt.createSignal(1);
        Signal behind = rt.createSignal(1);
        Submit.barrierAnd(q, head, gate.handle()); // holds the head until everything is published
        Submit.raw(q, 7, bad);
        Submit.barrierAnd(q, behind);
        gate.storeScrelease(0);

        Await.completion(head);
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT, failureOf(bad).status());
        assertEquals(HsaStatus.INVALID_QUEUE, failureOf(behind).status());
        assertEquals(QueueState.DESTROYED, q.state());
        assertEquals(1, calls.get());
        Queue other = gpuQueue();
        Signal done = rt.createSignal(1);
        Submit.kernel(other, flagKernel).completion(done).submit();
        Await.completion(done);
    }
}
