package org.hsa4j.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import org.hsa4j.agent.spi.QueueFactory;
import org.hsa4j.memory.GlobalFlag;
import org.hsa4j.memory.Region;
import org.hsa4j.packet.AgentDispatchPacket;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Soft queues: written by the usual producer protocol, consumed by the application. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SoftQueueTest {
    private HsaRuntime rt;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    private Region fineRegion() {
        return rt.regions(rt.cpuAgent()).stream()
                .filter(r -> r.globalFlags().contains(GlobalFlag.FINE_GRAINED)).findFirst().orElseThrow();
    }

    @Test
    void shouldCarryAgentDispatchPacketsToTheApplicationsConsumer() throws InterruptedException {
        Signal doorbell = rt.createSignal(-1);
        Queue q = rt.createSoftQueue(fineRegion(), 4, QueueType.SINGLE, QueueDescriptor.FEATURE_AGENT_DISPATCH, doorbell);
        int packets = 40; // ten times the ring: slots are reused only after the consumer frees them
        Thread consumer = new Thread(() -> consume(q, packets), "soft-queue-consumer");
        consumer.start();
        long[] results = new long[packets];
        Signal done = rt.createSignal(packets);
        for (int i = 0; i < packets; i++) {
            results[i] = rt.hostMalloc(8);
            Submit.agentDispatch(q, 7, results[i], done, i, 1000);
        }
        Await.completion(done);
        consumer.join(TimeUnit.SECONDS.toMillis(20));
        assertFalse(consumer.isAlive());
        for (int i = 0; i < packets; i++) {
            assertEquals(i + 1000, rt.svm().getLong(results[i]));
        }
        assertEquals(packets, q.loadReadIndexScacquire());
    }

    /** The application's packet processor: adds arg0 and arg1 into the return address. */
    private void consume(Queue q, int packets) {
        for (long read = 0; read < packets; read++) {
            while (q.doorbell().waitScacquire(SignalCondition.GTE, read, TimeUnit.SECONDS.toNanos(1), WaitState.BLOCKED) < read) {
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
            }
            long base = q.slotOffset(read);
            int header = AqlPacket.loadHeaderWordAcquire(q.ring(), base);
            assertEquals(PacketType.AGENT_DISPATCH.code(), PacketHeader.typeCode(header));
            long at = q.packetAddress(read);
            long sum = rt.svm().getLong(at + AgentDispatchPacket.ARG0) + rt.svm().getLong(at + AgentDispatchPacket.ARG0 + 8);
            rt.svm().setLong(rt.svm().getLong(at + AgentDispatchPacket.RETURN_ADDRESS), sum);
            Signal completion = rt.signal(rt.svm().getLong(at + AqlPacket.COMPLETION_SIGNAL));
            AqlPacket.storeInvalid(q.ring(), base);
            q.storeReadIndexScrelease(read + 1);
            completion.subtractScrelease(1);
        }
    }

    @Test
    void shouldWriteReservedFieldsAsZeroThroughTheLaunchCall() {
        Queue q = rt.createSoftQueue(fineRegion(), 4, QueueType.SINGLE, QueueDescriptor.FEATURE_KERNEL_DISPATCH,
                rt.createSignal(-1));
        long base = q.slotOffset(0);
        q.ring().set(ValueLayout.JAVA_SHORT, base + KernelDispatchPacket.RESERVED0, (short) 0x5A5A);   // another producer's bytes
        q.ring().set(ValueLayout.JAVA_LONG, base + KernelDispatchPacket.RESERVED2, 0x5A5A_5A5A_5A5AL);
        q.launch(0x1234).grid(1).workgroup(1).kernarg(0).completion(rt.createSignal(1)).dispatch();
        assertEquals(0, q.ring().get(ValueLayout.JAVA_SHORT, base + KernelDispatchPacket.RESERVED0));
        assertEquals(0L, q.ring().get(ValueLayout.JAVA_LONG, base + KernelDispatchPacket.RESERVED2));
        assertEquals(PacketType.KERNEL_DISPATCH.code(), PacketHeader.typeCode(AqlPacket.loadHeaderWordAcquire(q.ring(), base)));
    }

    @Test
    void shouldTellThePublishObserverOfALaunchWrittenButNotYetPublished() {
        Queue q = rt.createSoftQueue(fineRegion(), 4, QueueType.SINGLE, QueueDescriptor.FEATURE_KERNEL_DISPATCH,
                rt.createSignal(-1));
        long[] seen = new long[4];
        QueueFactory.observePublish(q, (queue, id, headerWord) -> {
            seen[0] = id;
            seen[1] = headerWord;
            seen[2] = PacketHeader.typeCode(AqlPacket.loadHeaderWordAcquire(queue.ring(), queue.slotOffset(id)));
            seen[3] = queue.ring().get(ValueLayout.JAVA_LONG, queue.slotOffset(id) + KernelDispatchPacket.KERNEL_OBJECT);
        });
        q.launch(0x1234).grid(1).workgroup(1).kernarg(0).completion(rt.createSignal(1)).dispatch();
        assertEquals(0, seen[0], "the packet id");
        assertEquals(PacketType.INVALID.code(), seen[2], "the header not yet published");
        assertEquals(0x1234, seen[3], "the body written");
        assertEquals(AqlPacket.loadHeaderWordAcquire(q.ring(), q.slotOffset(0)), (int) seen[1], "the header word then published");
    }

    @Test
    void shouldHaveNoAgent() {
        Queue q = rt.createSoftQueue(fineRegion(), 16, QueueType.MULTI, QueueDescriptor.FEATURE_KERNEL_DISPATCH,
                rt.createSignal(0));
        assertNull(q.agent());
    }

    @Test
    void shouldLeaveTheApplicationsDoorbellAliveWhenDestroyed() {
        Signal doorbell = rt.createSignal(-1);
        Queue q = rt.createSoftQueue(fineRegion(), 16, QueueType.SINGLE, QueueDescriptor.FEATURE_AGENT_DISPATCH, doorbell);
        q.destroy();
        assertEquals(QueueState.DESTROYED, q.state());
        assertFalse(doorbell.isDestroyed());
        assertEquals(HsaStatus.INVALID_QUEUE, assertThrows(HsaException.class, q::destroy).status());
    }

    @Test
    void shouldRefuseASizeThatIsNotAPowerOfTwo() {
        assertEquals(HsaStatus.INVALID_ARGUMENT, assertThrows(HsaException.class, () -> rt.createSoftQueue(fineRegion(),
                12, QueueType.SINGLE, QueueDescriptor.FEATURE_AGENT_DISPATCH, rt.createSignal(0))).status());
    }

    @Test
    void shouldRefuseUnknownFeatures() {
        assertEquals(HsaStatus.INVALID_ARGUMENT, assertThrows(HsaException.class, () -> rt.createSoftQueue(fineRegion(),
                16, QueueType.SINGLE, 0x80, rt.createSignal(0))).status());
    }

    @Test
    void shouldRefuseACoarseGrainedRegion() {
        Region coarse = rt.regions(rt.gpuAgent()).stream()
                .filter(r -> r.globalFlags().contains(GlobalFlag.COARSE_GRAINED)).findFirst().orElseThrow();
        assertEquals(HsaStatus.INVALID_ARGUMENT, assertThrows(HsaException.class, () -> rt.createSoftQueue(coarse,
                16, QueueType.SINGLE, QueueDescriptor.FEATURE_AGENT_DISPATCH, rt.createSignal(0))).status());
    }

    @Test
    void shouldRefuseADestroyedDoorbell() {
        Signal doorbell = rt.createSignal(0);
        doorbell.destroy();
        assertEquals(HsaStatus.INVALID_SIGNAL, assertThrows(HsaException.class, () -> rt.createSoftQueue(fineRegion(),
                16, QueueType.SINGLE, QueueDescriptor.FEATURE_AGENT_DISPATCH, doorbell)).status());
    }
}
