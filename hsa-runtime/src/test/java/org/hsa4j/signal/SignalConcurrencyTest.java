package org.hsa4j.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.Kernel;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Read-modify-writes from many threads and from a kernel's work-items lose no update. */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SignalConcurrencyTest {
    private static final int THREADS = 4;
    private static final int ITERATIONS = 20_000;
    private static final long FOREVER = Long.MAX_VALUE;

    private HsaRuntime rt;

    @BeforeEach
    void startRuntime() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build());
    }

    @AfterEach
    void closeRuntime() {
        rt.close();
    }

    /** Runs {@code body(thread)} on {@link #THREADS} threads released together, and waits for all. */
    private static void onThreads(ThreadBody body) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<WaiterThread<Long>> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            threads.add(WaiterThread.start("worker" + t, () -> {
                go.await();
                body.run(id);
                return 0L;
            }));
        }
        go.countDown();
        for (WaiterThread<Long> t : threads) {
            t.result();
        }
    }

    @FunctionalInterface
    private interface ThreadBody {
        void run(int thread);
    }

    /** Dispatches {@code kernel} over a 1-D grid on the GPU agent and waits for it to complete. */
    private void dispatch(Kernel kernel, int grid, int workgroup) {
        long object = rt.createExecutable().define("k", KernelDescriptor.EMPTY, kernel).freeze().symbol("k")
                .kernelObject();
        Queue q = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        q.dispatch(object, grid, workgroup).join();
        q.destroy();
    }

    @Test
    void shouldLoseNoAddOrSubtractFromSeveralThreads() throws Exception {
        Signal s = rt.createSignal(0);
        onThreads(t -> {
            for (int i = 0; i < ITERATIONS; i++) {
                switch (i & 3) {
                    case 0 -> {
                        s.addScacqScrel(3);
                        s.subtractScacqScrel(1);
                    }
                    case 1 -> {
                        s.addScacquire(3);
                        s.subtractScacquire(1);
                    }
                    case 2 -> {
                        s.addScrelease(3);
                        s.subtractScrelease(1);
                    }
                    default -> {
                        s.addRelaxed(3);
                        s.subtractRelaxed(1);
                    }
                }
            }
        });
        assertEquals(2L * THREADS * ITERATIONS, s.loadScacquire());
    }

    @Test
    void shouldLoseNoBitFromConcurrentOrs() throws Exception {
        Signal s = rt.createSignal(0);
        onThreads(t -> {
            for (int bit = t; bit < 64; bit += THREADS) {
                s.orRelaxed(1L << bit);
            }
        });
        assertEquals(-1L, s.loadScacquire());
    }

    @Test
    void shouldLoseNoBitFromConcurrentAnds() throws Exception {
        Signal s = rt.createSignal(-1);
        onThreads(t -> {
            for (int bit = t; bit < 64; bit += THREADS) {
                s.andScacqScrel(~(1L << bit));
            }
        });
        assertEquals(0, s.loadScacquire());
    }

    @Test
    void shouldLoseNoToggleFromConcurrentXors() throws Exception {
        Signal s = rt.createSignal(0);
        onThreads(t -> {
            for (int i = 0; i < 2 * ITERATIONS + 1; i++) {
                s.xorScrelease(0xFFL << (8 * t));
            }
        });
        assertEquals((1L << (8 * THREADS)) - 1, s.loadScacquire());
    }

    @Test
    void shouldLoseNoExchangeFromConcurrentSwaps() throws Exception {
        Signal s = rt.createSignal(0);
        long[] sums = new long[THREADS];
        onThreads(t -> {
            long sum = 0;
            for (int i = 1; i <= ITERATIONS; i++) {
                sum += s.exchangeScacqScrel((long) t * ITERATIONS + i);
            }
            sums[t] = sum;
        });
        long seen = s.loadScacquire();
        for (long sum : sums) {
            seen += sum;
        }
        long n = (long) THREADS * ITERATIONS;
        assertEquals(n * (n + 1) / 2, seen, "every value written is returned by exactly one exchange or left");
    }

    @Test
    void shouldLoseNoIncrementFromConcurrentCasLoops() throws Exception {
        Signal s = rt.createSignal(0);
        onThreads(t -> {
            for (int i = 0; i < ITERATIONS; i++) {
                long v = s.loadRelaxed();
                long witness;
                while ((witness = s.casScacqScrel(v, v + 1)) != v) {
                    v = witness;
                }
            }
        });
        assertEquals((long) THREADS * ITERATIONS, s.loadScacquire());
    }

    @Test
    void shouldLoseNoAddFromAKernelsWorkItems() {
        Signal s = rt.createSignal(0);
        int grid = 16_384;
        dispatch(wi -> {
            s.addScacqScrel(3);
            s.subtractRelaxed(1);
        }, grid, 64);
        assertEquals(2L * grid, s.loadScacquire());
    }

    @Test
    void shouldLoseNoUpdateWhenWorkItemsAndHostThreadsAddTogether() throws Exception {
        Signal s = rt.createSignal(0);
        int grid = 16_384;
        WaiterThread<Long> host = WaiterThread.start("host", () -> {
            for (int i = 0; i < ITERATIONS; i++) {
                s.subtractScrelease(1);
            }
            return 0L;
        });
        dispatch(wi -> s.addRelaxed(1), grid, 64);
        host.result();
        assertEquals(grid - ITERATIONS, s.loadScacquire());
    }

    @Test
    void shouldWakeTheHostWhenTheLastWorkItemCountsDown() throws Exception {
        int grid = 4_096;
        Signal remaining = rt.createSignal(grid);
        WaiterThread<Long> host = WaiterThread.start("host",
                () -> remaining.waitScacquire(SignalCondition.EQ, 0, FOREVER, WaitState.BLOCKED));
        dispatch(wi -> remaining.subtractScrelease(1), grid, 64);
        assertEquals(0, host.result());
    }
}
