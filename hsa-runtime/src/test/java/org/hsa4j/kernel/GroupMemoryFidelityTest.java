package org.hsa4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Group memory under fidelity mode (issue 21 part 4): work-items run last-first on a poisoned
 * segment, so a missing barrier fails every run, and the checked view reports a race naming the
 * kernel, the offset and the two work-items.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GroupMemoryFidelityTest {
    private static final int SIZE = 64;
    private static final int GROUPS = 3;

    /** Each work-item writes its id + 1 to its slot; the last one sums the slots, with a barrier between when asked. */
    static void lastSumsRaw(WorkItem wi, boolean barrier, AtomicLongArray sums) {
        MemorySegment g = wi.groupSegment();
        int id = wi.currentFlatLocalId();
        int n = wi.currentWorkgroupSize(0);
        g.setAtIndex(ValueLayout.JAVA_INT, id, id + 1);
        if (barrier) {
            wi.barrier().await();
        }
        if (id == n - 1) {
            long sum = 0;
            for (int i = 0; i < n; i++) {
                sum += g.getAtIndex(ValueLayout.JAVA_INT, i);
            }
            sums.set((int) wi.flatGroupId(), sum);
        }
    }

    /** {@link #lastSumsRaw} through the checked view. */
    static void lastSumsChecked(WorkItem wi, boolean barrier, AtomicLongArray sums) {
        GroupMemory g = wi.groupMemory();
        int id = wi.currentFlatLocalId();
        int n = wi.currentWorkgroupSize(0);
        g.setInt(4L * id, id + 1);
        if (barrier) {
            wi.barrier().await();
        }
        if (id == n - 1) {
            long sum = 0;
            for (int i = 0; i < n; i++) {
                sum += g.getInt(4L * i);
            }
            sums.set((int) wi.flatGroupId(), sum);
        }
    }

    private static long expected(int n) {
        return (long) n * (n + 1) / 2;
    }

    @ParameterizedTest(name = "barriers declared: {0}")
    @ValueSource(booleans = {false, true})
    void shouldExposeAMissingBarrierByRunningTheLastWorkItemFirst(boolean declared) {
        try (KernelFixture f = new KernelFixture(1, true)) {
            AtomicLongArray sums = new AtomicLongArray(GROUPS);
            KernelDescriptor d = declared ? KernelDescriptor.EMPTY.withBarriers() : KernelDescriptor.EMPTY;
            long k = f.kernel("last_sums", d, wi -> lastSumsRaw(wi, false, sums));
            f.run(f.dispatch(k).grid(GROUPS * SIZE).workgroup(SIZE).groupSegment(4 * SIZE));
            for (int g = 0; g < GROUPS; g++) {
                assertNotEquals(expected(SIZE), sums.get(g), "group " + g + " must miss the others' writes");
            }
        }
    }

    @Test
    void shouldRunTheCorrectTwinWithItsBarrierToTheRightSum() {
        try (KernelFixture f = new KernelFixture(1, true)) {
            AtomicLongArray sums = new AtomicLongArray(GROUPS);
            long k = f.kernel("last_sums", KernelDescriptor.EMPTY.withBarriers(), wi -> lastSumsChecked(wi, true, sums));
            f.run(f.dispatch(k).grid(GROUPS * SIZE).workgroup(SIZE).groupSegment(4 * SIZE));
            for (int g = 0; g < GROUPS; g++) {
                assertEquals(expected(SIZE), sums.get(g), "group " + g);
            }
            assertTrue(f.errors.isEmpty(), f.errors.toString());
        }
    }

    @Test
    void shouldExposeAMissingBarrierInAPhaseAfterABarrier() {
        try (KernelFixture f = new KernelFixture(1, true)) {
            AtomicLongArray sums = new AtomicLongArray(1);
            long k = f.kernel("phase_sums", KernelDescriptor.EMPTY.withBarriers(), wi -> {
                wi.barrier().await();
                lastSumsRaw(wi, false, sums);
            });
            f.run(f.dispatch(k).grid(SIZE).workgroup(SIZE).groupSegment(4 * SIZE));
            assertNotEquals(expected(SIZE), sums.get(0));
        }
    }

    @Test
    void shouldLeaveTheMissingBarrierUnseenInNormalMode() {
        try (KernelFixture f = new KernelFixture(1, false)) {
            AtomicLongArray sums = new AtomicLongArray(GROUPS);
            long k = f.kernel("last_sums", KernelDescriptor.EMPTY, wi -> lastSumsChecked(wi, false, sums));
            f.run(f.dispatch(k).grid(GROUPS * SIZE).workgroup(SIZE).groupSegment(4 * SIZE));
            for (int g = 0; g < GROUPS; g++) {
                assertEquals(expected(SIZE), sums.get(g), "group " + g);
            }
            assertTrue(f.errors.isEmpty(), f.errors.toString());
        }
    }

    @Test
    void shouldReportTheRaceNamingKernelOffsetAndWorkItems() {
        try (KernelFixture f = new KernelFixture(1, true)) {
            AtomicLongArray sums = new AtomicLongArray(1);
            long k = f.kernel("group_sum", KernelDescriptor.EMPTY, wi -> lastSumsChecked(wi, false, sums));
            HsaException e = assertThrows(HsaException.class,
                    () -> f.run(f.dispatch(k).grid(4).workgroup(4).groupSegment(16)));
            assertEquals(HsaStatus.EXCEPTION, e.status());
            assertEquals(1, f.errors.size());
            assertEquals(HsaStatus.EXCEPTION, f.errors.get(0).status());
            // last-first: work-item 3 writes and reads every slot first, then work-item 2 writes slot 2
            assertTrue(f.errors.get(0).getMessage().contains("kernel group_sum: group-memory race at group-segment"
                    + " offset 8 of workgroup 0: work-item 3 read it and work-item 2 wrote it with no barrier"
                    + " between them"), f.errors.get(0).getMessage());
        }
    }

    @Test
    void shouldReportAReadOfAnotherWorkItemsWrite() {
        try (KernelFixture f = new KernelFixture(1, true)) {
            long k = f.kernel("read_other", KernelDescriptor.EMPTY, wi -> {
                GroupMemory g = wi.groupMemory();
                if (wi.flatLocalId() == 3) {
                    g.setLong(8, 42);
                } else if (wi.flatLocalId() == 1) {
                    g.getLong(8);
                }
            });
            assertThrows(HsaException.class, () -> f.run(f.dispatch(k).grid(4).workgroup(4).groupSegment(16)));
            assertTrue(f.errors.get(0).getMessage().contains("offset 8 of workgroup 0: work-item 3 wrote it and"
                    + " work-item 1 read it"), f.errors.get(0).getMessage());
        }
    }

    @Test
    void shouldReportTwoWorkItemsWritingOneLocation() {
        try (KernelFixture f = new KernelFixture(1, true)) {
            long k = f.kernel("write_both", KernelDescriptor.EMPTY, wi -> wi.groupMemory().setFloat(4, 1f));
            assertThrows(HsaException.class, () -> f.run(f.dispatch(k).grid(2).workgroup(2).groupSegment(8)));
            assertTrue(f.errors.get(0).getMessage().contains("offset 4 of workgroup 0: work-item 1 wrote it and"
                    + " work-item 0 wrote it"), f.errors.get(0).getMessage());
        }
    }

    @Test
    void shouldForgetAccessesOfEarlierPhasesAtABarrier() {
        try (KernelFixture f = new KernelFixture(1, true)) {
            AtomicLongArray seen = new AtomicLongArray(SIZE);
            long k = f.kernel("neighbours", KernelDescriptor.EMPTY.withBarriers(), wi -> {
                GroupMemory g = wi.groupMemory();
                int id = wi.flatLocalId();
                g.setInt(4L * id, id);
                wi.barrier().await();
                int next = g.getInt(4L * ((id + 1) % SIZE));
                wi.barrier().await();
                g.setInt(4L * id, next * 2);
                wi.barrier().await();
                seen.set(id, g.getInt(4L * ((id + 1) % SIZE)));
            });
            f.run(f.dispatch(k).grid(SIZE).workgroup(SIZE).groupSegment(4 * SIZE));
            assertTrue(f.errors.isEmpty(), f.errors.toString());
            for (int i = 0; i < SIZE; i++) {
                assertEquals(2L * ((i + 2) % SIZE), seen.get(i), "work-item " + i);
            }
        }
    }

    @Test
    void shouldNotReportAWorkItemReadingItsOwnWrite() {
        try (KernelFixture f = new KernelFixture(1, true)) {
            AtomicLongArray seen = new AtomicLongArray(SIZE);
            long k = f.kernel("own_slot", KernelDescriptor.EMPTY, wi -> {
                GroupMemory g = wi.groupMemory();
                int id = wi.flatLocalId();
                g.setDouble(8L * id, id);
                g.setDouble(8L * id, g.getDouble(8L * id) + 0.5);
                seen.set(id, (long) (2 * g.getDouble(8L * id)));
            });
            f.run(f.dispatch(k).grid(2 * SIZE).workgroup(SIZE).groupSegment(8 * SIZE));
            assertTrue(f.errors.isEmpty(), f.errors.toString());
            for (int i = 0; i < SIZE; i++) {
                assertEquals(2L * i + 1, seen.get(i), "work-item " + i);
            }
        }
    }

    @Test
    void shouldNotReportAtomicsOfSeveralWorkItemsOnOneWord() {
        try (KernelFixture f = new KernelFixture(1, true)) {
            AtomicLongArray seen = new AtomicLongArray(1);
            long k = f.kernel("count", KernelDescriptor.EMPTY.withBarriers(), wi -> {
                GroupMemory g = wi.groupMemory();
                if (wi.flatLocalId() == 0) {
                    g.atomicStoreInt(0, 0, MemoryOrder.RELAXED);
                }
                wi.barrier().await();
                g.fetchAddInt(0, 1);
                wi.barrier().await();
                if (wi.flatLocalId() == 0) {
                    seen.set(0, g.atomicLoadInt(0, MemoryOrder.ACQUIRE));
                }
            });
            f.run(f.dispatch(k).grid(SIZE).workgroup(SIZE).groupSegment(4));
            assertTrue(f.errors.isEmpty(), f.errors.toString());
            assertEquals(SIZE, seen.get(0));
        }
    }

    @Test
    void shouldNotReportWritesPublishedThroughAnAtomicCounter() {
        try (KernelFixture f = new KernelFixture(1, true)) {
            AtomicLongArray sums = new AtomicLongArray(1);
            long k = f.kernel("last_arriver", KernelDescriptor.EMPTY.withBarriers(), wi -> {
                GroupMemory g = wi.groupMemory();
                int id = wi.flatLocalId();
                if (id == 0) {
                    g.atomicStoreInt(4L * SIZE, 0, MemoryOrder.RELAXED);
                }
                wi.barrier().await();
                g.setInt(4L * id, id + 1);
                if (g.fetchAddInt(4L * SIZE, 1) == SIZE - 1) {
                    long sum = 0;
                    for (int i = 0; i < SIZE; i++) {
                        sum += g.getInt(4L * i);
                    }
                    sums.set(0, sum);
                }
            });
            f.run(f.dispatch(k).grid(SIZE).workgroup(SIZE).groupSegment(4 * SIZE + 4));
            assertTrue(f.errors.isEmpty(), f.errors.toString());
            assertEquals(expected(SIZE), sums.get(0));
        }
    }

    /** Work-item 1 writes data and stores a flag with {@code store}; work-item 0 loads it with {@code load}, then reads the data. */
    private static long flagHandoff(KernelFixture f, MemoryOrder store, MemoryOrder load) {
        AtomicLongArray seen = new AtomicLongArray(1);
        long k = f.kernel("flag_handoff", KernelDescriptor.EMPTY.withBarriers(), wi -> {
            GroupMemory g = wi.groupMemory();
            if (wi.flatLocalId() == 0) {
                g.atomicStoreInt(0, 0, MemoryOrder.RELAXED);
            }
            wi.barrier().await();
            if (wi.flatLocalId() == 1) {
                g.setInt(4, 42);
                g.atomicStoreInt(0, 1, store);
            } else if (g.atomicLoadInt(0, load) == 1) {
                seen.set(0, g.getInt(4));
            }
        });
        f.run(f.dispatch(k).grid(2).workgroup(2).groupSegment(8));
        return seen.get(0);
    }

    @Test
    void shouldNotReportDataPublishedThroughAReleaseAndAnAcquire() {
        try (KernelFixture f = new KernelFixture(1, true)) {
            assertEquals(42, flagHandoff(f, MemoryOrder.RELEASE, MemoryOrder.ACQUIRE));
            assertTrue(f.errors.isEmpty(), f.errors.toString());
        }
    }

    @Test
    void shouldReportDataPublishedThroughARelaxedFlag() {
        try (KernelFixture f = new KernelFixture(1, true)) {
            assertThrows(HsaException.class, () -> flagHandoff(f, MemoryOrder.RELAXED, MemoryOrder.ACQUIRE));
            assertTrue(f.errors.get(0).getMessage().contains("offset 4 of workgroup 0: work-item 1 wrote it and"
                    + " work-item 0 read it"), f.errors.get(0).getMessage());
        }
    }

    @Test
    void shouldNotReportARaceInNormalMode() {
        try (KernelFixture f = new KernelFixture(1, false)) {
            AtomicLongArray sums = new AtomicLongArray(1);
            long k = f.kernel("group_sum", KernelDescriptor.EMPTY, wi -> lastSumsChecked(wi, false, sums));
            f.run(f.dispatch(k).grid(4).workgroup(4).groupSegment(16));
            assertTrue(f.errors.isEmpty(), f.errors.toString());
            assertEquals(expected(4), sums.get(0));
        }
    }

    @Test
    void shouldRunAPartialWorkgroupLastFirstToo() {
        try (KernelFixture f = new KernelFixture(1, true)) {
            AtomicLongArray sums = new AtomicLongArray(3);
            long k = f.kernel("last_sums", KernelDescriptor.EMPTY, wi -> lastSumsRaw(wi, false, sums));
            f.run(f.dispatch(k).grid(2 * SIZE + 5).workgroup(SIZE).groupSegment(4 * SIZE));
            assertNotEquals(expected(5), sums.get(2), "the partial group of 5 must miss the others' writes");
        }
    }

    @Test
    void shouldReportARaceInAPartialWorkgroup() {
        try (KernelFixture f = new KernelFixture(1, true)) {
            AtomicLongArray sums = new AtomicLongArray(3);
            long k = f.kernel("partial_sum", KernelDescriptor.EMPTY, wi -> {
                if (wi.groupId(0) == 2) {
                    lastSumsChecked(wi, false, sums);
                }
            });
            assertThrows(HsaException.class,
                    () -> f.run(f.dispatch(k).grid(2 * SIZE + 3).workgroup(SIZE).groupSegment(4 * SIZE)));
            assertTrue(f.errors.get(0).getMessage().contains("offset 4 of workgroup 2: work-item 2 read it and"
                    + " work-item 1 wrote it"), f.errors.get(0).getMessage());
        }
    }
}
