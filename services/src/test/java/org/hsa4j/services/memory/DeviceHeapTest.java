package org.hsa4j.services.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeviceHeapTest {
    private static final int N = 4096;

    private Fixture f;
    private DeviceHeap heap;
    private Svm host;

    @BeforeEach
    void start() {
        f = Fixture.start();
        heap = f.services.deviceHeap();
        host = f.rt.svm();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private long[] inKernel(int results, Kernels.Body body) {
        long out = f.rt.hostMalloc(8L * Math.max(1, results));
        Kernels.run(f.rt, f.queue, wi -> body.run(wi, Kernels.arg(wi, 0)), 1, 1, out);
        long[] r = new long[results];
        for (int i = 0; i < results; i++) {
            r[i] = host.getLong(out + 8L * i);
        }
        return r;
    }

    @Test
    void shouldRoundSizesUpToPowerOfTwoClasses() {
        assertEquals(0, heap.sizeClass(1));
        assertEquals(0, heap.sizeClass(16));
        assertEquals(1, heap.sizeClass(17));
        assertEquals(7, heap.sizeClass(2048));
        assertEquals(-1, heap.sizeClass(2049));
    }

    @Test
    void shouldGiveDistinctBlocksTo4096WorkItemsAllocatingAtOnce() {
        long out = f.rt.hostMalloc(8L * N);
        Kernels.run(f.rt, f.queue, wi -> {
            long id = wi.flatGlobalId();
            long p = heap.malloc(wi, 24);
            wi.svm().setLong(p, id);
            wi.svm().setLong(p + 16, ~id);
            wi.svm().setLong(Kernels.arg(wi, 0) + 8 * id, p);
        }, N, 64, out);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < N; i++) {
            long p = host.getLong(out + 8L * i);
            assertNotEquals(0, p);
            assertTrue(seen.add(p), "block handed out twice");
            assertEquals(i, host.getLong(p), "block of work-item " + i + " was overwritten");
            assertEquals(~(long) i, host.getLong(p + 16));
        }
        int blocksPerChunk = DeviceHeapLayout.blockCount(heap.chunkBytes(), 32);
        int chunks = f.services.mallocService().chunkCount(heap);
        assertTrue(chunks >= (N + blocksPerChunk - 1) / blocksPerChunk && chunks <= N / blocksPerChunk + 3,
                chunks + " chunks for " + N + " blocks of 32 bytes");
    }

    @Test
    void shouldReuseFreedBlocksWithoutRefilling() {
        inKernel(0, (wi, out) -> heap.free(wi, heap.malloc(wi, 100)));
        int chunks = f.services.mallocService().chunkCount(heap);
        long out = f.rt.hostMalloc(8L * N);
        Kernels.run(f.rt, f.queue, wi -> {
            for (int round = 0; round < 4; round++) {
                long p = heap.malloc(wi, 100);
                wi.svm().setLong(p, round);
                wi.svm().setLong(Kernels.arg(wi, 0) + 8 * wi.flatGlobalId(), heap.free(wi, p));
            }
        }, 256, 64, out);
        for (int i = 0; i < 256; i++) {
            assertEquals(HeapStatus.OK, host.getLong(out + 8L * i));
        }
        assertTrue(f.services.mallocService().chunkCount(heap) <= chunks + 1);
    }

    @Test
    void shouldRefuseADoubleFreeWithoutChangingTheHeap() {
        long[] r = inKernel(4, (wi, out) -> {
            long p = heap.malloc(wi, 64);
            wi.svm().setLong(out, heap.free(wi, p));
            wi.svm().setLong(out + 8, heap.free(wi, p));
            long q = heap.malloc(wi, 64);
            long s = heap.malloc(wi, 64);
            wi.svm().setLong(out + 16, q);
            wi.svm().setLong(out + 24, s);
        });
        assertEquals(HeapStatus.OK, r[0]);
        assertEquals(HeapStatus.DOUBLE_FREE, r[1]);
        assertNotEquals(r[2], r[3], "the double free did not put the block on the heap twice");
    }

    @Test
    void shouldRefuseInteriorForeignAndOtherHeapsPointers() {
        DeviceHeap other = f.services.createDeviceHeap(64 * 1024, 4, 16);
        long plain = f.rt.hostMalloc(4096);
        long[] r = inKernel(5, (wi, out) -> {
            long p = heap.malloc(wi, 64);
            long q = other.malloc(wi, 64);
            wi.svm().setLong(out, heap.free(wi, p + 8));
            wi.svm().setLong(out + 8, heap.free(wi, q));
            wi.svm().setLong(out + 16, heap.free(wi, plain));
            wi.svm().setLong(out + 24, heap.free(wi, 0x1234_5678L));
            wi.svm().setLong(out + 32, heap.free(wi, p));
        });
        assertEquals(HeapStatus.INTERIOR_POINTER, r[0]);
        assertEquals(HeapStatus.FOREIGN_POINTER, r[1]);
        assertEquals(HeapStatus.FOREIGN_POINTER, r[2]);
        assertEquals(HeapStatus.FOREIGN_POINTER, r[3]);
        assertEquals(HeapStatus.OK, r[4]);
    }

    @Test
    void shouldServeLargeBlocksFromTheHostAndFreeThemThere() {
        long[] r = inKernel(3, (wi, out) -> {
            long p = heap.malloc(wi, 100_000);
            wi.svm().setLong(p + 99_992, 5);
            wi.svm().setLong(out, p);
            wi.svm().setLong(out + 8, heap.free(wi, p));
            wi.svm().setLong(out + 16, heap.free(wi, p));
        });
        assertNotEquals(0, r[0]);
        assertEquals(HeapStatus.OK, r[1]);
        assertEquals(HeapStatus.DOUBLE_FREE, r[2]);
        assertEquals(0, f.services.mallocService().liveBlocks());
    }

    @Test
    void shouldZeroNewArraysAndThrowFromDeleteOfABadPointer() {
        long[] r = inKernel(2, (wi, out) -> {
            long p = heap.malloc(wi, 512);
            wi.svm().fill(p, 512, (byte) 1);
            heap.delete(wi, p);
            long a = heap.newArray(wi, ValueLayout.JAVA_LONG, 64);
            long or = 0;
            for (int i = 0; i < 64; i++) {
                or |= wi.svm().getLong(a + 8L * i);
            }
            wi.svm().setLong(out, or);
            heap.delete(wi, a);
            try {
                heap.delete(wi, a);
                wi.svm().setLong(out + 8, -1);
            } catch (HsaException e) {
                wi.svm().setLong(out + 8, e.status() == HsaStatus.INVALID_ALLOCATION ? 1 : -2);
            }
        });
        assertEquals(0, r[0]);
        assertEquals(1, r[1]);
    }

    @Test
    void shouldSayWhyMallocReturnedZeroWhenTheHostCannotRefill() {
        try (Fixture small = Fixture.start(RuntimeConfig.builderFromEnvironment().computeUnits(2)
                .systemMemorySize(256L << 20).build(), ServicesConfig.builder())) {
            DeviceHeap starved = small.services.createDeviceHeap(1L << 30, 4, 16);
            long out = small.rt.hostMalloc(8);
            Kernels.run(small.rt, small.queue, wi -> wi.svm().setLong(Kernels.arg(wi, 0), starved.malloc(wi, 32)),
                    1, 1, out);
            assertEquals(0, small.rt.svm().getLong(out), "a block from a heap whose chunk cannot be made");
            String why = starved.lastFailure();
            assertTrue(why != null && why.contains("size class 1") && why.contains("OUT_OF_MEMORY"), String.valueOf(why));
        }
        assertNull(heap.lastFailure(), "a failure reported by a heap that never failed");
    }

    @Test
    void shouldRefuseHeapsThatCannotWork() {
        assertThrows(IllegalArgumentException.class, () -> f.services.createDeviceHeap(1024, 8, 16));
        assertThrows(IllegalArgumentException.class, () -> f.services.createDeviceHeap(65536, 4, 12));
    }
}
