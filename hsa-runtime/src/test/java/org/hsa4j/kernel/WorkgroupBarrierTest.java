package org.hsa4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Workgroup barriers: phases in group memory, on one compute unit, and their misuse. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WorkgroupBarrierTest {

    /** Sums each workgroup's inputs by halving in group memory, with a barrier between steps. */
    static void tileSum(WorkItem wi, AtomicLongArray sums) {
        MemorySegment tile = wi.groupSegment();
        int lid = wi.flatLocalId();
        int n = wi.workgroupSize(0);
        tile.setAtIndex(ValueLayout.JAVA_LONG, lid, wi.flatGlobalId() + 1);
        wi.barrier().await();
        for (int stride = n / 2; stride > 0; stride /= 2) {
            if (lid < stride) {
                tile.setAtIndex(ValueLayout.JAVA_LONG, lid, tile.getAtIndex(ValueLayout.JAVA_LONG, lid)
                        + tile.getAtIndex(ValueLayout.JAVA_LONG, lid + stride));
            }
            wi.barrier().await();
        }
        if (lid == 0) {
            sums.set((int) wi.flatGroupId(), tile.getAtIndex(ValueLayout.JAVA_LONG, 0));
        }
    }

    @ParameterizedTest(name = "workgroup of {0}")
    @ValueSource(ints = {256, 1024})
    void shouldReduceATileWithBarriersOnOneComputeUnit(int size) {
        try (KernelFixture f = new KernelFixture(1)) {
            int groups = 3;
            AtomicLongArray sums = new AtomicLongArray(groups);
            long k = f.kernel("tile_sum", KernelDescriptor.EMPTY.group(8 * size).withBarriers(),
                    wi -> tileSum(wi, sums));
            f.run(f.dispatch(k).grid((long) groups * size).workgroup(size).groupSegment(8 * size));
            for (int g = 0; g < groups; g++) {
                long first = (long) g * size + 1;
                long last = (long) (g + 1) * size;
                assertEquals((first + last) * size / 2, sums.get(g), "sum of group " + g);
            }
        }
    }

    @Test
    void shouldRunABarrierKernelWithoutTheJdkInternalExport() {
        boolean exported = Object.class.getModule().isExported("jdk.internal.vm", getClass().getModule());
        assertTrue(exported || WorkgroupExecutor.barriersAvailable(),
                "without the export barriers must still be available: " + WorkgroupExecutor.barriersUnavailableReason());
        try (KernelFixture f = new KernelFixture(1)) {
            AtomicLongArray sums = new AtomicLongArray(1);
            long k = f.kernel("tile_sum", KernelDescriptor.EMPTY.group(8 * 64).withBarriers(), wi -> tileSum(wi, sums));
            f.run(f.dispatch(k).grid(64).workgroup(64).groupSegment(8 * 64));
            assertEquals(64L * 65 / 2, sums.get(0));
        }
    }

    @Test
    void shouldRunEveryWorkItemOfABarrierKernelAsItsComputeUnit() {
        try (KernelFixture f = new KernelFixture(1)) {
            int size = 32;
            AtomicInteger asUnit = new AtomicInteger();
            int gpu = f.rt.gpuAgent().index();
            long k = f.kernel("who_runs", KernelDescriptor.EMPTY.withBarriers(), wi -> {
                wi.barrier().await();
                ComputeUnitThread unit = ComputeUnitThread.current();
                if (unit != null && unit.agentIndex() == gpu && "who_runs".equals(unit.kernelName())) {
                    asUnit.incrementAndGet();
                }
            });
            f.run(f.dispatch(k).grid(size).workgroup(size));
            assertEquals(size, asUnit.get(), "work-items that saw their compute unit as the current one");
        }
    }

    @Test
    void shouldAbortABarrierKernelThatNeverEndsAtTheKernelTimeLimit() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).kernelTimeLimitMillis(100).build())) {
            long k = rt.createExecutable().define("spins_at_barriers", KernelDescriptor.EMPTY.withBarriers(), wi -> {
                while (true) {
                    wi.barrier().await();
                }
            }).freeze().symbol("spins_at_barriers").kernelObject();
            List<HsaException> errors = new CopyOnWriteArrayList<>();
            Queue queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, (e, q) -> errors.add(e));
            Signal done = rt.createSignal(1);
            Submit.kernel(queue, k).grid(16).workgroup(16).completion(done).submit();
            HsaException e = assertThrows(HsaException.class, () -> Await.completion(done));
            assertEquals(HsaStatus.EXCEPTION, e.status());
            assertTrue(errors.get(0).getMessage().contains("time limit"), errors.get(0).getMessage());
        }
    }

    @Test
    void shouldSynchronizeAPartialLastWorkgroupOfItsOwnSize() {
        try (KernelFixture f = new KernelFixture(1)) {
            AtomicLongArray counts = new AtomicLongArray(2);
            long k = f.kernel("count", KernelDescriptor.EMPTY.group(8).withBarriers(), wi -> {
                if (wi.flatLocalId() == 0) {
                    wi.groupSegment().set(ValueLayout.JAVA_LONG, 0, 0);
                }
                wi.barrier().await();
                MemorySegment g = wi.groupSegment();
                g.set(ValueLayout.JAVA_LONG, 0, g.get(ValueLayout.JAVA_LONG, 0) + 1);
                wi.barrier().await();
                counts.set((int) wi.flatGroupId(), g.get(ValueLayout.JAVA_LONG, 0));
            });
            f.run(f.dispatch(k).grid(100).workgroup(64).groupSegment(8));
            assertEquals(64, counts.get(0));
            assertEquals(36, counts.get(1));
        }
    }

    @Test
    void shouldPassManyBarriersInALoop() {
        try (KernelFixture f = new KernelFixture(1)) {
            int size = 128;
            AtomicLongArray out = new AtomicLongArray(size);
            long k = f.kernel("rotate", KernelDescriptor.EMPTY.group(8 * size).withBarriers(), wi -> {
                MemorySegment g = wi.groupSegment();
                int lid = wi.flatLocalId();
                long value = lid;
                for (int round = 0; round < 50; round++) {
                    g.setAtIndex(ValueLayout.JAVA_LONG, lid, value);
                    wi.barrier().await();
                    value = g.getAtIndex(ValueLayout.JAVA_LONG, (lid + 1) % size);
                    wi.barrier().await();
                }
                out.set(lid, value);
            });
            f.run(f.dispatch(k).grid(size).workgroup(size).groupSegment(8 * size));
            for (int i = 0; i < size; i++) {
                assertEquals((i + 50) % size, out.get(i), "work-item " + i);
            }
        }
    }

    @Test
    void shouldFailABarrierReachedByOnlyPartOfTheWorkgroup() {
        try (KernelFixture f = new KernelFixture(1)) {
            long k = f.kernel("half", KernelDescriptor.EMPTY.withBarriers(), wi -> {
                if (wi.flatLocalId() % 2 == 0) {
                    wi.barrier().await();
                }
            });
            HsaException e = assertThrows(HsaException.class, () -> f.run(f.dispatch(k).grid(64).workgroup(64)));
            assertEquals(HsaStatus.EXCEPTION, e.status());
            assertEquals(1, f.errors.size());
            assertEquals(HsaStatus.EXCEPTION, f.errors.get(0).status());
            assertTrue(f.errors.get(0).getMessage().contains("half"), f.errors.get(0).getMessage());
        }
    }

    @Test
    void shouldFailABarrierInAKernelThatDidNotDeclareBarriers() {
        try (KernelFixture f = new KernelFixture(1)) {
            long k = f.kernel("undeclared", KernelDescriptor.EMPTY, wi -> wi.barrier().await());
            HsaException e = assertThrows(HsaException.class, () -> f.run(f.dispatch(k).grid(8).workgroup(8)));
            assertEquals(HsaStatus.EXCEPTION, e.status());
            assertTrue(f.errors.get(0).getMessage().contains("declare barriers"), f.errors.get(0).getMessage());
        }
    }

    @Test
    void shouldReportAWorkItemThatThrowsBetweenBarriersAsException() {
        try (KernelFixture f = new KernelFixture(1)) {
            long k = f.kernel("throws_in_phase", KernelDescriptor.EMPTY.withBarriers(), wi -> {
                wi.barrier().await();
                if (wi.flatLocalId() == 5) {
                    throw new ArithmeticException("phase two broke");
                }
                wi.barrier().await();
            });
            HsaException e = assertThrows(HsaException.class, () -> f.run(f.dispatch(k).grid(32).workgroup(16)));
            assertEquals(HsaStatus.EXCEPTION, e.status());
            assertTrue(e.getMessage().contains("phase two broke"), e.getMessage());
            assertEquals(1, f.errors.size());
        }
    }

    @Test
    void shouldPassABarrierOfAOneWorkItemWorkgroupWithoutDeclaringIt() {
        try (KernelFixture f = new KernelFixture(1)) {
            AtomicLongArray ran = new AtomicLongArray(4);
            long k = f.kernel("single", KernelDescriptor.EMPTY, wi -> {
                wi.barrier().await();
                ran.set((int) wi.flatGroupId(), 1);
            });
            f.run(f.dispatch(k).grid(4).workgroup(1));
            for (int g = 0; g < 4; g++) {
                assertEquals(1, ran.get(g));
            }
        }
    }

    @Test
    void shouldKeepTheComputeUnitWorkingAfterAFailedBarrierKernel() {
        try (KernelFixture f = new KernelFixture(1)) {
            long bad = f.kernel("half", KernelDescriptor.EMPTY.withBarriers(), wi -> {
                if (wi.flatLocalId() == 0) {
                    wi.barrier().await();
                }
            });
            assertThrows(HsaException.class, () -> f.run(f.dispatch(bad).grid(16).workgroup(16)));
            AtomicLongArray sums = new AtomicLongArray(1);
            long good = f.kernel("tile_sum", KernelDescriptor.EMPTY.group(8 * 64).withBarriers(), wi -> tileSum(wi, sums));
            f.replaceQueue();
            f.run(f.dispatch(good).grid(64).workgroup(64).groupSegment(8 * 64));
            assertEquals(64L * 65 / 2, sums.get(0));
        }
    }

    @Test
    void shouldFailABarrierReachedWhileHoldingAMonitorAndKeepTheUnitServing() {
        try (KernelFixture f = new KernelFixture(1)) {
            Object lock = new Object();
            long held = f.kernel("holds_monitor", KernelDescriptor.EMPTY.withBarriers(), wi -> {
                synchronized (lock) {
                    wi.barrier().await();
                }
            });
            HsaException e = assertThrows(HsaException.class, () -> f.run(f.dispatch(held).grid(4).workgroup(4)));
            assertEquals(HsaStatus.EXCEPTION, e.status());
            assertTrue(e.getMessage().contains("monitor"), e.getMessage());
            assertEquals(HsaStatus.EXCEPTION, f.errors.get(0).status());
            AtomicLongArray sums = new AtomicLongArray(1);
            long good = f.kernel("tile_sum", KernelDescriptor.EMPTY.group(8 * 64).withBarriers(), wi -> tileSum(wi, sums));
            f.replaceQueue();
            f.run(f.dispatch(good).grid(64).workgroup(64).groupSegment(8 * 64));
            assertEquals(64L * 65 / 2, sums.get(0));
        }
    }

    @Test
    void shouldReleaseTheMonitorsOfSuspendedWorkItemsWhenTheirWorkgroupFails() throws InterruptedException {
        try (KernelFixture f = new KernelFixture(1)) {
            Object lock = new Object();
            AtomicInteger unwound = new AtomicInteger();
            long k = f.kernel("fails_while_one_holds", KernelDescriptor.EMPTY.withBarriers(), wi -> {
                if (wi.flatLocalId() == 0) {
                    try {
                        synchronized (lock) {
                            wi.barrier().await();
                        }
                    } finally {
                        unwound.incrementAndGet();
                    }
                } else {
                    throw new ArithmeticException("work-item " + wi.flatLocalId() + " broke");
                }
            });
            assertThrows(HsaException.class, () -> f.run(f.dispatch(k).grid(2).workgroup(2)));
            assertEquals(1, unwound.get(), "the suspended work-item's finally block ran");
            AtomicBoolean entered = new AtomicBoolean();
            Thread host = Thread.ofPlatform().daemon().start(() -> {
                synchronized (lock) {
                    entered.set(true);
                }
            });
            host.join(Await.DEFAULT.toMillis());
            assertTrue(entered.get(), "the monitor the failed work-item held is free again");
        }
    }
}
