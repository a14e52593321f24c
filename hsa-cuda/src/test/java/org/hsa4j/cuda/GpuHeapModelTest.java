package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * The GPU heap's algorithm (hsa4j_gheap.cuh) modelled over Java atomics, so that its races can be
 * looked for without a GPU: one class, chunks of a free count and a bitmap, a block reserved by
 * counting down before a bit is set and given back by clearing the bit before counting up.
 */
class GpuHeapModelTest {

    static final int OK = 0;
    static final int DOUBLE_FREE = -1;
    static final int INTERIOR_POINTER = -3;
    static final int FOREIGN_POINTER = -2;

    /** The model: {@code chunks} chunks of {@code blocks} blocks of 16 bytes, all added up front. */
    static final class Model {
        final int blocks;
        final AtomicIntegerArray free;
        final AtomicIntegerArray bitmap;
        final int words;

        Model(int chunks, int blocks) {
            this.blocks = blocks;
            this.words = blocks / 32;
            this.free = new AtomicIntegerArray(chunks);
            this.bitmap = new AtomicIntegerArray(chunks * words);
            for (int c = 0; c < chunks; c++) {
                free.set(c, blocks);
            }
        }

        /** take_block over every chunk: an address (chunk * blocks + block) * 16, or -1 when all are full. */
        long malloc(int seed) {
            for (int c = 0; c < free.length(); c++) {
                if (free.get(c) <= 0) {
                    continue;
                }
                if (free.getAndDecrement(c) <= 0) {
                    free.getAndIncrement(c);
                    continue;
                }
                for (int k = 0; k < 64 * words; k++) {
                    int w = (seed + k) % words;
                    int seen = bitmap.get(c * words + w);
                    while (seen != -1) {
                        int bit = Integer.numberOfTrailingZeros(~seen);
                        int before = bitmap.getAndUpdate(c * words + w, v -> v | (1 << bit));
                        if ((before & (1 << bit)) == 0) {
                            return ((long) c * blocks + w * 32L + bit) * 16;
                        }
                        seen = before | (1 << bit);
                    }
                }
                free.getAndIncrement(c);
            }
            return -1;
        }

        /** hsa4j_gheap_free: OK, DOUBLE_FREE, INTERIOR_POINTER or FOREIGN_POINTER. */
        int free(long address) {
            if (address < 0 || address >= (long) free.length() * blocks * 16) {
                return FOREIGN_POINTER;
            }
            if (address % 16 != 0) {
                return INTERIOR_POINTER;
            }
            int c = (int) (address / 16 / blocks);
            int block = (int) (address / 16 % blocks);
            int bit = 1 << (block % 32);
            int before = bitmap.getAndUpdate(c * words + block / 32, v -> v & ~bit);
            if ((before & bit) == 0) {
                return DOUBLE_FREE;
            }
            free.getAndIncrement(c);
            return OK;
        }
    }

    @Test
    void threadsAllocatingAndFreeingAtOnceNeverHoldOneBlockTogether() throws Exception {
        Model heap = new Model(2, 64); // few blocks: every allocation contends
        ConcurrentHashMap<Long, Integer> owners = new ConcurrentHashMap<>();
        AtomicInteger wrong = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int id = t;
                done.add(pool.submit(() -> {
                    for (int r = 0; r < 20_000; r++) {
                        long a = heap.malloc(id * 7 + r);
                        if (a < 0) {
                            continue;
                        }
                        if (owners.putIfAbsent(a, id) != null) {
                            wrong.incrementAndGet();
                            continue;
                        }
                        owners.remove(a, id);
                        if (heap.free(a) != OK) {
                            wrong.incrementAndGet();
                        }
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "workers stopped");
        }
        assertEquals(0, wrong.get(), "blocks handed out twice or frees refused");
        assertEquals(128, heap.free.get(0) + heap.free.get(1), "every block came back");
    }

    @Test
    void aSecondFreeWithNoAllocationBetweenIsDoubleFree() {
        Model heap = new Model(1, 32);
        long a = heap.malloc(0);
        assertEquals(OK, heap.free(a));
        assertEquals(DOUBLE_FREE, heap.free(a));
    }

    @Test
    void aSecondFreeAfterAnotherThreadGotTheBlockBackFreesThatThreadsBlock() {
        // why the GPU check kernel runs its frees in a launch of their own (the first H100 run's -4/-6)
        Model heap = new Model(1, 32);
        long a = heap.malloc(0);
        assertEquals(OK, heap.free(a));
        long others = heap.malloc(0);
        assertEquals(a, others, "the freed block is handed out again");
        assertNotEquals(DOUBLE_FREE, heap.free(a), "the stale free cannot be told from the new owner's");
        assertEquals(DOUBLE_FREE, heap.free(others), "the new owner's own free is refused");
    }
}
