package org.hsa4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.queue.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How workgroups are spread over compute units and how work-items of a group are run. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WorkgroupSchedulingTest {

    @Test
    void shouldRunTwoWorkgroupsOnTwoComputeUnitsAtOnce() {
        try (KernelFixture f = new KernelFixture(2)) {
            long arrived = f.rt.hostMalloc(8);
            AtomicReferenceArray<String> threads = new AtomicReferenceArray<>(2);
            long k = f.kernel("rendezvous", KernelDescriptor.EMPTY, wi -> {
                threads.set((int) wi.flatGroupId(), Thread.currentThread().getName());
                wi.svm().atomicAddInt(arrived, 1, MemoryOrder.ACQ_REL, MemoryScope.SYSTEM);
                long deadline = System.nanoTime() + Await.DEFAULT.toNanos();
                // each group can only get past here while the other one runs at the same time
                while (wi.svm().atomicLoadInt(arrived, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) < 2) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException("the other workgroup never ran alongside");
                    }
                    Thread.onSpinWait();
                }
            });
            f.run(f.dispatch(k).grid(2).workgroup(1));
            assertNotEquals(threads.get(0), threads.get(1));
        }
    }

    @Test
    void shouldUseEveryComputeUnitForAManyWorkgroupDispatch() {
        try (KernelFixture f = new KernelFixture(3)) {
            long arrived = f.rt.hostMalloc(8);
            Set<String> threads = ConcurrentHashMap.newKeySet();
            long k = f.kernel("rendezvous3", KernelDescriptor.EMPTY, wi -> {
                threads.add(Thread.currentThread().getName());
                if (wi.flatGroupId() < 3) {
                    wi.svm().atomicAddInt(arrived, 1, MemoryOrder.ACQ_REL, MemoryScope.SYSTEM);
                    long deadline = System.nanoTime() + Await.DEFAULT.toNanos();
                    while (wi.svm().atomicLoadInt(arrived, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) < 3) {
                        if (System.nanoTime() - deadline > 0) {
                            throw new IllegalStateException("three workgroups never ran at once");
                        }
                        Thread.onSpinWait();
                    }
                }
            });
            f.run(f.dispatch(k).grid(30).workgroup(1));
            assertEquals(3, threads.size(), "threads: " + threads);
        }
    }

    @Test
    void shouldReuseOneWorkItemForEveryWorkItemOfAPlainKernelsGroup() {
        try (KernelFixture f = new KernelFixture(2)) {
            Map<Long, Set<WorkItem>> byGroup = new ConcurrentHashMap<>();
            long k = f.kernel("identity", KernelDescriptor.EMPTY, wi -> byGroup
                    .computeIfAbsent(wi.flatGroupId(), g -> Collections.synchronizedSet(
                            Collections.newSetFromMap(new IdentityHashMap<>())))
                    .add(wi));
            f.run(f.dispatch(k).grid(4 * 64).workgroup(64));
            assertEquals(4, byGroup.size());
            byGroup.forEach((g, items) -> assertEquals(1, items.size(), "work-item objects of group " + g));
        }
    }

    @Test
    void shouldGiveEveryWorkItemOfABarrierKernelItsOwnWorkItem() {
        try (KernelFixture f = new KernelFixture(1)) {
            Set<WorkItem> items = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
            long k = f.kernel("identity", KernelDescriptor.EMPTY.withBarriers(), wi -> {
                items.add(wi);
                wi.barrier().await();
            });
            f.run(f.dispatch(k).grid(64).workgroup(64));
            assertEquals(64, items.size());
        }
    }

    @Test
    void shouldRunAPlainKernelsWorkItemsInOrderOnOneThread() {
        try (KernelFixture f = new KernelFixture(2)) {
            int n = 256;
            AtomicReferenceArray<String> threads = new AtomicReferenceArray<>(n);
            int[] order = new int[n];
            int[] next = new int[1];
            long k = f.kernel("order", KernelDescriptor.EMPTY, wi -> {
                threads.set(wi.flatLocalId(), Thread.currentThread().getName());
                order[next[0]++] = wi.flatLocalId();
            });
            f.run(f.dispatch(k).grid(16, 16).workgroup(16, 16));
            for (int i = 0; i < n; i++) {
                assertEquals(i, order[i]);
                assertEquals(threads.get(0), threads.get(i));
            }
        }
    }
}
