package org.hsa4j.services.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.Svm;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostMallocTest {
    private Fixture f;
    private HostMemory mem;
    private Svm host;

    @BeforeEach
    void start() {
        f = Fixture.start();
        mem = f.services.hostMemory();
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
    void shouldMallocMemoryAKernelWritesAndTheHostReads() {
        long[] r = inKernel(1, (wi, out) -> {
            long p = mem.malloc(wi, 4096);
            for (int i = 0; i < 512; i++) {
                wi.svm().setLong(p + 8L * i, i * 3L);
            }
            wi.svm().setLong(out, p);
        });
        long p = r[0];
        assertNotEquals(0, p);
        for (int i = 0; i < 512; i++) {
            assertEquals(i * 3L, host.getLong(p + 8L * i));
        }
        assertEquals(1, f.services.mallocService().liveBlocks());
    }

    @Test
    void shouldZeroCallocMemory() {
        long[] r = inKernel(1, (wi, out) -> {
            long p = mem.malloc(wi, 256);
            wi.svm().fill(p, 256, (byte) 0x5A);
            mem.free(wi, p);
            long q = mem.calloc(wi, 256);
            long or = 0;
            for (int i = 0; i < 32; i++) {
                or |= wi.svm().getLong(q + 8L * i);
            }
            wi.svm().setLong(out, or);
        });
        assertEquals(0, r[0]);
    }

    @Test
    void shouldRefuseADoubleFreeAndChangeNothing() {
        long[] r = inKernel(3, (wi, out) -> {
            long p = mem.malloc(wi, 100);
            long keep = mem.malloc(wi, 100);
            wi.svm().setLong(out, mem.free(wi, p));
            wi.svm().setLong(out + 8, mem.free(wi, p));
            wi.svm().setLong(out + 16, keep);
        });
        assertEquals(HeapStatus.OK, r[0]);
        assertEquals(HeapStatus.DOUBLE_FREE, r[1]);
        assertEquals(1, f.services.mallocService().liveBlocks());
        host.setLong(r[2], 1);
    }

    @Test
    void shouldRefuseForeignAndInteriorPointers() {
        long foreign = f.rt.hostMalloc(64);
        long[] r = inKernel(3, (wi, out) -> {
            long p = mem.malloc(wi, 100);
            wi.svm().setLong(out, mem.free(wi, foreign));
            wi.svm().setLong(out + 8, mem.free(wi, p + 8));
            wi.svm().setLong(out + 16, mem.free(wi, 0xDEAD_BEEFL));
        });
        assertEquals(HeapStatus.FOREIGN_POINTER, r[0]);
        assertEquals(HeapStatus.INTERIOR_POINTER, r[1]);
        assertEquals(HeapStatus.FOREIGN_POINTER, r[2]);
        assertEquals(1, f.services.mallocService().liveBlocks());
        host.setLong(foreign, 1);
    }

    @Test
    void shouldReturnZeroForAnImpossibleSize() {
        long[] r = inKernel(2, (wi, out) -> {
            wi.svm().setLong(out, mem.malloc(wi, -5));
            wi.svm().setLong(out + 8, mem.malloc(wi, 1L << 40));
        });
        assertEquals(0, r[0]);
        assertEquals(0, r[1]);
    }
}
