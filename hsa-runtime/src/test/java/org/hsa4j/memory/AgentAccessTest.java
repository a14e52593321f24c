package org.hsa4j.memory;

import static org.hsa4j.memory.KernelLauncher.arg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.hsa4j.agent.Agent;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which agent may touch which memory, enforced on every access (ROCm's rules): host and managed
 * memory everywhere, device memory by its GPU until allow_access, system memory by GPUs only
 * with XNACK; hsa_memory_copy works between any live allocations.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AgentAccessTest {
    private HsaRuntime rt;

    @AfterEach
    void stop() {
        if (rt != null) {
            rt.close();
        }
    }

    private HsaRuntime runtime(int gpus, boolean xnack) {
        rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(gpus).computeUnits(1).xnack(xnack).build());
        return rt;
    }

    /** Runs a one-work-item kernel on {@code gpu} that adds 1 to the long at {@code address}; waits for it. */
    private void incrementInKernel(Agent gpu, long address) {
        Queue q = gpu.createQueue(16, QueueType.SINGLE, null);
        try {
            KernelLauncher.await(KernelLauncher.launch(rt, q,
                    wi -> wi.svm().setLong(arg(wi, 0), wi.svm().getLong(arg(wi, 0)) + 1), 1, 1, address));
        } finally {
            q.destroy();
        }
    }

    /** Runs the same kernel on {@code gpu}; asserts it faults with {@code status} at {@code address} through callback and signal. */
    private void assertKernelFaults(Agent gpu, long address, HsaStatus status) {
        assertKernelFaults(gpu, address, status, address);
    }

    /** As above, the fault naming {@code faultAddress} (a page's address for a page fault). */
    private void assertKernelFaults(Agent gpu, long address, HsaStatus status, long faultAddress) {
        CompletableFuture<HsaException> reported = new CompletableFuture<>();
        Queue q = gpu.createQueue(16, QueueType.SINGLE, (error, queue) -> reported.complete(error));
        DispatchCompletion done = KernelLauncher.launch(rt, q,
                wi -> wi.svm().setLong(arg(wi, 0), wi.svm().getLong(arg(wi, 0)) + 1), 1, 1, address);
        HsaException waited = assertThrows(HsaException.class, () -> KernelLauncher.await(done));
        assertEquals(status, waited.status());
        MemoryFaultException fault = assertInstanceOf(MemoryFaultException.class, reported.join());
        assertEquals(status, fault.status());
        assertEquals(faultAddress, fault.address());
        q.destroy();
    }

    private static void assertHostFaults(Svm svm, long address, HsaStatus status) {
        MemoryFaultException e = assertThrows(MemoryFaultException.class, () -> svm.getLong(address));
        assertEquals(status, e.status());
        assertEquals(address, e.address());
    }

    @Test
    void shouldLetHostAndGpuAccessHostMallocMemory() {
        runtime(1, false);
        long a = rt.hostMalloc(64);
        rt.svm().setLong(a + 8, 41);
        incrementInKernel(rt.gpuAgent(), a + 8);
        assertEquals(42, rt.svm().getLong(a + 8));
        assertEquals(MemoryKind.HOST, rt.pointerInfo(a).kind());
        assertTrue(rt.pointerInfo(a).fineGrained());
    }

    @Test
    void shouldLetHostAndGpuAccessManagedMemory() {
        runtime(1, false);
        long a = rt.managedMalloc(64);
        rt.svm().setLong(a, 9);
        incrementInKernel(rt.gpuAgent(), a);
        assertEquals(10, rt.svm().getLong(a));
        assertEquals(MemoryKind.MANAGED, rt.pointerInfo(a).kind());
    }

    @Test
    void shouldLetOnlyItsGpuAccessDeviceMemory() {
        runtime(1, false);
        Agent gpu = rt.gpuAgent();
        long d = rt.deviceMalloc(gpu, 64);
        gpu.svm().setLong(d + 16, 1);
        incrementInKernel(gpu, d + 16);
        assertEquals(2, gpu.svm().getLong(d + 16));
        assertHostFaults(rt.svm(), d + 16, HsaStatus.MEMORY_APERTURE_VIOLATION);
        MemoryFaultException e = assertThrows(MemoryFaultException.class,
                () -> rt.svm().atomicAddLong(d, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM));
        assertEquals(HsaStatus.MEMORY_APERTURE_VIOLATION, e.status());
        assertEquals(d, e.address());
        Allocation info = rt.pointerInfo(d);
        assertEquals(gpu.index(), info.ownerAgent());
        assertEquals(1L << gpu.index(), info.accessMask());
        assertEquals(MemoryKind.DEVICE, info.kind());
    }

    @Test
    void shouldLetTheHostAccessDeviceMemoryAfterAllowAccess() {
        runtime(1, false);
        long d = rt.deviceMalloc(rt.gpuAgent(), 64);
        rt.allowAccess(d, rt.cpuAgent());
        rt.svm().setLong(d, 5);
        incrementInKernel(rt.gpuAgent(), d);
        assertEquals(6, rt.svm().getLong(d));
    }

    @Test
    void shouldRefuseAllowAccessOnAnythingButTheStartOfALiveAllocation() {
        runtime(1, false);
        long d = rt.deviceMalloc(rt.gpuAgent(), 64);
        HsaException interior = assertThrows(HsaException.class, () -> rt.allowAccess(d + 8, rt.cpuAgent()));
        assertEquals(HsaStatus.INVALID_ARGUMENT, interior.status());
        rt.free(d);
        HsaException freed = assertThrows(HsaException.class, () -> rt.allowAccess(d, rt.cpuAgent()));
        assertEquals(HsaStatus.INVALID_ARGUMENT, freed.status());
    }

    @Test
    void shouldRefuseAnAgentOfAnotherRuntime() {
        runtime(1, false);
        try (HsaRuntime other = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(2).computeUnits(1).build())) {
            long d = rt.deviceMalloc(rt.gpuAgent(), 64);
            Agent foreign = other.gpuAgents().get(1);
            for (Runnable call : new Runnable[] {
                    () -> rt.deviceMalloc(foreign, 64),
                    () -> rt.allowAccess(d, foreign),
                    () -> rt.assignAgent(d, other.gpuAgent())}) {
                HsaException e = assertThrows(HsaException.class, call::run);
                assertEquals(HsaStatus.INVALID_AGENT, e.status(), e.getMessage());
            }
            assertEquals(1L << rt.gpuAgent().index(), rt.pointerInfo(d).accessMask());
            assertEquals(rt.gpuAgent().index(), rt.pointerInfo(d).ownerAgent());
        }
    }

    @Test
    void shouldRefuseDeviceMemoryOfTheCpuAgent() {
        runtime(1, false);
        HsaException e = assertThrows(HsaException.class, () -> rt.deviceMalloc(rt.cpuAgent(), 64));
        assertEquals(HsaStatus.INVALID_AGENT, e.status());
    }

    @Test
    void shouldKeepOneGpuOutOfAnotherGpusDeviceMemoryUntilAllowAccess() {
        runtime(2, false);
        Agent gpu0 = rt.gpuAgents().get(0);
        Agent gpu1 = rt.gpuAgents().get(1);
        long d = rt.deviceMalloc(gpu0, 64);
        gpu0.svm().setLong(d + 24, 100);
        assertKernelFaults(gpu1, d + 24, HsaStatus.MEMORY_APERTURE_VIOLATION);
        incrementInKernel(gpu0, d + 24);
        rt.allowAccess(d, gpu1);
        incrementInKernel(gpu1, d + 24);
        assertEquals(102, gpu0.svm().getLong(d + 24));
        assertHostFaults(rt.svm(), d + 24, HsaStatus.MEMORY_APERTURE_VIOLATION);
    }

    @Test
    void shouldMoveCoarseGrainedMemoryToTheAssignedAgent() {
        runtime(2, false);
        Agent gpu0 = rt.gpuAgents().get(0);
        Agent gpu1 = rt.gpuAgents().get(1);
        long d = rt.deviceMalloc(gpu0, 64);
        gpu0.svm().setLong(d, 7);
        rt.assignAgent(d, gpu1);
        assertEquals(gpu1.index(), rt.pointerInfo(d).ownerAgent());
        incrementInKernel(gpu1, d);
        assertEquals(8, gpu1.svm().getLong(d));
        assertKernelFaults(gpu0, d, HsaStatus.MEMORY_APERTURE_VIOLATION);
        rt.assignAgent(d, rt.cpuAgent());
        assertEquals(8, rt.svm().getLong(d));
        assertHostFaults(gpu1.svm(), d, HsaStatus.MEMORY_APERTURE_VIOLATION);
    }

    @Test
    void shouldLeaveFineGrainedMemoryAloneOnAssignAgent() {
        runtime(1, false);
        long a = rt.hostMalloc(64);
        rt.assignAgent(a, rt.gpuAgent());
        assertEquals(0, rt.pointerInfo(a).ownerAgent());
        assertEquals(-1L, rt.pointerInfo(a).accessMask());
        rt.svm().setLong(a, 1);
        incrementInKernel(rt.gpuAgent(), a);
        assertEquals(2, rt.svm().getLong(a));
    }

    @Test
    void shouldFaultWhenAGpuTouchesSystemMemoryWithXnackOff() {
        runtime(1, false);
        long m = rt.systemMalloc(64);
        rt.svm().setLong(m + 32, 3);
        assertKernelFaults(rt.gpuAgent(), m + 32, HsaStatus.MEMORY_FAULT, m);
        assertEquals(3, rt.svm().getLong(m + 32));
        assertEquals(MemoryKind.SYSTEM, rt.pointerInfo(m).kind());
    }

    @Test
    void shouldLetAGpuTouchSystemMemoryWithXnackOn() {
        runtime(1, true);
        long m = rt.systemMalloc(64);
        rt.svm().setLong(m + 32, 3);
        incrementInKernel(rt.gpuAgent(), m + 32);
        assertEquals(4, rt.svm().getLong(m + 32));
    }

    @Test
    void shouldCopyBetweenMemoryNoAgentCouldReachAlone() {
        runtime(2, false);
        Agent gpu0 = rt.gpuAgents().get(0);
        Agent gpu1 = rt.gpuAgents().get(1);
        long host = rt.hostMalloc(256);
        long d0 = rt.deviceMalloc(gpu0, 256);
        long d1 = rt.deviceMalloc(gpu1, 256);
        long sys = rt.systemMalloc(256);
        for (int i = 0; i < 32; i++) {
            rt.svm().setLong(host + 8L * i, i * 3L);
        }
        rt.memoryCopy(d0, host, 256);
        rt.memoryCopy(d1 + 8, d0, 248);
        rt.memoryCopy(sys, d1, 256);
        assertEquals(0, gpu0.svm().getLong(d0));
        assertEquals(93, gpu0.svm().getLong(d0 + 248));
        for (int i = 1; i < 32; i++) {
            assertEquals((i - 1) * 3L, rt.svm().getLong(sys + 8L * i), "element " + i);
        }
    }

    @Test
    void shouldRefuseToCopyFromOrToDeadMemory() {
        runtime(1, false);
        long live = rt.hostMalloc(64);
        long dead = rt.deviceMalloc(rt.gpuAgent(), 64);
        rt.free(dead);
        rt.svm().setLong(live, 77);
        for (Runnable copy : new Runnable[] {
                () -> rt.memoryCopy(live, dead, 8),
                () -> rt.memoryCopy(dead, live, 8),
                () -> rt.memoryCopy(live, 0, 8),
                () -> rt.memoryCopy(0, live, 8),
                () -> rt.memoryCopy(live + 32, live, 40),
                () -> rt.memoryCopy(live, live + 60, 8),
                () -> rt.memoryCopy(live, live, -1)}) {
            HsaException e = assertThrows(HsaException.class, copy::run);
            assertEquals(HsaStatus.INVALID_ARGUMENT, e.status(), e.getMessage());
        }
        assertEquals(77, rt.svm().getLong(live));
    }
}
