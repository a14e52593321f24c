package org.hsa4j.memory;

import static org.hsa4j.memory.KernelLauncher.arg;
import static org.hsa4j.memory.PageDescriptor.PAGE_SIZE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.hsa4j.agent.Agent;
import org.hsa4j.kernel.Kernel;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.runtime.SystemReport;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Page-granularity accounting of managed and plain system memory: first touch by an agent the page
 * does not lie at migrates it (XNACK on), faults (XNACK off, a GPU on plain system memory) or maps
 * it in place (XNACK off, managed); prefetch and advice change where pages go; counters count it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PageAccountingTest {
    private static final int ITEMS = 256;

    private HsaRuntime rt;

    @AfterEach
    void stop() {
        if (rt != null) {
            rt.close();
        }
    }

    private HsaRuntime runtime(boolean xnack) {
        return runtime(1, xnack);
    }

    private HsaRuntime runtime(int gpus, boolean xnack) {
        rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(gpus).computeUnits(2).xnack(xnack).build());
        return rt;
    }

    private void runOn(Agent gpu, Kernel kernel, long... args) {
        Queue q = gpu.createQueue(16, QueueType.SINGLE, null);
        try {
            KernelLauncher.await(KernelLauncher.launch(rt, q, kernel, ITEMS, 64, args));
        } finally {
            q.destroy();
        }
    }

    /** Every work-item reads the long at arg 0. */
    private void readInKernel(Agent gpu, long address) {
        runOn(gpu, wi -> wi.svm().getLong(arg(wi, 0)), address);
    }

    /** Every work-item adds 1 to the long at arg 0. */
    private void incrementInKernel(Agent gpu, long address) {
        runOn(gpu, wi -> wi.svm().atomicAddLong(arg(wi, 0), 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM), address);
    }

    private int locationOf(long address) {
        Allocation a = rt.pointerInfo(address);
        return a.pages().locationAt(address - a.base());
    }

    @Test
    void shouldMigrateOnlyTheTouchedPageToTheGpuWithXnackOn() {
        runtime(true);
        Agent gpu = rt.gpuAgent();
        long m = rt.managedMalloc(3 * PAGE_SIZE);
        incrementInKernel(gpu, m + PAGE_SIZE + 16);
        assertEquals(ITEMS, rt.svm().getLong(m + PAGE_SIZE + 16));
        assertEquals(new MigrationStats(1, 0, 0, 0, 0), rt.migrationStats(gpu));
        assertEquals(0, locationOf(m));
        assertEquals(0, locationOf(m + 2 * PAGE_SIZE));
    }

    @Test
    void shouldMigrateEveryPageAnAccessSpans() {
        runtime(true);
        Agent gpu = rt.gpuAgent();
        long m = rt.managedMalloc(3 * PAGE_SIZE);
        runOn(gpu, wi -> wi.svm().getLong(arg(wi, 0)), m + PAGE_SIZE - 4);
        assertEquals(2, rt.migrationStats(gpu).faultMigrations());
        assertEquals(gpu.index(), locationOf(m));
        assertEquals(gpu.index(), locationOf(m + PAGE_SIZE));
        assertEquals(0, locationOf(m + 2 * PAGE_SIZE));
    }

    @Test
    void shouldMigratePlainSystemMemoryToTheGpuAndBackWithXnackOn() {
        runtime(true);
        Agent gpu = rt.gpuAgent();
        long m = rt.systemMalloc(2 * PAGE_SIZE);
        incrementInKernel(gpu, m);
        assertEquals(gpu.index(), locationOf(m));
        assertEquals(ITEMS, rt.svm().getLong(m));
        assertEquals(0, locationOf(m));
        assertEquals(new MigrationStats(1, 0, 0, 0, 0), rt.migrationStats(gpu));
        assertEquals(new MigrationStats(1, 0, 0, 0, 0), rt.migrationStats(rt.cpuAgent()));
        assertEquals(new MigrationStats(2, 0, 0, 0, 0), rt.migrationStats());
    }

    @Test
    void shouldFaultNamingThePageWhenAGpuTouchesPlainSystemMemoryWithXnackOff() {
        runtime(false);
        Agent gpu = rt.gpuAgent();
        long m = rt.systemMalloc(4 * PAGE_SIZE);
        long page2 = m + 2 * PAGE_SIZE;
        CompletableFuture<HsaException> reported = new CompletableFuture<>();
        Queue q = gpu.createQueue(16, QueueType.SINGLE, (error, queue) -> reported.complete(error));
        DispatchCompletion done = KernelLauncher.launch(rt, q, wi -> wi.svm().getLong(arg(wi, 0)), 1, 1, page2 + 24);
        assertThrows(HsaException.class, () -> KernelLauncher.await(done));
        MemoryFaultException fault = assertInstanceOf(MemoryFaultException.class, reported.join());
        assertEquals(HsaStatus.MEMORY_FAULT, fault.status());
        assertEquals(page2, fault.address());
        assertTrue(fault.getMessage().contains("XNACK off") && fault.getMessage().contains("page 2"), fault.getMessage());
        assertEquals(new MigrationStats(0, 0, 0, 0, 1), rt.migrationStats(gpu));
        assertEquals(0, locationOf(page2));
        q.destroy();
    }

    @Test
    void shouldNeverFaultTheHostOnPlainSystemMemoryWithXnackOff() {
        runtime(false);
        long m = rt.systemMalloc(2 * PAGE_SIZE);
        rt.svm().setLong(m + PAGE_SIZE, 7);
        assertEquals(7, rt.svm().getLong(m + PAGE_SIZE));
        assertEquals(new MigrationStats(0, 0, 0, 0, 0), rt.migrationStats());
    }

    @Test
    void shouldAccessManagedMemoryInPlaceWithXnackOff() {
        runtime(false);
        Agent gpu = rt.gpuAgent();
        long m = rt.managedMalloc(2 * PAGE_SIZE);
        incrementInKernel(gpu, m + PAGE_SIZE);
        incrementInKernel(gpu, m + PAGE_SIZE + 8);
        assertEquals(ITEMS, rt.svm().getLong(m + PAGE_SIZE));
        assertEquals(new MigrationStats(0, 0, 1, 0, 0), rt.migrationStats(gpu));
        assertEquals(0, locationOf(m + PAGE_SIZE));
        assertEquals(0b11, rt.pointerInfo(m).pages().readersAt(PAGE_SIZE) & 0b11);
    }

    @Test
    void shouldMigrateOnceWhenEveryWorkItemViewsTheWholeAllocation() {
        runtime(true);
        Agent gpu = rt.gpuAgent();
        int pages = 8;
        long m = rt.managedMalloc(pages * PAGE_SIZE);
        runOn(gpu, wi -> {
            FloatView v = wi.svm().floats(arg(wi, 0), pages * PAGE_SIZE / 4);
            v.set(wi.globalId(0), 1.0f);
        }, m);
        assertEquals(pages, rt.migrationStats(gpu).faultMigrations());
        for (int p = 0; p < pages; p++) {
            assertEquals(gpu.index(), locationOf(m + p * PAGE_SIZE));
        }
    }

    @Test
    void shouldCountPrefetchesApartFromFaultMigrations() {
        runtime(true);
        Agent gpu = rt.gpuAgent();
        long m = rt.managedMalloc(3 * PAGE_SIZE);
        rt.memPrefetch(m + 10, 2 * PAGE_SIZE, gpu);
        assertEquals(new MigrationStats(0, 3, 0, 0, 0), rt.migrationStats(gpu));
        incrementInKernel(gpu, m + 2 * PAGE_SIZE);
        rt.memPrefetch(m, PAGE_SIZE, gpu);
        assertEquals(new MigrationStats(0, 3, 0, 0, 0), rt.migrationStats(gpu));
        rt.memPrefetch(m, 3 * PAGE_SIZE, rt.cpuAgent());
        assertEquals(new MigrationStats(0, 3, 0, 0, 0), rt.migrationStats(rt.cpuAgent()));
        assertEquals(ITEMS, rt.svm().getLong(m + 2 * PAGE_SIZE));
        assertEquals(0, rt.migrationStats(rt.cpuAgent()).faultMigrations());
    }

    @Test
    void shouldRefuseToPrefetchPlainSystemMemoryToAGpuWithXnackOff() {
        runtime(false);
        long m = rt.systemMalloc(PAGE_SIZE);
        HsaException e = assertThrows(HsaException.class, () -> rt.memPrefetch(m, PAGE_SIZE, rt.gpuAgent()));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        rt.memPrefetch(m, PAGE_SIZE, rt.cpuAgent());
        assertEquals(new MigrationStats(0, 0, 0, 0, 0), rt.migrationStats());
    }

    @Test
    void shouldAccessInPlaceFromAgentsOtherThanThePreferredLocation() {
        runtime(true);
        Agent gpu = rt.gpuAgent();
        long m = rt.managedMalloc(PAGE_SIZE);
        rt.memAdvise(m, PAGE_SIZE, MemAdvice.SET_PREFERRED_LOCATION, rt.cpuAgent());
        incrementInKernel(gpu, m);
        assertEquals(0, locationOf(m));
        assertEquals(new MigrationStats(0, 0, 1, 0, 0), rt.migrationStats(gpu));
        assertEquals(ITEMS, rt.svm().getLong(m));
    }

    @Test
    void shouldFaultMigrateOnlyToThePreferredLocation() {
        runtime(true);
        Agent gpu = rt.gpuAgent();
        long m = rt.managedMalloc(PAGE_SIZE);
        rt.memAdvise(m, PAGE_SIZE, MemAdvice.SET_PREFERRED_LOCATION, gpu);
        incrementInKernel(gpu, m);
        assertEquals(gpu.index(), locationOf(m));
        assertEquals(ITEMS, rt.svm().getLong(m));
        assertEquals(gpu.index(), locationOf(m));
        assertEquals(new MigrationStats(0, 0, 1, 0, 0), rt.migrationStats(rt.cpuAgent()));
        rt.memAdvise(m, PAGE_SIZE, MemAdvice.UNSET_PREFERRED_LOCATION, null);
        rt.memPrefetch(m, PAGE_SIZE, rt.cpuAgent());
        rt.memPrefetch(m, PAGE_SIZE, gpu);
        rt.svm().getLong(m);
        assertEquals(0, locationOf(m));
        assertEquals(1, rt.migrationStats(rt.cpuAgent()).faultMigrations());
    }

    @Test
    void shouldDuplicateAReadMostlyPageOnReadsInsteadOfMigratingIt() {
        runtime(true);
        Agent gpu = rt.gpuAgent();
        long m = rt.managedMalloc(PAGE_SIZE);
        rt.svm().setLong(m, 5);
        rt.memAdvise(m, PAGE_SIZE, MemAdvice.SET_READ_MOSTLY, null);
        readInKernel(gpu, m);
        readInKernel(gpu, m + 8);
        assertEquals(0, locationOf(m));
        assertEquals(new MigrationStats(0, 0, 0, 1, 0), rt.migrationStats(gpu));
        assertEquals(5, rt.svm().getLong(m));
        assertEquals(0b11, rt.pointerInfo(m).pages().readersAt(0) & 0b11);
    }

    @Test
    void shouldCollapseReadMostlyCopiesIntoAWritingAgent() {
        runtime(true);
        Agent gpu = rt.gpuAgent();
        long m = rt.managedMalloc(PAGE_SIZE);
        rt.memAdvise(m, PAGE_SIZE, MemAdvice.SET_READ_MOSTLY, null);
        readInKernel(gpu, m);
        incrementInKernel(gpu, m);
        assertEquals(gpu.index(), locationOf(m));
        assertEquals(new MigrationStats(1, 0, 0, 1, 0), rt.migrationStats(gpu));
        assertEquals(1L << gpu.index(), rt.pointerInfo(m).pages().readersAt(0));
    }

    @Test
    void shouldCollapseReadMostlyCopiesWhenTheOwnerWrites() {
        runtime(true);
        Agent gpu = rt.gpuAgent();
        long m = rt.managedMalloc(PAGE_SIZE);
        rt.memAdvise(m, PAGE_SIZE, MemAdvice.SET_READ_MOSTLY, null);
        readInKernel(gpu, m);
        rt.svm().setLong(m, 9);
        assertEquals(1L, rt.pointerInfo(m).pages().readersAt(0));
        readInKernel(gpu, m);
        assertEquals(0, locationOf(m));
        assertEquals(new MigrationStats(0, 0, 0, 2, 0), rt.migrationStats(gpu));
    }

    @Test
    void shouldCollapseCopiesWhenReadMostlyIsUnset() {
        runtime(true);
        Agent gpu = rt.gpuAgent();
        long m = rt.managedMalloc(PAGE_SIZE);
        rt.memAdvise(m, PAGE_SIZE, MemAdvice.SET_READ_MOSTLY, null);
        readInKernel(gpu, m);
        rt.memAdvise(m, PAGE_SIZE, MemAdvice.UNSET_READ_MOSTLY, null);
        assertEquals(1L, rt.pointerInfo(m).pages().readersAt(0));
        readInKernel(gpu, m);
        assertEquals(new MigrationStats(1, 0, 0, 1, 0), rt.migrationStats(gpu));
    }

    @Test
    void shouldTreatPagesAdvisedCoarseGrainedAsCoarseGrained() {
        runtime(true);
        long m = rt.managedMalloc(3 * PAGE_SIZE);
        Allocation a = rt.pointerInfo(m);
        rt.memAdvise(m + PAGE_SIZE, 1, MemAdvice.SET_COARSE_GRAIN, rt.gpuAgent());
        assertFalse(a.coarseGrainedAt(m));
        assertTrue(a.coarseGrainedAt(m + PAGE_SIZE + 100));
        assertFalse(a.coarseGrainedAt(m + 2 * PAGE_SIZE));
        rt.memAdvise(m + 2 * PAGE_SIZE, PAGE_SIZE, MemAdvice.SET_COARSE_GRAIN, null);
        assertTrue(a.coarseGrainedAt(m + 3 * PAGE_SIZE - 1));
        assertFalse(a.coarseGrainedAt(m + 3 * PAGE_SIZE), "past the end");
        rt.memAdvise(m, 3 * PAGE_SIZE, MemAdvice.UNSET_COARSE_GRAIN, null);
        assertFalse(a.coarseGrainedAt(m + PAGE_SIZE + 100));
        long d = rt.deviceMalloc(rt.gpuAgent(), 64);
        assertTrue(rt.pointerInfo(d).coarseGrainedAt(d));
        assertFalse(rt.pointerInfo(rt.hostMalloc(64)).coarseGrainedAt(m));
    }

    @Test
    void shouldPerformUnsafeFpAtomicsOnManagedPagesAdvisedCoarseGrained() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).xnack(true).fpAtomics(FpAtomics.UNSAFE).build());
        long m = rt.managedMalloc(2 * PAGE_SIZE);
        rt.memAdvise(m + PAGE_SIZE, PAGE_SIZE, MemAdvice.SET_COARSE_GRAIN, null);
        runOn(rt.gpuAgent(), wi -> {
            wi.svm().atomicAddFloat(arg(wi, 0), 1.0f, MemoryOrder.RELAXED, MemoryScope.AGENT);
            wi.svm().atomicAddFloat(arg(wi, 0) + PAGE_SIZE, 1.0f, MemoryOrder.RELAXED, MemoryScope.AGENT);
        }, m);
        assertEquals(0.0f, rt.svm().getFloat(m));
        assertEquals(ITEMS, rt.svm().getFloat(m + PAGE_SIZE));
    }

    @Test
    void shouldRefuseAdviceAndPrefetchOutsideOneManagedOrSystemAllocation() {
        runtime(true);
        Agent gpu = rt.gpuAgent();
        long m = rt.managedMalloc(PAGE_SIZE);
        long host = rt.hostMalloc(PAGE_SIZE);
        long device = rt.deviceMalloc(gpu, PAGE_SIZE);
        long freed = rt.managedMalloc(PAGE_SIZE);
        rt.free(freed);
        long[][] ranges = {{m, 0}, {m, -1}, {m, PAGE_SIZE + 1}, {m + 8, PAGE_SIZE}, {host, 8}, {device, 8}, {freed, 8},
            {0, 8}};
        for (long[] r : ranges) {
            HsaException advise = assertThrows(HsaException.class,
                    () -> rt.memAdvise(r[0], r[1], MemAdvice.SET_READ_MOSTLY, null));
            assertEquals(HsaStatus.INVALID_ARGUMENT, advise.status(), advise.getMessage());
            HsaException prefetch = assertThrows(HsaException.class, () -> rt.memPrefetch(r[0], r[1], gpu));
            assertEquals(HsaStatus.INVALID_ARGUMENT, prefetch.status(), prefetch.getMessage());
        }
        assertEquals(new MigrationStats(0, 0, 0, 0, 0), rt.migrationStats());
    }

    @Test
    void shouldRefuseAMissingOrForeignAgent() {
        runtime(true);
        long m = rt.managedMalloc(PAGE_SIZE);
        try (HsaRuntime other = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(2).computeUnits(1).build())) {
            Agent foreign = other.gpuAgents().get(1);
            Runnable[] calls = {
                () -> rt.memPrefetch(m, PAGE_SIZE, null),
                () -> rt.memPrefetch(m, PAGE_SIZE, foreign),
                () -> rt.memAdvise(m, PAGE_SIZE, MemAdvice.SET_PREFERRED_LOCATION, null),
                () -> rt.memAdvise(m, PAGE_SIZE, MemAdvice.SET_PREFERRED_LOCATION, foreign),
                () -> rt.memAdvise(m, PAGE_SIZE, MemAdvice.SET_READ_MOSTLY, foreign),
                () -> rt.memAdvise(m, PAGE_SIZE, null, rt.gpuAgent()),
                () -> rt.migrationStats(foreign)};
            for (Runnable call : calls) {
                HsaException e = assertThrows(HsaException.class, call::run);
                assertEquals(HsaStatus.INVALID_ARGUMENT, e.status(), e.getMessage());
            }
        }
    }

    @Test
    void shouldCountPerAgentAndInTotal() {
        runtime(2, true);
        Agent gpu0 = rt.gpuAgents().get(0);
        Agent gpu1 = rt.gpuAgents().get(1);
        long m = rt.managedMalloc(2 * PAGE_SIZE);
        incrementInKernel(gpu0, m);
        incrementInKernel(gpu1, m + PAGE_SIZE);
        incrementInKernel(gpu1, m);
        assertEquals(new MigrationStats(1, 0, 0, 0, 0), rt.migrationStats(gpu0));
        assertEquals(new MigrationStats(2, 0, 0, 0, 0), rt.migrationStats(gpu1));
        assertEquals(new MigrationStats(3, 0, 0, 0, 0), rt.migrationStats());
        assertEquals(gpu1.index(), locationOf(m));
        assertEquals(2 * ITEMS, gpu0.svm().getLong(m));
    }

    @Test
    void shouldGiveOnlyManagedAndSystemMemoryAPageTable() {
        runtime(true);
        assertNull(rt.pointerInfo(rt.hostMalloc(64)).pages());
        assertNull(rt.pointerInfo(rt.deviceMalloc(rt.gpuAgent(), 64)).pages());
        assertEquals(3, rt.pointerInfo(rt.managedMalloc(2 * PAGE_SIZE + 1)).pages().pages());
        assertEquals(1, rt.pointerInfo(rt.systemMalloc(8)).pages().pages());
    }

    @Test
    void shouldShowTheCountersInTheSystemReport() {
        runtime(true);
        long m = rt.managedMalloc(PAGE_SIZE);
        rt.memPrefetch(m, PAGE_SIZE, rt.gpuAgent());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SystemReport.write(rt, new PrintStream(out, true, StandardCharsets.UTF_8));
        String report = out.toString(StandardCharsets.UTF_8);
        assertTrue(report.contains("Page Migration"), report);
        assertTrue(report.matches("(?s).*gpu0:\\s+fault migrations 0, prefetch migrations 1,.*"), report);
    }
}
