package org.hsa4j.services.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Host malloc for devices that register host memory: blocks from slabs mapped ahead of the calls. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MappedSlabsTest {
    private HsaRuntime rt;
    private HostMallocService malloc;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init();
        malloc = new HostMallocService(rt, true);
    }

    @AfterEach
    void stop() {
        malloc.close();
        rt.close();
    }

    @Test
    void blocksAreRealAddressesThatDoNotOverlapAndHoldTheirBytes() {
        Svm svm = rt.svm();
        List<long[]> blocks = new ArrayList<>();
        for (int i = 1; i <= 200; i++) {
            long bytes = 8L * i;
            long a = malloc.allocate(bytes, false)[0];
            assertEquals(rt.realSystemPool(), rt.pointerInfo(a).pool(), "block " + i + " is in the real-address pool");
            for (long w = 0; w < bytes; w += 8) {
                svm.setLong(a + w, i * 1000L + w);
            }
            blocks.add(new long[] {a, bytes, i});
        }
        for (long[] b : blocks) {
            for (long w = 0; w < b[1]; w += 8) {
                assertEquals(b[2] * 1000L + w, svm.getLong(b[0] + w), "block " + b[2] + " word " + w);
            }
        }
    }

    @Test
    void aFreedBlockIsReusedForItsClassAndFreeingItTwiceIsADoubleFree() {
        long a = malloc.allocate(100, false)[0];
        assertEquals(HeapStatus.OK, malloc.release(a));
        assertEquals(HeapStatus.DOUBLE_FREE, malloc.release(a));
        long b = malloc.allocate(120, true)[0];
        assertEquals(a, b, "the same 128-byte class");
        assertEquals(0, rt.svm().getLong(b + 64), "calloc zeroes a reused block");
        assertEquals(HeapStatus.INTERIOR_POINTER, malloc.release(b + 8));
        assertEquals(HeapStatus.FOREIGN_POINTER, malloc.release(rt.hostMalloc(64)));
        assertEquals(HeapStatus.OK, malloc.release(b));
    }

    @Test
    void theNextSlabIsMappedOnItsOwnThreadOnceHalfTheSlabIsCarved() {
        MappedSlabs slabs = new MappedSlabs(rt);
        try {
            assertEquals(1, slabs.slabCount(), "the first slab is mapped at start");
            long block = 64 * 1024;
            int half = (int) (MappedSlabs.SLAB_BYTES / 2 / block) + 1;
            for (int i = 0; i < half; i++) {
                slabs.allocate(block);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (slabs.slabCount() < 2 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(1_000_000);
            }
            assertEquals(2, slabs.slabCount(), "the next slab was mapped without a caller asking for it");
            long last = 0;
            for (int i = half; i < 2 * half + 10; i++) {
                last = slabs.allocate(block);
            }
            assertEquals(block, slabs.liveBytes(last));
            assertFalse(slabs.isInterior(last));
            assertTrue(slabs.isInterior(last + 8));
        } finally {
            slabs.close();
        }
    }

    @Test
    void aBlockLargerThanASlabsLargestIsASpanOfItsOwn() {
        long a = malloc.allocate(3L << 20, true)[0];
        assertEquals(rt.realSystemPool(), rt.pointerInfo(a).pool());
        rt.svm().setLong(a + (3L << 20) - 8, 7);
        assertEquals(HeapStatus.OK, malloc.release(a));
    }
}
