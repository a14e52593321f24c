package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalDescriptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Launch order, the barrier bit, slot recycling and fence scopes of the packet processor. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PacketOrderingTest {
    /** Kernarg layout of the spin kernel: u64 flag address (spin until non-zero), u64 started address. */
    static final int SPIN_KERNARG = 16;
    /** Kernarg layout of the probe kernel: u64 address of a signal's value, u64 result address. */
    static final int PROBE_KERNARG = 16;

    private HsaRuntime rt;
    private Svm svm;

    private void start(int computeUnits) {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(computeUnits).build());
        svm = rt.svm();
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    /** Marks itself started, then spins (bounded) until the host sets the flag. */
    static void spinOnFlag(WorkItem wi) {
        long flag = wi.kernarg().get(ValueLayout.JAVA_LONG, 0);
        long started = wi.kernarg().get(ValueLayout.JAVA_LONG, 8);
        wi.svm().atomicStoreInt(started, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        long deadline = System.nanoTime() + Await.DEFAULT.toNanos();
        while (wi.svm().atomicLoadInt(flag, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the host never set the flag");
            }
            Thread.onSpinWait();
        }
    }

    /** Copies the value of the signal whose handle is kernarg 0 to the address in kernarg 1. */
    static void probeSignal(WorkItem wi) {
        long signal = wi.kernarg().get(ValueLayout.JAVA_LONG, 0);
        long result = wi.kernarg().get(ValueLayout.JAVA_LONG, 8);
        long value = wi.svm().atomicLoadLong(signal + SignalDescriptor.VALUE, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
        wi.svm().atomicStoreLong(result, value, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
    }

    private long spinKernel() {
        return rt.createExecutable().define("spin", KernelDescriptor.withKernarg(SPIN_KERNARG),
                PacketOrderingTest::spinOnFlag).freeze().symbol("spin").kernelObject();
    }

    private long kernargs(long... values) {
        long k = rt.kernargPool().allocate(8L * values.length);
        for (int i = 0; i < values.length; i++) {
            svm.setLong(k + 8L * i, values[i]);
        }
        return k;
    }

    @Test
    void shouldLaunchPacketsInOrderWhateverOrderTheyArePublishedIn() {
        start(1);
        List<Long> ran = new CopyOnWriteArrayList<>();
        long record = rt.createExecutable().define("record", KernelDescriptor.EMPTY, wi -> ran.add(wi.packetId()))
                .freeze().symbol("record").kernelObject();
        Queue q = rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
        long[] ids = {q.reserveSlot(), q.reserveSlot(), q.reserveSlot()};
        Signal[] done = {rt.createSignal(1), rt.createSignal(1), rt.createSignal(1)};
        for (int i = 2; i >= 1; i--) {
            Submit.kernel(q, record).completion(done[i]).publish(ids[i]);
            q.ringDoorbell(ids[i]);
        }
        Scans.awaitFullScan(rt.gpuAgent());
        assertEquals(ids[0], q.loadReadIndexScacquire(), "a packet behind an unpublished one was consumed");
        assertEquals(List.of(), ran);

        Submit.kernel(q, record).completion(done[0]).publish(ids[0]);
        q.ringDoorbell(ids[0]);
        for (Signal s : done) {
            Await.completion(s);
        }
        assertEquals(List.of(ids[0], ids[1], ids[2]), ran);
        assertTrue(done[0].startTimestamp() <= done[1].startTimestamp()
                && done[1].startTimestamp() <= done[2].startTimestamp(), "launch timestamps out of order");
    }

    @Test
    void shouldLaunchAPacketPublishedWithoutADoorbellWhileTheRoleHolderWatchesTheDoorbells() {
        start(1);
        long empty = rt.createExecutable().define("empty", KernelDescriptor.EMPTY, wi -> { }).freeze()
                .symbol("empty").kernelObject();
        Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        Signal rung = rt.createSignal(1);
        Submit.kernel(q, empty).completion(rung).submit();
        Await.completion(rung); // its unit took the role to signal it, and now watches the doorbell
        Signal unrung = rt.createSignal(1);
        Submit.kernel(q, empty).completion(unrung).publish(q.reserveSlot()); // published, never rung
        Await.completion(unrung);
    }

    @Test
    void shouldCompleteOutOfOrderWhenTheBarrierBitIsClear() {
        start(2);
        long spin = spinKernel();
        long quick = rt.createExecutable().define("quick", KernelDescriptor.EMPTY, wi -> { }).freeze()
                .symbol("quick").kernelObject();
        long flag = rt.hostMalloc(8);
        long started = rt.hostMalloc(8);
        Queue q = rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
        Signal first = rt.createSignal(1);
        Signal second = rt.createSignal(1);
        Submit.kernel(q, spin).kernarg(kernargs(flag, started)).completion(first).submit();
        Submit.kernel(q, quick).completion(second).submit();

        Await.completion(second);
        assertEquals(1, first.loadScacquire(), "the first packet must still be running");
        svm.atomicStoreInt(flag, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        Await.completion(first);
        assertTrue(second.endTimestamp() < first.endTimestamp());
    }

    @Test
    void shouldNotStartAPacketWithTheBarrierBitBeforeEarlierPacketsComplete() {
        start(2);
        long spin = spinKernel();
        long probe = rt.createExecutable().define("probe", KernelDescriptor.withKernarg(PROBE_KERNARG),
                PacketOrderingTest::probeSignal).freeze().symbol("probe").kernelObject();
        long flag = rt.hostMalloc(8);
        long started = rt.hostMalloc(8);
        long observed = rt.hostMalloc(8);
        svm.setLong(observed, -1);
        Queue q = rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
        Signal first = rt.createSignal(1);
        Signal second = rt.createSignal(1);
        Submit.kernel(q, spin).kernarg(kernargs(flag, started)).completion(first).submit();
        Await.until(() -> svm.atomicLoadInt(started, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) == 1, "spin to start");
        long secondId = Submit.kernel(q, probe).kernarg(kernargs(first.handle(), observed)).completion(second)
                .barrier(true).submit();

        Scans.awaitFullScan(rt.gpuAgent());
        assertEquals(secondId, q.loadReadIndexScacquire(), "the barrier-bit packet was launched early");
        assertEquals(-1, svm.getLong(observed));
        svm.atomicStoreInt(flag, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        Await.completion(second);
        assertEquals(0, svm.atomicLoadLong(observed, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM),
                "the barrier-bit packet ran before the first packet's completion signal was decremented");
    }

    @Test
    void shouldInvalidateAConsumedSlotAndAdvanceTheReadIndex() {
        start(1);
        long quick = rt.createExecutable().define("quick", KernelDescriptor.EMPTY, wi -> { }).freeze()
                .symbol("quick").kernelObject();
        Queue q = rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
        Signal kernelDone = rt.createSignal(1);
        Signal barrierDone = rt.createSignal(1);
        long kernel = Submit.kernel(q, quick).completion(kernelDone).submit();
        long barrier = Submit.barrierAnd(q, barrierDone);
        Await.completion(kernelDone);
        Await.completion(barrierDone);
        Await.until(() -> q.loadReadIndexScacquire() == barrier + 1, "the read index to pass both packets");
        assertEquals(PacketType.INVALID.code(), Submit.headerType(q, kernel));
        assertEquals(PacketType.INVALID.code(), Submit.headerType(q, barrier));
    }

    @Test
    void shouldReuseEverySlotOfTheRingManyTimes() {
        start(1);
        long quick = rt.createExecutable().define("quick", KernelDescriptor.EMPTY, wi -> { }).freeze()
                .symbol("quick").kernelObject();
        Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        Signal done = rt.createSignal(16 * 10);
        for (int i = 0; i < 16 * 10; i++) {
            Submit.kernel(q, quick).completion(done).submit();
        }
        Await.completion(done);
        Await.until(() -> q.loadReadIndexScacquire() == 160, "every packet consumed");
    }

    @Test
    void shouldRunEveryPacketInQueueOrderWhenMoreArePublishedThanTheLaunchRingHolds() {
        start(1);
        int queues = 20;
        int perQueue = 100;
        long spin = spinKernel();
        List<Long> ran = new CopyOnWriteArrayList<>();
        long record = rt.createExecutable().define("record", KernelDescriptor.withKernarg(8),
                wi -> ran.add(wi.kernarg().get(ValueLayout.JAVA_LONG, 0) * 1_000_000 + wi.packetId()))
                .freeze().symbol("record").kernelObject();
        long flag = rt.hostMalloc(8);
        long started = rt.hostMalloc(8);
        Queue gate = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        Signal gateDone = rt.createSignal(1);
        Submit.kernel(gate, spin).kernarg(kernargs(flag, started)).completion(gateDone).submit();
        Await.until(() -> svm.atomicLoadInt(started, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) == 1, "the gate to start");
        Signal done = rt.createSignal((long) queues * perQueue);
        for (int q = 0; q < queues; q++) {
            Queue queue = rt.gpuAgent().createQueue(128, QueueType.SINGLE, null);
            long kernarg = kernargs(q);
            for (int i = 0; i < perQueue; i++) {
                Submit.kernel(queue, record).kernarg(kernarg).completion(done).submit();
            }
        }
        assertTrue(queues * PacketProcessor.BATCH > LaunchRing.CAPACITY, "one scan must be able to fill the ring");

        svm.atomicStoreInt(flag, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        Await.completion(gateDone);
        Await.completion(done);
        assertEquals(queues * perQueue, ran.size());
        for (int q = 0; q < queues; q++) {
            long queue = q;
            List<Long> ids = ran.stream().filter(r -> r / 1_000_000 == queue).map(r -> r % 1_000_000).toList();
            assertEquals(LongStream.range(0, perQueue).boxed().toList(), ids,
                    "queue " + q + " ran its packets out of order or lost some");
        }
    }

    @ParameterizedTest
    @EnumSource(FenceScope.class)
    void shouldAcceptEveryAcquireFenceScope(FenceScope scope) {
        start(1);
        assertFenceScopesAccepted(scope, FenceScope.SYSTEM);
    }

    @ParameterizedTest
    @EnumSource(FenceScope.class)
    void shouldAcceptEveryReleaseFenceScope(FenceScope scope) {
        start(1);
        assertFenceScopesAccepted(FenceScope.SYSTEM, scope);
    }

    private void assertFenceScopesAccepted(FenceScope acquire, FenceScope release) {
        long out = rt.hostMalloc(8);
        long write = rt.createExecutable().define("write", KernelDescriptor.withKernarg(8),
                        wi -> wi.svm().setLong(wi.kernarg().get(ValueLayout.JAVA_LONG, 0), 42))
                .freeze().symbol("write").kernelObject();
        Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        Signal done = rt.createSignal(1);
        Submit.kernel(q, write).kernarg(kernargs(out)).fences(acquire, release).completion(done).submit();
        Await.completion(done);
        assertEquals(42, svm.getLong(out));
        assertEquals(1, q.loadReadIndexScacquire());
    }
}
