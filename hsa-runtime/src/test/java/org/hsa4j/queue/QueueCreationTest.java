package org.hsa4j.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.agent.Agent;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueCreationTest {
    private HsaRuntime rt;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).queueMinSize(16).queueMaxSize(1024)
                .queuesMax(3).build());
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    @ParameterizedTest
    @ValueSource(ints = {16, 32, 512, 1024})
    void shouldCreateQueuesOfPowerOfTwoSizesWithinTheLimits(int size) {
        Queue q = rt.gpuAgent().createQueue(size, QueueType.MULTI, null);
        assertEquals(size, q.size());
        assertEquals(QueueState.ACTIVE, q.state());
        assertSame(rt.gpuAgent(), q.agent());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -16, 3, 48, 1000, 2048, Integer.MIN_VALUE})
    void shouldRefuseASizeThatIsNotAPowerOfTwoWithinTheLimits(int size) {
        HsaException e = assertThrows(HsaException.class, () -> rt.gpuAgent().createQueue(size, QueueType.SINGLE, null));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertEquals(0, rt.gpuAgent().queueCount());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4, 8})
    void shouldCreateAQueueOfTheMinimumSizeForASmallerPowerOfTwo(int size) {
        Queue q = rt.gpuAgent().createQueue(size, QueueType.SINGLE, null);
        assertEquals(rt.gpuAgent().queueMinSize(), q.size());
        assertEquals(QueueState.ACTIVE, q.state());
    }

    @Test
    void shouldRunOutOfResourcesPastQueuesMax() {
        Agent gpu = rt.gpuAgent();
        List<Queue> made = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            made.add(gpu.createQueue(16, QueueType.MULTI, null));
        }
        HsaException e = assertThrows(HsaException.class, () -> gpu.createQueue(16, QueueType.MULTI, null));
        assertEquals(HsaStatus.OUT_OF_RESOURCES, e.status());
        assertEquals(3, gpu.queueCount());
    }

    @Test
    void shouldMakeRoomForANewQueueWhenOneIsDestroyed() {
        Agent gpu = rt.gpuAgent();
        List<Queue> made = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            made.add(gpu.createQueue(16, QueueType.MULTI, null));
        }
        made.get(1).destroy();
        assertEquals(2, gpu.queueCount());
        Queue again = gpu.createQueue(16, QueueType.MULTI, null);
        assertEquals(QueueState.ACTIVE, again.state());
    }

    @Test
    void shouldCountQueuesPerAgent() {
        rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
        for (int i = 0; i < 3; i++) {
            rt.cpuAgent().createQueue(16, QueueType.MULTI, null);
        }
        assertEquals(1, rt.gpuAgent().queueCount());
        assertEquals(3, rt.cpuAgent().queueCount());
    }

    @Test
    void shouldGiveEveryQueueADistinctId() {
        Queue a = rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
        Queue b = rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
        Queue c = rt.cpuAgent().createQueue(16, QueueType.MULTI, null);
        assertTrue(a.id() != b.id() && b.id() != c.id() && a.id() != c.id());
    }

    @Test
    void shouldLayTheGpuQueueDescriptorOutInSvm() {
        Queue q = rt.gpuAgent().createQueue(256, QueueType.SINGLE, null);
        Svm svm = rt.svm();
        long h = q.handle();
        assertEquals(QueueType.SINGLE.code(), svm.getInt(h + QueueDescriptor.TYPE));
        assertEquals(QueueDescriptor.FEATURE_KERNEL_DISPATCH, svm.getInt(h + QueueDescriptor.FEATURES));
        assertEquals(q.baseAddress(), svm.getLong(h + QueueDescriptor.BASE_ADDRESS));
        assertEquals(q.doorbell().handle(), svm.getLong(h + QueueDescriptor.DOORBELL_SIGNAL));
        assertEquals(256, svm.getInt(h + QueueDescriptor.SIZE));
        assertEquals(q.id(), svm.getLong(h + QueueDescriptor.ID));
        assertEquals(0, h % QueueDescriptor.ALIGNMENT);
    }

    @Test
    void shouldLayTheCpuQueueDescriptorOutInSvm() {
        Queue q = rt.cpuAgent().createQueue(64, QueueType.MULTI, null);
        Svm svm = rt.svm();
        long h = q.handle();
        assertEquals(QueueType.MULTI.code(), svm.getInt(h + QueueDescriptor.TYPE));
        assertEquals(QueueDescriptor.FEATURE_AGENT_DISPATCH, svm.getInt(h + QueueDescriptor.FEATURES));
        assertEquals(64, svm.getInt(h + QueueDescriptor.SIZE));
    }

    @Test
    void shouldResolveTheDoorbellHandleToTheQueuesDoorbell() {
        Queue q = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
        long handle = rt.svm().getLong(q.handle() + QueueDescriptor.DOORBELL_SIGNAL);
        assertSame(q.doorbell(), rt.signal(handle));
    }

    @Test
    void shouldKeepTheIndicesInTheDescriptor() {
        Queue q = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
        Svm svm = rt.svm();
        assertEquals(0, svm.getLong(q.handle() + QueueDescriptor.WRITE_INDEX));
        assertEquals(0, svm.getLong(q.handle() + QueueDescriptor.READ_INDEX));
        q.storeWriteIndexRelaxed(41);
        assertEquals(41, svm.getLong(q.handle() + QueueDescriptor.WRITE_INDEX));
        svm.setLong(q.handle() + QueueDescriptor.WRITE_INDEX, 7);
        assertEquals(7, q.loadWriteIndexScacquire());
    }

    @Test
    void shouldPlaceEveryPacketSlotInsideTheRing() {
        Queue q = rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
        assertEquals(q.baseAddress(), q.packetAddress(0));
        assertEquals(q.baseAddress() + 64 * 15, q.packetAddress(15));
        assertEquals(q.baseAddress(), q.packetAddress(16));
        assertEquals(q.baseAddress() + 64 * 3, q.packetAddress(16 * 1000 + 3));
        assertEquals(16L * 64, rt.pointerInfo(q.baseAddress()).size());
    }
}
