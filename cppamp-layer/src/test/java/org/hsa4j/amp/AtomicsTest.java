package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Item 7: kernel-side atomics on SVM ints, longs and floats with C++11 orders, shared with host threads. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AtomicsTest {
    private static final int N = 64 * 1024;
    private static AmpFixture fx;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start();
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @ParameterizedTest
    @EnumSource(value = CppMemoryOrder.class)
    void shouldCountEveryFetchAddUnderContentionInEveryOrder(CppMemoryOrder order) {
        IntArrayView c = fx.ints(1);
        fx.amp.parallelForEach(new Extent(N), idx -> c.atomicFetchAdd(0, 1, order)).get();
        assertEquals(N, c.get(0));
    }

    @Test
    void shouldSubtractAndMask() {
        IntArrayView c = fx.ints(4);
        c.set(0, N);
        c.set(1, -1);
        fx.amp.parallelForEach(new Extent(N), idx -> {
            int i = idx.get(0);
            c.atomicFetchSub(0, 1);
            c.atomicFetchAnd(1, ~(1 << (i & 31)));
            c.atomicFetchOr(2, 1 << (i & 31));
        }).get();
        assertEquals(0, c.get(0));
        assertEquals(0, c.get(1));
        assertEquals(-1, c.get(2));
        fx.amp.parallelForEach(new Extent(33 * 32), idx -> c.atomicFetchXor(3, 1 << (idx.get(0) & 31),
                CppMemoryOrder.ACQ_REL)).get();
        assertEquals(-1, c.get(3), "each bit toggled 33 times");
    }

    @Test
    void shouldKeepTheMaximumAndTheMinimum() {
        IntArrayView c = fx.ints(2);
        c.set(1, Integer.MAX_VALUE);
        fx.amp.parallelForEach(new Extent(N), idx -> {
            int v = (idx.get(0) * 7919) % N;
            c.atomicFetchMax(0, v, CppMemoryOrder.RELAXED);
            c.atomicFetchMin(1, v + 5);
        }).get();
        assertEquals(N - 1, c.get(0));
        assertEquals(5, c.get(1));
    }

    @Test
    void shouldHandEveryValueThroughExchangeExactlyOnce() {
        int n = 10_000;
        IntArrayView cell = fx.ints(1);
        IntArrayView got = fx.ints(n);
        cell.set(0, -1);
        fx.amp.parallelForEach(new Extent(n), idx -> got.set(idx.get(0), cell.atomicExchange(0, idx.get(0)))).get();
        int[] all = new int[n + 1];
        for (int i = 0; i < n; i++) {
            all[i] = got.get(i);
        }
        all[n] = cell.get(0);
        Arrays.sort(all);
        for (int i = 0; i <= n; i++) {
            assertEquals(i - 1, all[i]);
        }
    }

    @Test
    void shouldIncrementThroughCompareExchangeLoops() {
        IntArrayView c = fx.ints(1);
        fx.amp.parallelForEach(new Extent(N), idx -> {
            int seen = c.atomicLoad(0, CppMemoryOrder.RELAXED);
            int witness;
            while ((witness = c.atomicCompareExchange(0, seen, seen + 1, CppMemoryOrder.ACQUIRE)) != seen) {
                seen = witness;
            }
        }).get();
        assertEquals(N, c.get(0));
    }

    @Test
    void shouldApplyEveryOperationToLongsBeyondIntRange() {
        LongArrayView c = fx.longs(5);
        long big = 1L << 40;
        c.set(1, -1L);
        fx.amp.parallelForEach(new Extent(N), idx -> {
            int i = idx.get(0);
            c.atomicFetchAdd(0, big, CppMemoryOrder.RELEASE);
            c.atomicFetchAnd(1, ~(1L << (i & 63)));
            c.atomicFetchMax(2, big + i);
            long seen = c.atomicLoad(3, CppMemoryOrder.SEQ_CST);
            long witness;
            while ((witness = c.atomicCompareExchange(3, seen, seen + big)) != seen) {
                seen = witness;
            }
            c.atomicExchange(4, big);
        }).get();
        assertEquals(N * big, c.get(0));
        assertEquals(0L, c.get(1));
        assertEquals(big + N - 1, c.get(2));
        assertEquals(N * big, c.get(3));
        assertEquals(big, c.get(4));
        c.atomicStore(4, 3L, CppMemoryOrder.RELEASE);
        assertEquals(3L, c.atomicFetchSub(4, 1L));
        assertEquals(2L, c.atomicFetchMin(4, 1L));
        assertEquals(1L, c.atomicFetchOr(4, 6L));
        assertEquals(7L, c.atomicFetchXor(4, 7L));
        assertEquals(0L, c.atomicLoad(4, CppMemoryOrder.ACQUIRE));
    }

    @Test
    void shouldAddFloatsAtomically() {
        FloatArrayView sum = fx.floats(1);
        fx.amp.parallelForEach(new Extent(4096), idx -> sum.atomicFetchAdd(0, 0.5f)).get();
        assertEquals(2048f, sum.get(0));
        fx.amp.parallelForEach(new Extent(4096), idx -> sum.atomicFetchAdd(0, -0.5f, CppMemoryOrder.RELAXED)).get();
        assertEquals(0f, sum.get(0));
    }

    @Test
    void shouldShareTheSameAtomicsWithHostThreads() throws Exception {
        LongArrayView c = fx.longs(1);
        Gate gate = new Gate(fx);
        IndexKernel wait = gate.kernel();
        CompletionFuture kernel = fx.amp.parallelForEach(new Extent(N), idx -> {
            if (idx.get(0) == 0) {
                wait.run(idx);
            }
            c.atomicFetchAdd(0, 1L);
        });
        CompletableFuture<Void> host = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < N; i++) {
                c.atomicFetchAdd(0, 1L, CppMemoryOrder.RELAXED);
            }
        });
        host.get(30, TimeUnit.SECONDS);
        gate.open();
        kernel.get();
        assertEquals(2L * N, c.get(0));
    }

    @Test
    void shouldPublishDataFromAKernelToAHostThreadWithReleaseAndAcquire() throws Exception {
        IntArrayView data = fx.ints(1);
        IntArrayView flag = fx.ints(1);
        CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (flag.atomicLoad(0, CppMemoryOrder.ACQUIRE) == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            return data.get(0);
        });
        fx.amp.parallelForEach(new Extent(1), idx -> {
            data.set(0, 1234);
            flag.atomicStore(0, 1, CppMemoryOrder.RELEASE);
        });
        assertEquals(1234, reader.get(30, TimeUnit.SECONDS));
    }

    @Test
    void shouldRejectOrdersThatLoadsAndStoresCannotHave() {
        IntArrayView c = fx.ints(1);
        assertThrows(IllegalArgumentException.class, () -> c.atomicLoad(0, CppMemoryOrder.RELEASE));
        assertThrows(IllegalArgumentException.class, () -> c.atomicStore(0, 1, CppMemoryOrder.ACQUIRE));
        assertTrue(CppMemoryOrder.CONSUME.validForLoad());
        assertTrue(!CppMemoryOrder.ACQ_REL.validForStore());
    }
}
