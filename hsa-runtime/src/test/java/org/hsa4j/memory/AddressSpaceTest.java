package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The slot table behind SVM addresses: slots are recycled, and a recycled slot never revives a stale pointer. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AddressSpaceTest {
    private HsaRuntime rt;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    @Test
    void shouldMakeAndFreeAMillionAllocationsWithBoundedSlotUse() {
        int batch = 100_000;
        int rounds = 10;
        AddressSpace space = rt.memory().addressSpace();
        int live = space.liveAllocations();
        long[] addresses = new long[batch];
        int highestSlot = 0;
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < batch; i++) {
                addresses[i] = rt.hostMalloc(16);
                highestSlot = Math.max(highestSlot, SvmAddress.slot(addresses[i]));
            }
            assertEquals(live + batch, space.liveAllocations());
            rt.svm().setLong(addresses[batch - 1] + 8, round);
            for (int i = 0; i < batch; i++) {
                rt.free(addresses[i]);
            }
        }
        assertEquals(live, space.liveAllocations());
        assertEquals(0, rt.systemPool().used());
        assertTrue(highestSlot <= live + batch + AddressSpace.REUSE_DISTANCE + 1,
                "freed slots are recycled: highest slot " + highestSlot);
    }

    @Test
    void shouldNotReuseAFreedSlotBeforeManyOthersAreFreed() {
        long first = rt.hostMalloc(8);
        rt.free(first);
        for (int i = 0; i < 1_000; i++) {
            long a = rt.hostMalloc(8);
            assertNotEquals(SvmAddress.slot(first), SvmAddress.slot(a));
            rt.free(a);
        }
    }

    /** Allocates and frees until a new allocation lands in {@code stale}'s slot; returns it, still live. */
    private long allocateIntoTheSlotOf(long stale) {
        for (int i = 0; i < 4 * AddressSpace.REUSE_DISTANCE; i++) {
            long a = rt.hostMalloc(64);
            if (SvmAddress.slot(a) == SvmAddress.slot(stale)) {
                return a;
            }
            rt.free(a);
        }
        throw new AssertionError("slot " + SvmAddress.slot(stale) + " was never reused");
    }

    @Test
    void shouldFaultThroughAStalePointerAfterItsSlotIsReused() {
        long stale = rt.hostMalloc(64);
        rt.svm().setLong(stale + 8, 1111);
        rt.free(stale);
        long reused = allocateIntoTheSlotOf(stale);
        assertNotEquals(SvmAddress.generation(stale), SvmAddress.generation(reused));
        rt.svm().setLong(reused + 8, 2222);
        MemoryFaultException e = assertThrows(MemoryFaultException.class, () -> rt.svm().getLong(stale + 8));
        assertEquals(HsaStatus.MEMORY_FAULT, e.status());
        assertEquals(stale + 8, e.address());
        assertThrows(MemoryFaultException.class, () -> rt.svm().setLong(stale + 8, 3333));
        assertEquals(2222, rt.svm().getLong(reused + 8));
        assertNull(rt.pointerInfo(stale));
    }

    @Test
    void shouldRefuseAStaleFreeWithoutFreeingTheSlotsNewAllocation() {
        long stale = rt.hostMalloc(64);
        rt.free(stale);
        long reused = allocateIntoTheSlotOf(stale);
        HsaException e = assertThrows(HsaException.class, () -> rt.free(stale));
        assertEquals(HsaStatus.INVALID_ALLOCATION, e.status());
        rt.svm().setLong(reused, 5);
        assertEquals(reused, rt.pointerInfo(reused).base());
        rt.free(reused);
    }

    @Test
    void shouldGiveEachReuseOfASlotTheNextGeneration() {
        AddressSpace space = new AddressSpace();
        long base = space.reserve();
        int slot = SvmAddress.slot(base);
        int generation = SvmAddress.generation(base);
        space.cancel(base);
        int reuses = 0;
        for (int i = 0; reuses < 3 && i < 10 * AddressSpace.REUSE_DISTANCE; i++) {
            long b = space.reserve();
            if (SvmAddress.slot(b) == slot) {
                generation = (generation + 1) & SvmAddress.GENERATION_MASK;
                assertEquals(generation, SvmAddress.generation(b), "generation after reuse " + (reuses + 1));
                reuses++;
            }
            space.cancel(b);
        }
        assertEquals(3, reuses);
    }

    @Test
    void shouldResolveOnlyTheExactSlotAndGeneration() {
        long a = rt.hostMalloc(64);
        AddressSpace space = rt.memory().addressSpace();
        Allocation allocation = space.lookup(a + 63);
        assertSame(rt.pointerInfo(a), allocation);
        int otherGeneration = (SvmAddress.generation(a) + 1) & SvmAddress.GENERATION_MASK;
        assertNull(space.lookup(SvmAddress.encode(SvmAddress.slot(a), otherGeneration, 0)));
        assertNull(space.lookup(SvmAddress.encode(SvmAddress.slot(a) + 1, SvmAddress.generation(a), 0)));
        assertNull(space.lookup(0));
        assertNull(space.lookup(-1));
    }

    @Test
    void shouldEncodeAndDecodeEveryField() {
        long address = SvmAddress.encode(SvmAddress.MAX_ALLOCATIONS, SvmAddress.GENERATION_MASK, SvmAddress.OFFSET_MASK);
        assertTrue(address > 0, "addresses are never negative");
        assertEquals(SvmAddress.MAX_ALLOCATIONS, SvmAddress.slot(address));
        assertEquals(SvmAddress.GENERATION_MASK, SvmAddress.generation(address));
        assertEquals(SvmAddress.OFFSET_MASK, SvmAddress.offset(address));
        long small = SvmAddress.encode(5, 2, 100);
        assertEquals(5, SvmAddress.slot(small));
        assertEquals(2, SvmAddress.generation(small));
        assertEquals(100, SvmAddress.offset(small));
    }
}
