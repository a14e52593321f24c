package org.hsa4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.FloatView;
import org.hsa4j.memory.Svm;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Raw kernels at loop speed (issue 22 part 1): the per-work-item path (a work-item loop per kernel
 * class, views checked once per workgroup) and the per-workgroup entry point compute the right
 * results; their speed is measured by RawKernelBenchmark.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RawKernelLoopTest {
    private HsaRuntime rt;
    private Queue queue;
    private Svm host;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build());
        queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
        host = rt.svm();
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    private long floats(int n, float scale) {
        long a = rt.hostMalloc(4L * n);
        for (int i = 0; i < n; i++) {
            host.setFloat(a + 4L * i, scale * i);
        }
        return a;
    }

    private long define(Kernel k) {
        return rt.createExecutable().define("k", KernelDescriptor.withKernarg(64), k).freeze().symbol("k").kernelObject();
    }

    private long defineWorkgroup(WorkgroupKernel k) {
        return rt.createExecutable().defineWorkgroup("k", KernelDescriptor.withKernarg(64), k).freeze().symbol("k")
                .kernelObject();
    }

    @Test
    void shouldAddVectorsWithAKernelPreparedOncePerWorkgroup() {
        int n = 10_000;
        long a = floats(n, 1f);
        long b = floats(n, 2f);
        long c = rt.hostMalloc(4L * n);
        long k = rt.createExecutable().definePrepared("k", KernelDescriptor.withKernarg(64), g -> {
            FloatView va = g.svm().floats(g.arg(0), g.arg(3));
            FloatView vb = g.svm().floats(g.arg(1), g.arg(3));
            FloatView vc = g.svm().floats(g.arg(2), g.arg(3));
            return wi -> vc.set(wi.globalId(0), va.get(wi.globalId(0)) + vb.get(wi.globalId(0)));
        }).freeze().symbol("k").kernelObject();
        queue.dispatch(k, n, 256, a, b, c, n).join();
        for (int i = 0; i < n; i++) {
            assertEquals(3f * i, host.getFloat(c + 4L * i), "element " + i);
        }
    }

    @Test
    void shouldPrepareEachWorkgroupOnceBeforeItsWorkItems() {
        int n = 1000;
        long prepared = rt.hostMalloc(4);
        long seen = rt.hostMalloc(4L * n);
        long k = rt.createExecutable().definePrepared("k", KernelDescriptor.withKernarg(64), g -> {
            g.svm().atomicAddInt(g.arg(0), 1, org.hsa4j.memory.MemoryOrder.RELAXED, org.hsa4j.memory.MemoryScope.SYSTEM);
            long group = g.groupId(0);
            return wi -> wi.svm().setInt(wi.arg(1) + 4 * wi.globalId(0), (int) group);
        }).freeze().symbol("k").kernelObject();
        queue.dispatch(k, n, 64, prepared, seen).join();
        assertEquals((n + 63) / 64, host.getInt(prepared), "one preparation per workgroup");
        for (int i = 0; i < n; i++) {
            assertEquals(i / 64, host.getInt(seen + 4L * i), "work-item " + i + " ran with its own group's preparation");
        }
    }

    @Test
    void shouldAddVectorsPerWorkItemThroughArgumentViews() {
        int n = 10_000;
        long a = floats(n, 1f);
        long b = floats(n, 2f);
        long c = rt.hostMalloc(4L * n);
        long k = define(wi -> {
            long i = wi.globalId(0);
            wi.floatsArg(2).set(i, wi.floatsArg(0).get(i) + wi.floatsArg(1).get(i));
        });
        queue.dispatch(k, n, 256, a, b, c).join();
        for (int i = 0; i < n; i++) {
            assertEquals(3f * i, host.getFloat(c + 4L * i), "element " + i);
        }
    }

    @Test
    void shouldRunEveryWorkItemOfA3dGridOnceIncludingPartialGroups() {
        int x = 7;
        int y = 5;
        int z = 3;
        long hits = rt.hostMalloc(4L * x * y * z);
        long k = define(wi -> wi.svm().atomicAddInt(wi.arg(0) + 4 * wi.flatGlobalId(), 1,
                org.hsa4j.memory.MemoryOrder.RELAXED, org.hsa4j.memory.MemoryScope.SYSTEM));
        queue.launch(k).grid(x, y, z).workgroup(4, 2, 2).args(hits).dispatch().join();
        for (int i = 0; i < x * y * z; i++) {
            assertEquals(1, host.getInt(hits + 4L * i), "work-item " + i);
        }
    }

    @Test
    void shouldGiveAnArgumentViewThatEndsWithItsAllocationAndTheSameOneAgain() {
        long a = floats(16, 1f);
        long out = rt.hostMalloc(8);
        long k = define(wi -> {
            FloatView first = wi.floatsArg(0);
            wi.svm().setInt(wi.arg(1), first == wi.floatsArg(0) ? 1 : 0);
            wi.svm().setInt(wi.arg(1) + 4, (int) first.length());
        });
        queue.dispatch(k, 1, 1, a + 8, out).join();
        assertEquals(1, host.getInt(out), "the same argument gives the view made first");
        assertEquals(14, host.getInt(out + 4), "the view runs from the argument's address to the allocation's end");
    }

    @Test
    void shouldGiveTheNextDispatchViewsOfItsOwnArgumentsNotThePreviousOnes() {
        long first = floats(4, 1f);
        long second = floats(4, 1f);
        long k = define(wi -> wi.floatsArg(0).set(0, 42f));
        queue.dispatch(k, 1, 1, first).join();
        queue.dispatch(k, 1, 1, second).join();
        assertEquals(42f, host.getFloat(second), "the second dispatch wrote through a view of its own argument");
    }

    @Test
    void shouldFaultAnArgumentViewPastItsAllocationWithAMemoryFault() {
        long a = floats(16, 1f);
        long k = define(wi -> wi.floatsArg(0).get(16));
        HsaException e = assertThrows(HsaException.class, () -> queue.dispatch(k, 1, 1, a).join());
        assertEquals(HsaStatus.EXCEPTION, e.status(), e.getMessage());
    }

    @Test
    void shouldCoverTheGridOnceWithAWorkgroupKernelIncludingAPartialLastGroup() {
        int n = 1000;
        long a = floats(n, 1f);
        long b = floats(n, 2f);
        long c = rt.hostMalloc(4L * n);
        long k = defineWorkgroup(g -> {
            Svm svm = g.svm();
            long count = g.arg(3);
            FloatView va = svm.floats(g.arg(0), count);
            FloatView vb = svm.floats(g.arg(1), count);
            FloatView vc = svm.floats(g.arg(2), count);
            for (long i = g.from(0); i < g.to(0); i++) {
                vc.set(i, vc.get(i) + va.get(i) + vb.get(i));
            }
        });
        queue.dispatch(k, n, 64, a, b, c, n).join();
        for (int i = 0; i < n; i++) {
            assertEquals(3f * i, host.getFloat(c + 4L * i), "element " + i);
        }
    }

    @Test
    void shouldMultiplyMatricesWithA2dWorkgroupKernel() {
        int m = 33;
        int kk = 17;
        int n = 29;
        long a = rt.hostMalloc(4L * m * kk);
        long b = rt.hostMalloc(4L * kk * n);
        long c = rt.hostMalloc(4L * m * n);
        for (int i = 0; i < m * kk; i++) {
            host.setFloat(a + 4L * i, i % 7 - 3);
        }
        for (int i = 0; i < kk * n; i++) {
            host.setFloat(b + 4L * i, i % 5 - 2);
        }
        long k = defineWorkgroup(g -> {
            int rows = (int) g.gridSize(1);
            int cols = (int) g.gridSize(0);
            int inner = (int) g.arg(3);
            FloatView va = g.svm().floats(g.arg(0), (long) rows * inner);
            FloatView vb = g.svm().floats(g.arg(1), (long) inner * cols);
            FloatView vc = g.svm().floats(g.arg(2), (long) rows * cols);
            for (long r = g.from(1); r < g.to(1); r++) {
                for (long col = g.from(0); col < g.to(0); col++) {
                    float sum = 0;
                    for (int t = 0; t < inner; t++) {
                        sum += va.get(r * inner + t) * vb.get((long) t * cols + col);
                    }
                    vc.set(r * cols + col, sum);
                }
            }
        });
        queue.launch(k).grid(n, m).workgroup(8, 8).args(a, b, c, kk).dispatch().join();
        for (int r = 0; r < m; r++) {
            for (int col = 0; col < n; col++) {
                float sum = 0;
                for (int t = 0; t < kk; t++) {
                    sum += (float) ((r * kk + t) % 7 - 3) * (float) ((t * n + col) % 5 - 2);
                }
                assertEquals(sum, host.getFloat(c + 4L * (r * n + col)), "c[" + r + "][" + col + "]");
            }
        }
    }

    @Test
    void shouldRefuseAPreparedKernelThatDeclaresBarriers() {
        HsaException e = assertThrows(HsaException.class, () -> rt.createExecutable()
                .definePrepared("k", KernelDescriptor.EMPTY.withBarriers(), g -> wi -> { }));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRefuseAWorkgroupKernelThatDeclaresBarriers() {
        HsaException e = assertThrows(HsaException.class, () -> rt.createExecutable()
                .defineWorkgroup("k", KernelDescriptor.EMPTY.withBarriers(), g -> { }));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }
}
