package org.hsa4j.memory;

import static org.hsa4j.memory.KernelLauncher.arg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.agent.Agent;
import org.hsa4j.kernel.Kernel;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The FP atomics policy: CAS_LOOP is right everywhere; UNSAFE loses a GPU kernel's add on
 * fine-grained memory and performs it on coarse-grained memory; UNSAFE_DIAGNOSE performs every add
 * and reports the ones UNSAFE would lose. Host threads are never affected.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FpAtomicsPolicyTest {
    private static final int ITEMS = 256;

    private HsaRuntime rt;

    @AfterEach
    void stop() {
        if (rt != null) {
            rt.close();
        }
    }

    private HsaRuntime runtime(FpAtomics mode) {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).fpAtomics(mode).build());
        return rt;
    }

    private void runOnGpu(Kernel kernel, long... args) {
        Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        try {
            KernelLauncher.await(KernelLauncher.launch(rt, q, kernel, ITEMS, 64, args));
        } finally {
            q.destroy();
        }
    }

    private void addOneFloatPerWorkItem(long address) {
        runOnGpu(wi -> wi.svm().atomicAddFloat(arg(wi, 0), 1.0f, MemoryOrder.RELAXED, MemoryScope.AGENT), address);
    }

    @Test
    void shouldAddCorrectlyOnFineGrainedMemoryWithTheCasLoopByDefault() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build());
        assertEquals(FpAtomics.CAS_LOOP, rt.config().fpAtomics());
        long f = rt.hostMalloc(8);
        addOneFloatPerWorkItem(f);
        assertEquals(ITEMS, rt.svm().getFloat(f));
    }

    @Test
    void shouldLoseAKernelsFloatAddOnFineGrainedMemoryWhenUnsafe() {
        runtime(FpAtomics.UNSAFE);
        long f = rt.hostMalloc(8);
        rt.svm().setFloat(f, 5.0f);
        AtomicInteger wrongReturns = new AtomicInteger();
        runOnGpu(wi -> {
            if (wi.svm().atomicAddFloat(arg(wi, 0), 1.0f, MemoryOrder.RELAXED, MemoryScope.AGENT) != 5.0f) {
                wrongReturns.incrementAndGet();
            }
        }, f);
        assertEquals(5.0f, rt.svm().getFloat(f));
        assertEquals(0, wrongReturns.get(), "a lost add returns the current value");
    }

    @Test
    void shouldLoseAKernelsDoubleAddOnManagedMemoryWhenUnsafe() {
        runtime(FpAtomics.UNSAFE);
        long d = rt.managedMalloc(8);
        runOnGpu(wi -> wi.svm().atomicAddDouble(arg(wi, 0), 2.0, MemoryOrder.SEQ_CST, MemoryScope.SYSTEM), d);
        assertEquals(0.0, rt.svm().getDouble(d));
    }

    @Test
    void shouldPerformAKernelsAddsOnCoarseGrainedMemoryWhenUnsafe() {
        runtime(FpAtomics.UNSAFE);
        Agent gpu = rt.gpuAgent();
        long f = rt.deviceMalloc(gpu, 16);
        runOnGpu(wi -> {
            wi.svm().atomicAddFloat(arg(wi, 0), 1.0f, MemoryOrder.RELAXED, MemoryScope.AGENT);
            wi.svm().atomicAddDouble(arg(wi, 0) + 8, 0.5, MemoryOrder.RELAXED, MemoryScope.AGENT);
        }, f);
        assertEquals(ITEMS, gpu.svm().getFloat(f));
        assertEquals(ITEMS / 2.0, gpu.svm().getDouble(f + 8));
    }

    @Test
    void shouldLoseAViewsFetchAddOnFineGrainedMemoryWhenUnsafe() {
        runtime(FpAtomics.UNSAFE);
        long f = rt.hostMalloc(4 * 4);
        long d = rt.hostMalloc(8 * 4);
        runOnGpu(wi -> {
            wi.svm().floats(arg(wi, 0), 4).fetchAdd(wi.globalId(0) % 4, 1.0f);
            wi.svm().doubles(arg(wi, 1), 4).fetchAdd(wi.globalId(0) % 4, 1.0);
        }, f, d);
        for (int i = 0; i < 4; i++) {
            assertEquals(0.0f, rt.svm().getFloat(f + 4L * i));
            assertEquals(0.0, rt.svm().getDouble(d + 8L * i));
        }
    }

    @Test
    void shouldPerformAViewsFetchAddOnCoarseGrainedMemoryWhenUnsafe() {
        runtime(FpAtomics.UNSAFE);
        Agent gpu = rt.gpuAgent();
        long f = rt.deviceMalloc(gpu, 4 * 4);
        long d = rt.deviceMalloc(gpu, 8 * 4);
        runOnGpu(wi -> {
            wi.svm().floats(arg(wi, 0), 4).fetchAdd(wi.globalId(0) % 4, 1.0f);
            wi.svm().doubles(arg(wi, 1), 4).fetchAdd(wi.globalId(0) % 4, 1.0);
        }, f, d);
        for (int i = 0; i < 4; i++) {
            assertEquals(ITEMS / 4.0f, gpu.svm().getFloat(f + 4L * i));
            assertEquals(ITEMS / 4.0, gpu.svm().getDouble(d + 8L * i));
        }
    }

    @Test
    void shouldNeverLoseAHostThreadsAddWhenUnsafe() {
        runtime(FpAtomics.UNSAFE);
        long f = rt.hostMalloc(16);
        for (int i = 0; i < 10; i++) {
            rt.svm().atomicAddFloat(f, 1.0f, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            rt.gpuAgent().svm().atomicAddDouble(f + 8, 1.0, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            rt.svm().floats(f, 1).fetchAdd(0, 1.0f);
        }
        assertEquals(20.0f, rt.svm().getFloat(f));
        assertEquals(10.0, rt.svm().getDouble(f + 8));
    }

    @Test
    void shouldPerformAndReportEveryKernelAddOnFineGrainedMemoryWhenDiagnosing() {
        runtime(FpAtomics.UNSAFE_DIAGNOSE);
        long f = rt.hostMalloc(8);
        addOneFloatPerWorkItem(f);
        assertEquals(ITEMS, rt.svm().getFloat(f));
        FpAtomicDiagnostics diagnostics = rt.fpAtomicDiagnostics();
        assertEquals(ITEMS, diagnostics.count());
        List<FpAtomicReport> reports = diagnostics.reports();
        assertEquals(ITEMS, reports.size());
        for (FpAtomicReport r : reports) {
            assertEquals(f, r.address());
            assertEquals(rt.gpuAgent().index(), r.agentIndex());
            assertEquals("test_kernel", r.kernelName());
            assertTrue(r.computeUnit() >= 0 && r.computeUnit() < 2, r.toString());
        }
    }

    @Test
    void shouldNotReportHostOrCoarseGrainedAddsWhenDiagnosing() {
        runtime(FpAtomics.UNSAFE_DIAGNOSE);
        long fine = rt.hostMalloc(8);
        long coarse = rt.deviceMalloc(rt.gpuAgent(), 8);
        rt.svm().atomicAddFloat(fine, 1.0f, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        addOneFloatPerWorkItem(coarse);
        assertEquals(ITEMS, rt.gpuAgent().svm().getFloat(coarse));
        assertEquals(1.0f, rt.svm().getFloat(fine));
        assertEquals(0, rt.fpAtomicDiagnostics().count());
        assertEquals(List.of(), rt.fpAtomicDiagnostics().reports());
    }

    @Test
    void shouldNotReportAnythingUnderTheCasLoop() {
        runtime(FpAtomics.CAS_LOOP);
        long f = rt.hostMalloc(8);
        addOneFloatPerWorkItem(f);
        assertEquals(ITEMS, rt.svm().getFloat(f));
        assertEquals(0, rt.fpAtomicDiagnostics().count());
    }

    @Test
    void shouldKeepTheFirstReportsButCountThemAll() {
        FpAtomicDiagnostics sink = new FpAtomicDiagnostics(2);
        for (int i = 0; i < 5; i++) {
            sink.report(new FpAtomicReport(64L * i, 1, 0, "k"));
        }
        assertEquals(5, sink.count());
        assertEquals(List.of(new FpAtomicReport(0, 1, 0, "k"), new FpAtomicReport(64, 1, 0, "k")), sink.reports());
    }
}
