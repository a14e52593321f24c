package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.queue.DispatchCompletion;
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

/** Issue 17: no access through a view, a stale address or a racing free ever reaches another allocation's bytes. */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SvmMemorySafetyTest {
    private HsaRuntime rt;
    private Svm svm;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        svm = rt.svm();
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    private static void assertStatus(HsaStatus status, Runnable action) {
        HsaException e = assertThrows(HsaException.class, action::run);
        assertEquals(status, e.status(), e.getMessage());
    }

    // ---- item 4: element counts that overflow a byte count ----------------------------------------

    @Test
    void shouldRefuseAnIntCountWhoseByteCountOverflows() {
        long a = rt.hostMalloc(64);
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.ints(a, 1L << 62));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.floats(a, 1L << 62));
    }

    @Test
    void shouldRefuseALongCountWhoseByteCountOverflows() {
        long a = rt.hostMalloc(64);
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.longs(a, (1L << 61) + 1));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.doubles(a, (1L << 61) + 1));
    }

    // ---- item 2: a stale address never reaches a later allocation ------------------------------

    @Test
    void shouldNeverHandOutTheSameBaseAddressTwiceInMillionsOfAllocations() {
        AddressSpace space = new AddressSpace();
        int cycles = 64 * (AddressSpace.REUSE_DISTANCE + 2) + 4096;
        long[] bases = new long[cycles];
        for (int i = 0; i < cycles; i++) {
            bases[i] = space.reserve();
            space.cancel(bases[i]);
        }
        Arrays.sort(bases);
        for (int i = 1; i < cycles; i++) {
            if (bases[i] == bases[i - 1]) {
                throw new AssertionError(String.format("base 0x%016x handed out twice in %d allocations", bases[i], cycles));
            }
        }
    }

    @Test
    void shouldRetireASlotAtItsLastGenerationInsteadOfWrapping() {
        AddressSpace space = new AddressSpace(0, 1, 1);
        Set<Long> bases = new HashSet<>();
        for (int i = 0; i <= SvmAddress.GENERATION_MASK; i++) {
            long base = space.reserve(false);
            assertTrue(bases.add(base), "base handed out twice");
            space.cancel(base);
        }
        assertEquals(1, space.retiredSlots());
        assertStatus(HsaStatus.OUT_OF_RESOURCES, () -> space.reserve(false));
        long large = space.reserve(true);
        assertTrue(SvmAddress.large(large));
    }

    @Test
    void shouldTagEveryAddressWithBit62AndTheSizeClassWithBit61() {
        long small = rt.hostMalloc(SvmAddress.MAX_SMALL_SIZE);
        long large = rt.hostMalloc(SvmAddress.MAX_SMALL_SIZE + 1);
        assertEquals(1, small >>> 62);
        assertEquals(1, large >>> 62);
        assertFalse(SvmAddress.large(small));
        assertTrue(SvmAddress.large(large));
        assertNull(rt.pointerInfo(small + SvmAddress.MAX_SMALL_SIZE));
        assertNull(rt.pointerInfo(large + SvmAddress.MAX_SMALL_SIZE + 1));
    }

    // ---- item 1: a view kept after free faults ---------------------------------------------------

    private static void assertFault(long address, Runnable access) {
        MemoryFaultException e = assertThrows(MemoryFaultException.class, access::run);
        assertEquals(HsaStatus.MEMORY_FAULT, e.status());
        assertEquals(address, e.address());
    }

    @Test
    void shouldFaultThroughAnIntViewOfAFreedAllocationAndLeaveTheNextOneAlone() {
        long a = rt.hostMalloc(64);
        IntView view = svm.ints(a, 16);
        view.set(3, 1);
        rt.free(a);
        long next = rt.hostMalloc(64);
        svm.fill(next, 64, (byte) 0);
        assertFault(a + 12, () -> view.set(3, 99));
        assertFault(a + 12, () -> view.get(3));
        assertFault(a + 12, () -> view.fetchAdd(3, 1));
        assertEquals(0, svm.getInt(next + 12));
    }

    @Test
    void shouldFaultThroughEveryKindOfViewOfAFreedAllocation() {
        long a = rt.hostMalloc(64);
        LongView longs = svm.longs(a, 8);
        FloatView floats = svm.floats(a, 16);
        DoubleView doubles = svm.doubles(a, 8);
        rt.free(a);
        long next = rt.hostMalloc(64);
        svm.fill(next, 64, (byte) 0);
        assertFault(a + 8, () -> longs.set(1, -1));
        assertFault(a + 8, () -> floats.set(2, -1f));
        assertFault(a + 8, () -> doubles.set(1, -1d));
        assertEquals(0, svm.getLong(next + 8));
    }

    @Test
    void shouldRefuseAccessThroughARawSegmentOfAFreedAllocation() {
        long a = rt.hostMalloc(64);
        MemorySegment raw = svm.segment(a, 64);
        rt.free(a);
        long next = rt.hostMalloc(64);
        svm.fill(next, 64, (byte) 0);
        assertThrows(IllegalStateException.class, () -> raw.set(ValueLayout.JAVA_LONG, 8, -1L));
        assertEquals(0, svm.getLong(next + 8));
    }

    @Test
    void shouldFaultThroughAViewOfAFreedLargeAllocation() {
        long a = rt.hostMalloc(2L << 20);
        IntView view = svm.ints(a, 16);
        rt.free(a);
        assertFault(a + 4, () -> view.set(1, 7));
    }

    @Test
    void shouldFaultThroughAViewOfAFreedAllocationInAFidelityModeKernel() {
        rt.close();
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).fidelity(true).build());
        long a = rt.hostMalloc(64);
        AtomicReference<IntView> kept = new AtomicReference<>();
        Queue first = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        KernelLauncher.await(KernelLauncher.launch(rt, first, wi -> {
            IntView view = wi.svm().ints(KernelLauncher.arg(wi, 0), 16);
            view.set(3, 1);
            kept.set(view);
        }, 1, 1, a));
        rt.free(a);
        Queue second = rt.gpuAgent().createQueue(64, QueueType.SINGLE, (error, queue) -> { });
        DispatchCompletion done = KernelLauncher.launch(rt, second, wi -> kept.get().set(3, 99), 1, 1);
        HsaException e = assertThrows(HsaException.class, () -> KernelLauncher.await(done));
        assertEquals(HsaStatus.MEMORY_FAULT, e.status(), e.getMessage());
    }

    // ---- item 3: a write that passed its check never lands in the next allocation -----------------

    @Test
    void shouldNeverLetACheckedWriteRacingAFreeLandInTheNextAllocation() throws InterruptedException {
        int rounds = 10_000;
        byte mark = (byte) 0x5A;
        AtomicLong target = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        Thread writer = new Thread(() -> {
            while (!stop.get()) {
                long p = target.get();
                try {
                    svm.fill(p, 64, mark);
                    writes.incrementAndGet();
                } catch (MemoryFaultException expected) {
                    // the allocation was freed: the check or the closed arena stopped the write
                }
            }
        }, "stale-writer");
        writer.start();
        int spoiled = 0;
        try {
            for (int round = 0; round < rounds && spoiled == 0; round++) {
                long a = rt.hostMalloc(64);
                target.set(a);
                long seen = writes.get();
                for (int spin = 0; spin < 10_000 && writes.get() == seen; spin++) {
                    Thread.onSpinWait();
                }
                rt.free(a);
                long next = rt.hostMalloc(64);
                MemorySegment bytes = svm.segment(next, 64);
                bytes.fill((byte) 0);
                for (int look = 0; look < 200; look++) {
                    Thread.onSpinWait();
                }
                for (long i = 0; i < 64; i++) {
                    if (bytes.get(ValueLayout.JAVA_BYTE, i) != 0) {
                        spoiled = round + 1;
                    }
                }
                rt.free(next);
            }
        } finally {
            stop.set(true);
            writer.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertEquals(0, spoiled, "a write through a freed allocation's address landed in the next allocation in round " + spoiled);
        assertTrue(writes.get() > 0, "the writer never wrote");
    }
}
