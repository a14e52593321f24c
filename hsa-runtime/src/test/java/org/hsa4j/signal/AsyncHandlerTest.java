package org.hsa4j.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Async handlers ({@code hsa_amd_signal_async_handler}). To show that a handler did NOT run, a test
 * lets the service thread finish a full pass over its handlers that began after the change in
 * question ({@link #awaitFullServicePass}), instead of sleeping.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AsyncHandlerTest {
    private HsaRuntime rt;

    @BeforeEach
    void startRuntime() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterEach
    void closeRuntime() {
        rt.close();
    }

    private static void awaitValue(AtomicLong cell, long value) {
        while (cell.get() != value) {
            Thread.onSpinWait();
        }
    }

    private static void awaitCount(AtomicInteger counter, int count) {
        while (counter.get() < count) {
            Thread.onSpinWait();
        }
    }

    /**
     * Returns once the service thread has evaluated every armed handler in a pass that began after
     * everything this thread did before the call. A probe handler runs once per pass at most; it is
     * made to run three times in a row, and the pass of the second run starts after the first run,
     * which itself follows the caller's earlier changes; the third run shows that pass is over.
     */
    private void awaitFullServicePass() {
        Signal probe = rt.createSignal(0);
        AtomicLong seen = new AtomicLong();
        rt.setAsyncHandler(probe, SignalCondition.NE, 0, v -> {
            seen.set(v);
            return true;
        });
        for (long k = 1; k <= 3; k++) {
            probe.storeScrelease(k);
            awaitValue(seen, k);
        }
        probe.destroy();
    }

    @Test
    void shouldRunTheHandlerOffTheCallersThreadWithTheSatisfyingValue() {
        Signal s = rt.createSignal(0);
        AtomicLong value = new AtomicLong(-1);
        AtomicLong threadId = new AtomicLong();
        rt.setAsyncHandler(s, SignalCondition.GTE, 5, v -> {
            threadId.set(Thread.currentThread().threadId());
            value.set(v);
            return false;
        });
        s.storeScrelease(7);
        awaitValue(value, 7);
        assertTrue(threadId.get() != Thread.currentThread().threadId(), "ran on the caller's thread");
    }

    @Test
    void shouldRunAtOnceWhenTheConditionAlreadyHolds() {
        Signal s = rt.createSignal(3);
        AtomicLong value = new AtomicLong(-1);
        rt.setAsyncHandler(s, SignalCondition.EQ, 3, v -> {
            value.set(v);
            return false;
        });
        awaitValue(value, 3);
    }

    @Test
    void shouldNotRunWhileTheConditionFails() {
        Signal s = rt.createSignal(0);
        AtomicInteger runs = new AtomicInteger();
        rt.setAsyncHandler(s, SignalCondition.EQ, 5, v -> {
            runs.incrementAndGet();
            return true;
        });
        s.storeScrelease(4);
        awaitFullServicePass();
        assertEquals(0, runs.get());
    }

    @Test
    void shouldRunAgainOnTheNextSatisfyingChangeWhenItReturnsTrue() {
        Signal s = rt.createSignal(0);
        List<Long> values = new CopyOnWriteArrayList<>();
        rt.setAsyncHandler(s, SignalCondition.GTE, 1, v -> {
            values.add(v);
            return true;
        });
        s.storeScrelease(1);
        while (!values.contains(1L)) {
            Thread.onSpinWait();
        }
        s.storeScrelease(2);
        while (!values.contains(2L)) {
            Thread.onSpinWait();
        }
        assertEquals(1L, values.getFirst());
        assertTrue(values.stream().allMatch(v -> v == 1 || v == 2), "values " + values);
    }

    @Test
    void shouldNotRunAgainWhileTheValueStaysPutWhenItReturnsTrue() {
        Signal s = rt.createSignal(1);
        AtomicInteger runs = new AtomicInteger();
        rt.setAsyncHandler(s, SignalCondition.EQ, 1, v -> {
            runs.incrementAndGet();
            return true;
        });
        awaitCount(runs, 1);
        awaitFullServicePass();
        assertEquals(1, runs.get());
    }

    @Test
    void shouldRunAgainWhenTheSameValueIsStoredAgain() {
        Signal s = rt.createSignal(1);
        AtomicInteger runs = new AtomicInteger();
        rt.setAsyncHandler(s, SignalCondition.EQ, 1, v -> {
            runs.incrementAndGet();
            return true;
        });
        awaitCount(runs, 1);
        s.storeScrelease(1);
        awaitCount(runs, 2);
    }

    @Test
    void shouldNeverRunAgainAfterReturningFalse() {
        Signal s = rt.createSignal(1);
        AtomicInteger runs = new AtomicInteger();
        rt.setAsyncHandler(s, SignalCondition.EQ, 1, v -> {
            runs.incrementAndGet();
            return false;
        });
        awaitCount(runs, 1);
        s.storeScrelease(0);
        s.storeScrelease(1);
        awaitFullServicePass();
        assertEquals(1, runs.get());
    }

    @Test
    void shouldDisarmAHandlerThatThrows() {
        Signal s = rt.createSignal(1);
        AtomicInteger runs = new AtomicInteger();
        rt.setAsyncHandler(s, SignalCondition.GTE, 1, v -> {
            runs.incrementAndGet();
            throw new IllegalStateException("handler failure for the test (expected in the log)");
        });
        awaitCount(runs, 1);
        s.storeScrelease(2);
        awaitFullServicePass();
        assertEquals(1, runs.get());
    }

    @Test
    void shouldKeepRunningOtherHandlersAfterOneThrows() {
        Signal bad = rt.createSignal(1);
        Signal good = rt.createSignal(0);
        AtomicInteger badRuns = new AtomicInteger();
        AtomicLong goodValue = new AtomicLong();
        rt.setAsyncHandler(bad, SignalCondition.EQ, 1, v -> {
            badRuns.incrementAndGet();
            throw new IllegalStateException("handler failure for the test (expected in the log)");
        });
        awaitCount(badRuns, 1);
        rt.setAsyncHandler(good, SignalCondition.NE, 0, v -> {
            goodValue.set(v);
            return true;
        });
        good.storeScrelease(1);
        awaitValue(goodValue, 1);
        good.storeScrelease(2);
        awaitValue(goodValue, 2);
    }

    @Test
    void shouldRunEveryHandlerOfOneSignal() {
        Signal s = rt.createSignal(0);
        AtomicInteger first = new AtomicInteger();
        AtomicInteger second = new AtomicInteger();
        rt.setAsyncHandler(s, SignalCondition.EQ, 1, v -> first.incrementAndGet() < 0);
        rt.setAsyncHandler(s, SignalCondition.GTE, 1, v -> second.incrementAndGet() < 0);
        s.storeScrelease(1);
        awaitCount(first, 1);
        awaitCount(second, 1);
    }

    @Test
    void shouldRunOnAValueAKernelWritesBehindTheApi() {
        Signal s = rt.createSignal(0);
        AtomicLong value = new AtomicLong();
        rt.setAsyncHandler(s, SignalCondition.EQ, 9, v -> {
            value.set(v);
            return false;
        });
        rt.gpuAgent().svm().atomicStoreLong(s.handle() + SignalDescriptor.VALUE, 9, MemoryOrder.RELEASE,
                MemoryScope.SYSTEM);
        awaitValue(value, 9);
    }

    @Test
    void shouldDisarmTheHandlersOfADestroyedSignal() {
        Signal s = rt.createSignal(0);
        AtomicInteger runs = new AtomicInteger();
        rt.setAsyncHandler(s, SignalCondition.EQ, 1, v -> runs.incrementAndGet() > 0);
        awaitFullServicePass();
        assertEquals(1, s.waiterCount(), "the armed handler is registered on its signal");
        s.destroy();
        awaitFullServicePass();
        assertEquals(0, s.waiterCount());
        assertEquals(0, runs.get());
    }

    @Test
    void shouldRejectADestroyedSignal() {
        Signal s = rt.createSignal(0);
        s.destroy();
        HsaException e = assertThrows(HsaException.class,
                () -> rt.setAsyncHandler(s, SignalCondition.EQ, 0, v -> false));
        assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
    }

    @Test
    void shouldRejectANullHandler() {
        Signal s = rt.createSignal(0);
        HsaException e = assertThrows(HsaException.class, () -> rt.setAsyncHandler(s, SignalCondition.EQ, 0, null));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRejectAHandlerAfterTheRuntimeClosed() {
        Signal s = rt.createSignal(0);
        rt.close();
        HsaException e = assertThrows(HsaException.class,
                () -> rt.setAsyncHandler(s, SignalCondition.EQ, 0, v -> false));
        assertEquals(HsaStatus.NOT_INITIALIZED, e.status());
    }

    @Test
    void shouldCountArmedHandlersUntilTheyDisarm() {
        try (StandaloneSignals signals = new StandaloneSignals(); AsyncHandlerService service = new AsyncHandlerService()) {
            Signal s = signals.create(0);
            AtomicInteger runs = new AtomicInteger();
            service.register(s, SignalCondition.EQ, 1, v -> runs.incrementAndGet() < 0);
            service.register(s, SignalCondition.EQ, 2, v -> runs.incrementAndGet() < 0);
            assertEquals(2, service.armedCount());
            s.storeScrelease(1);
            while (service.armedCount() != 1) {
                Thread.onSpinWait();
            }
            assertEquals(1, runs.get());
            s.storeScrelease(2);
            while (service.armedCount() != 0) {
                Thread.onSpinWait();
            }
            assertEquals(2, runs.get());
        }
    }
}
