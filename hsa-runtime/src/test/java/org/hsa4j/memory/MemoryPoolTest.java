package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.hsa4j.agent.Agent;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Memory pools: what they report, how they allocate, and how every bad allocate or free is refused. */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class MemoryPoolTest {
    private static final long SYSTEM_SIZE = 4L << 20;
    private static final long DEVICE_SIZE = 2L << 20;
    private static final long KERNARG_SIZE = 64L << 10;

    private HsaRuntime rt;

    private HsaRuntime runtime() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build());
        return rt;
    }

    private HsaRuntime smallRuntime() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).systemMemorySize(SYSTEM_SIZE)
                .deviceMemorySize(DEVICE_SIZE).kernargPoolSize(KERNARG_SIZE).build());
        return rt;
    }

    @AfterEach
    void stop() {
        if (rt != null) {
            rt.close();
        }
    }

    private static MemoryPool pool(Agent agent, SegmentKind segment, Set<GlobalFlag> flags) {
        return agent.memoryPools().stream().filter(p -> p.segment() == segment && p.flags().equals(flags)).findFirst()
                .orElseThrow(() -> new AssertionError(agent + " has no " + segment + " " + flags + " pool"));
    }

    private static void assertStatus(HsaStatus status, Executable call) {
        HsaException e = assertThrows(HsaException.class, call);
        assertEquals(status, e.status(), e.getMessage());
    }

    // ---- what pools report ----------------------------------------------------------------------

    @Test
    void shouldGiveTheCpuAgentFineKernargAndCoarseGlobalPools() {
        smallRuntime();
        Agent cpu = rt.cpuAgent();
        MemoryPool fine = pool(cpu, SegmentKind.GLOBAL, EnumSet.of(GlobalFlag.FINE_GRAINED));
        MemoryPool kernarg = pool(cpu, SegmentKind.GLOBAL, EnumSet.of(GlobalFlag.KERNARG, GlobalFlag.FINE_GRAINED));
        MemoryPool coarse = pool(cpu, SegmentKind.GLOBAL, EnumSet.of(GlobalFlag.COARSE_GRAINED));
        assertSame(rt.systemPool(), fine);
        assertSame(rt.kernargPool(), kernarg);
        assertEquals(SYSTEM_SIZE, fine.size());
        assertEquals(SYSTEM_SIZE, fine.allocMax());
        assertEquals(KERNARG_SIZE, kernarg.size());
        assertEquals(SYSTEM_SIZE, coarse.size());
        assertTrue(fine.isFineGrained());
        assertFalse(coarse.isFineGrained());
        for (MemoryPool p : List.of(fine, kernarg, coarse)) {
            assertTrue(p.runtimeAllocAllowed(), p.name());
            assertEquals(0, p.ownerAgent(), p.name());
        }
    }

    @Test
    void shouldGiveEachGpuCoarseFineGroupAndPrivatePools() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).gpuAgents(2).deviceMemorySize(DEVICE_SIZE)
                .groupSegmentMax(32768).privateSegmentMax(4096).build());
        for (Agent gpu : rt.gpuAgents()) {
            MemoryPool coarse = pool(gpu, SegmentKind.GLOBAL, EnumSet.of(GlobalFlag.COARSE_GRAINED));
            MemoryPool fine = pool(gpu, SegmentKind.GLOBAL, EnumSet.of(GlobalFlag.FINE_GRAINED));
            MemoryPool group = pool(gpu, SegmentKind.GROUP, Set.of());
            MemoryPool priv = pool(gpu, SegmentKind.PRIVATE, Set.of());
            assertEquals(DEVICE_SIZE, coarse.size());
            assertEquals(DEVICE_SIZE, coarse.allocMax());
            assertEquals(DEVICE_SIZE, fine.size());
            assertEquals(32768, group.size());
            assertEquals(4096, priv.size());
            assertTrue(coarse.runtimeAllocAllowed());
            assertTrue(fine.runtimeAllocAllowed());
            assertFalse(group.runtimeAllocAllowed());
            assertFalse(priv.runtimeAllocAllowed());
            assertFalse(coarse.accessibleByAll());
            assertTrue(fine.accessibleByAll());
            for (MemoryPool p : gpu.memoryPools()) {
                assertEquals(gpu.index(), p.ownerAgent(), p.name());
            }
        }
    }

    @Test
    void shouldReportGranuleAndAlignmentOfEveryPool() {
        runtime();
        for (Agent agent : rt.agents()) {
            for (MemoryPool p : agent.memoryPools()) {
                assertEquals(MemoryPool.GRANULE, p.granule(), p.name());
                assertEquals(MemoryPool.ALIGNMENT, p.alignment(), p.name());
                assertTrue(Long.bitCount(p.alignment()) == 1 && p.alignment() >= 8, p.name());
                assertTrue(p.allocMax() <= p.size(), p.name());
            }
        }
    }

    @Test
    void shouldRefuseToAllocateFromGroupAndPrivatePools() {
        runtime();
        Agent gpu = rt.gpuAgent();
        for (SegmentKind segment : List.of(SegmentKind.GROUP, SegmentKind.PRIVATE)) {
            MemoryPool p = pool(gpu, segment, Set.of());
            assertStatus(HsaStatus.INVALID_MEMORY_POOL, () -> p.allocate(64));
            assertStatus(HsaStatus.INVALID_MEMORY_POOL, () -> rt.allocate(p, 64));
            assertEquals(0, p.used());
        }
    }

    // ---- allocating -----------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(longs = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 1L << 20})
    void shouldAlignAllocationsAsAsked(long alignment) {
        runtime();
        MemoryPool p = rt.systemPool();
        for (long bytes : new long[] {1, alignment / 2 + 1, alignment, 3 * alignment + 8}) {
            p.allocate(64);
            long address = p.allocate(bytes, alignment);
            Allocation a = rt.pointerInfo(address);
            assertEquals(0, address % alignment, "SVM address of " + bytes + " bytes");
            assertEquals(0, a.segment().address() % alignment, "native address of " + bytes + " bytes");
            assertEquals(bytes, a.size());
            rt.svm().setByte(address + bytes - 1, (byte) 1);
        }
    }

    @Test
    void shouldRefuseAnAlignmentThatIsNotAPowerOfTwoOrTooLarge() {
        runtime();
        MemoryPool p = rt.systemPool();
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> p.allocate(64, 96));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> p.allocate(64, 0));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> p.allocate(64, -64));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> p.allocate(64, MemoryPool.MAX_ALIGNMENT * 2));
        assertEquals(0, p.used());
    }

    @Test
    void shouldRefuseZeroOrNegativeSizes() {
        runtime();
        int live = rt.memory().addressSpace().liveAllocations();
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> rt.systemPool().allocate(0));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> rt.kernargPool().allocate(-1));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> rt.hostMalloc(0));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> rt.deviceMalloc(rt.gpuAgent(), -64));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> rt.managedMalloc(Long.MIN_VALUE));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> rt.systemMalloc(0));
        assertEquals(live, rt.memory().addressSpace().liveAllocations());
    }

    @Test
    void shouldRefuseAnAllocationLargerThanAllocMax() {
        smallRuntime();
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.kernargPool().allocate(KERNARG_SIZE + 1));
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.deviceMalloc(rt.gpuAgent(), DEVICE_SIZE + 1));
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.hostMalloc(SYSTEM_SIZE + 1));
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.hostMalloc(Long.MAX_VALUE));
        assertEquals(0, rt.systemPool().used());
    }

    @Test
    void shouldAllocateTheWholePoolInOneAllocationAtAllocMax() {
        smallRuntime();
        long a = rt.deviceMalloc(rt.gpuAgent(), DEVICE_SIZE);
        assertEquals(DEVICE_SIZE, rt.pointerInfo(a).size());
        rt.free(a);
    }

    @Test
    void shouldRunOutOfAKernargPoolAndAllocateAgainAfterAFree() {
        smallRuntime();
        MemoryPool p = rt.kernargPool();
        List<Long> blocks = new ArrayList<>();
        HsaException e = null;
        while (e == null) {
            try {
                blocks.add(p.allocate(64));
            } catch (HsaException ex) {
                e = ex;
            }
        }
        assertEquals(HsaStatus.OUT_OF_RESOURCES, e.status());
        assertEquals(KERNARG_SIZE / 64, blocks.size());
        assertEquals(KERNARG_SIZE, p.used());
        p.free(blocks.remove(17));
        long again = p.allocate(64);
        rt.svm().setLong(again, 5);
        assertStatus(HsaStatus.OUT_OF_RESOURCES, () -> p.allocate(64));
    }

    @Test
    void shouldRunOutOfDeviceMemoryAndAllocateAgainAfterAFree() {
        smallRuntime();
        Agent gpu = rt.gpuAgent();
        long quarter = DEVICE_SIZE / 4;
        long[] parts = new long[4];
        for (int i = 0; i < 4; i++) {
            parts[i] = rt.deviceMalloc(gpu, quarter);
        }
        assertStatus(HsaStatus.OUT_OF_RESOURCES, () -> rt.deviceMalloc(gpu, 64));
        rt.free(parts[2]);
        parts[2] = rt.deviceMalloc(gpu, quarter);
        assertStatus(HsaStatus.OUT_OF_RESOURCES, () -> rt.deviceMalloc(gpu, 64));
    }

    @Test
    void shouldRunOutOfSystemMemoryAndAllocateAgainAfterAFree() {
        smallRuntime();
        long used = rt.systemPool().used();
        List<Long> chunks = new ArrayList<>();
        long chunk = 1L << 20;
        while (rt.systemPool().used() + chunk <= SYSTEM_SIZE) {
            chunks.add(rt.hostMalloc(chunk));
        }
        assertTrue(chunks.size() >= 3);
        assertStatus(HsaStatus.OUT_OF_RESOURCES, () -> rt.hostMalloc(chunk));
        assertStatus(HsaStatus.OUT_OF_RESOURCES, () -> rt.systemMalloc(chunk));
        rt.free(chunks.get(0));
        rt.managedMalloc(chunk);
        for (int i = 1; i < chunks.size(); i++) {
            rt.free(chunks.get(i));
        }
        assertEquals(used + chunk, rt.systemPool().used());
    }

    @Test
    void shouldKeepTheCountUnchangedWhenAnAllocationIsRefused() {
        smallRuntime();
        int live = rt.memory().addressSpace().liveAllocations();
        long used = rt.kernargPool().used();
        for (int i = 0; i < 3; i++) {
            assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.kernargPool().allocate(KERNARG_SIZE * 2));
        }
        assertEquals(live, rt.memory().addressSpace().liveAllocations());
        assertEquals(used, rt.kernargPool().used());
    }

    // ---- freeing --------------------------------------------------------------------------------

    @Test
    void shouldRefuseADoubleFreeAndChangeNothing() {
        runtime();
        long a = rt.hostMalloc(64);
        long b = rt.hostMalloc(64);
        rt.svm().setLong(b, 42);
        rt.free(a);
        long used = rt.systemPool().used();
        int live = rt.memory().addressSpace().liveAllocations();
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.free(a));
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.systemPool().free(a));
        assertEquals(used, rt.systemPool().used());
        assertEquals(live, rt.memory().addressSpace().liveAllocations());
        assertEquals(42, rt.svm().getLong(b));
        long c = rt.hostMalloc(64);
        assertNotEquals(b, c);
        assertEquals(42, rt.svm().getLong(b));
    }

    @Test
    void shouldRefuseToFreeAnInteriorPointer() {
        runtime();
        long a = rt.hostMalloc(128);
        rt.svm().setLong(a, 7);
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.free(a + 64));
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.systemPool().free(a + 1));
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.free(a + 128));
        assertEquals(7, rt.svm().getLong(a));
        rt.free(a);
    }

    @Test
    void shouldRefuseToFreeAForeignAddress() {
        runtime();
        int live = rt.memory().addressSpace().liveAllocations();
        for (long foreign : new long[] {0, 64, -64, Long.MIN_VALUE, SvmAddress.encode(99_999, 1, 0)}) {
            if (foreign != 0) { // rt.free(0) is free(NULL): a no-op
                assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.free(foreign));
            }
            assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.systemPool().free(foreign));
        }
        assertEquals(live, rt.memory().addressSpace().liveAllocations());
    }

    @Test
    void shouldRefuseToFreeAnotherPoolsAllocationThroughAPool() {
        runtime();
        long a = rt.kernargPool().allocate(64);
        long d = rt.deviceMalloc(rt.gpuAgent(), 64);
        assertStatus(HsaStatus.INVALID_MEMORY_POOL, () -> rt.systemPool().free(a));
        assertStatus(HsaStatus.INVALID_MEMORY_POOL, () -> rt.kernargPool().free(d));
        assertSame(rt.kernargPool(), rt.pointerInfo(a).pool());
        rt.kernargPool().free(a);
        rt.free(d);
        assertNull(rt.pointerInfo(a));
        assertNull(rt.pointerInfo(d));
    }

    @Test
    void shouldRefuseToFreeASignalsMemory() {
        runtime();
        Signal s = rt.createSignal(5);
        Signal t = rt.createSignal(6);
        assertEquals(MemoryKind.INTERNAL, rt.pointerInfo(s.handle()).kind());
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.free(s.handle()));
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.free(t.handle()));
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.systemPool().free(s.handle()));
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.systemPool().free(rt.pointerInfo(t.handle()).base()));
        assertEquals(5, s.loadScacquire());
        s.storeScrelease(8);
        assertEquals(8, s.loadScacquire());
        assertEquals(6, rt.signal(t.handle()).loadScacquire());
    }

    @Test
    void shouldRefuseToFreeAQueuesMemory() {
        runtime();
        Queue q = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.free(q.baseAddress()));
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.free(q.handle()));
        assertStatus(HsaStatus.INVALID_ALLOCATION, () -> rt.systemPool().free(q.baseAddress()));
        long cell = rt.hostMalloc(8);
        rt.svm().setLong(cell, 0);
        KernelLauncher.await(KernelLauncher.launch(rt, q,
                wi -> wi.svm().setLong(KernelLauncher.arg(wi, 0), 11), 1, 1, cell));
        assertEquals(11, rt.svm().getLong(cell));
    }

    // ---- small and large allocations ------------------------------------------------------------

    @Test
    void shouldFreeALargeAllocationAndGiveItsMemoryBack() {
        runtime();
        long before = rt.memory().reservedBytes();
        long big = 3L << 20;
        long a = rt.hostMalloc(big);
        rt.svm().setLong(a + big - 8, 1);
        assertTrue(rt.memory().reservedBytes() >= before + big);
        rt.free(a);
        assertEquals(before, rt.memory().reservedBytes());
        assertEquals(0, rt.systemPool().used());
        MemoryFaultException e = assertThrows(MemoryFaultException.class, () -> rt.svm().getLong(a + big - 8));
        assertEquals(a + big - 8, e.address());
        long b = rt.hostMalloc(big);
        rt.svm().setLong(b + big - 8, 2);
        assertEquals(2, rt.svm().getLong(b + big - 8));
    }

    @Test
    void shouldReuseFreedSmallBlocksWithoutGrowingTheHeap() {
        runtime();
        long[] warm = new long[256];
        for (int i = 0; i < warm.length; i++) {
            warm[i] = rt.hostMalloc(1000);
        }
        for (long a : warm) {
            rt.free(a);
        }
        long reserved = rt.memory().reservedBytes();
        for (int round = 0; round < 50; round++) {
            for (int i = 0; i < warm.length; i++) {
                warm[i] = rt.hostMalloc(1000);
                rt.svm().setInt(warm[i] + 996, round);
            }
            for (long a : warm) {
                rt.free(a);
            }
        }
        assertEquals(reserved, rt.memory().reservedBytes());
        assertEquals(0, rt.systemPool().used());
    }

    @Test
    void shouldKeepSmallAndLargeAllocationsApart() {
        runtime();
        long small = rt.hostMalloc(100);
        long large = rt.hostMalloc(2L << 20);
        rt.svm().fill(small, 100, (byte) 1);
        rt.svm().fill(large, 2L << 20, (byte) 2);
        rt.free(large);
        for (int i = 0; i < 100; i++) {
            assertEquals(1, rt.svm().getByte(small + i));
        }
        long again = rt.hostMalloc(2L << 20);
        assertEquals(2L << 20, rt.pointerInfo(again).size());
        rt.free(small);
        rt.svm().setByte(again + (2L << 20) - 1, (byte) 3);
    }

    @Test
    void shouldReleaseLargeAllocationsWhenTheRuntimeCloses() {
        runtime();
        long a = rt.hostMalloc(2L << 20);
        var segment = rt.pointerInfo(a).segment();
        rt.close();
        assertFalse(segment.scope().isAlive());
    }
}
