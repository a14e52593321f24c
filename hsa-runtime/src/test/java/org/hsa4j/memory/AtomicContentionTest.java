package org.hsa4j.memory;

import static org.hsa4j.memory.KernelLauncher.arg;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

import org.hsa4j.kernel.WorkItem;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * System-scope read-modify-writes lose no update when two host threads and a kernel's work-items
 * hammer one SVM counter at once. Every party waits for a start flag in SVM so they overlap. Float
 * and double adds are compare-and-swap loops; integral deltas keep the float sums exact.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AtomicContentionTest {
    private static final int HOST_THREADS = 2;
    private static final int ADDS_PER_HOST_THREAD = 100_000;
    private static final int KERNEL_WORKGROUPS = 2;
    private static final int ITEMS_PER_WORKGROUP = 100;
    private static final int ADDS_PER_ITEM = 1_000;
    private static final long TOTAL = (long) HOST_THREADS * ADDS_PER_HOST_THREAD
            + (long) KERNEL_WORKGROUPS * ITEMS_PER_WORKGROUP * ADDS_PER_ITEM;

    private HsaRuntime rt;
    private long counter;
    private long go;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(KERNEL_WORKGROUPS).build());
        counter = rt.hostMalloc(8);
        go = rt.hostMalloc(4);
        rt.svm().setLong(counter, 0);
        rt.svm().setInt(go, 0);
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    private static void awaitGo(Svm svm, long go) {
        while (svm.loadIntAcquire(go) == 0) {
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /** Runs {@code add} (given the counter address) from host threads and work-items at once; waits for all. */
    private void contend(LongConsumer hostAdd, KernelAdd kernelAdd) throws InterruptedException {
        Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        DispatchCompletion done = KernelLauncher.launch(rt, q, wi -> {
            awaitGo(wi.svm(), arg(wi, 1));
            for (int i = 0; i < ADDS_PER_ITEM; i++) {
                kernelAdd.add(wi, arg(wi, 0));
            }
        }, KERNEL_WORKGROUPS * ITEMS_PER_WORKGROUP, ITEMS_PER_WORKGROUP, counter, go);
        Thread[] threads = new Thread[HOST_THREADS];
        for (int t = 0; t < HOST_THREADS; t++) {
            threads[t] = new Thread(() -> {
                awaitGo(rt.svm(), go);
                for (int i = 0; i < ADDS_PER_HOST_THREAD; i++) {
                    hostAdd.accept(counter);
                }
            }, "host-adder-" + t);
            threads[t].start();
        }
        rt.svm().storeIntRelease(go, 1);
        for (Thread t : threads) {
            t.join();
        }
        KernelLauncher.await(done);
    }

    /** One add from a work-item. */
    @FunctionalInterface
    private interface KernelAdd {
        void add(WorkItem wi, long address);
    }

    @Test
    void shouldLoseNoFloatAdd() throws InterruptedException {
        rt.svm().setFloat(counter, 0f);
        contend(a -> rt.svm().atomicAddFloat(a, 1f, MemoryOrder.RELAXED, MemoryScope.SYSTEM),
                (wi, a) -> wi.svm().atomicAddFloat(a, 1f, MemoryOrder.ACQ_REL, MemoryScope.SYSTEM));
        assertEquals((float) TOTAL, rt.svm().getFloat(counter));
    }

    @Test
    void shouldLoseNoDoubleAdd() throws InterruptedException {
        rt.svm().setDouble(counter, 0.0);
        contend(a -> rt.svm().atomicAddDouble(a, 1.0, MemoryOrder.SEQ_CST, MemoryScope.SYSTEM),
                (wi, a) -> wi.svm().atomicAddDouble(a, 1.0, MemoryOrder.RELAXED, MemoryScope.SYSTEM));
        assertEquals((double) TOTAL, rt.svm().getDouble(counter));
    }

    @Test
    void shouldLoseNoIntAdd() throws InterruptedException {
        rt.svm().setInt(counter, 0);
        contend(a -> rt.svm().atomicAddInt(a, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM),
                (wi, a) -> wi.svm().atomicAddInt(a, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM));
        assertEquals((int) TOTAL, rt.svm().getInt(counter));
    }

    @Test
    void shouldLoseNoLongAddThroughViewsAndAddresses() throws InterruptedException {
        contend(a -> rt.svm().longs(a, 1).fetchAdd(0, 3),
                (wi, a) -> wi.svm().atomicAddLong(a, 3, MemoryOrder.ACQ_REL, MemoryScope.AGENT));
        assertEquals(3 * TOTAL, rt.svm().getLong(counter));
    }

    @Test
    void shouldLoseNoFloatAddThroughFloatViews() throws InterruptedException {
        rt.svm().setFloat(counter, 0f);
        contend(a -> rt.svm().floats(a, 1).fetchAdd(0, 1f),
                (wi, a) -> wi.svm().floats(a, 1).fetchAdd(0, 1f));
        assertEquals((float) TOTAL, rt.svm().getFloat(counter));
    }
}
