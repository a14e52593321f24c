package org.hsa4j.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Timeout;

/**
 * {@code hsa_signal_wait_*}: every condition, wait state and order; immediate returns, timeouts,
 * interrupts, parking and waking, and changes made behind the API.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SignalWaitTest {
    private static final long FOREVER = Long.MAX_VALUE;
    private static final long SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private HsaRuntime rt;

    /** Which wait entry point a case uses. */
    enum Order {
        SCACQUIRE, RELAXED;

        long await(Signal s, SignalCondition c, long compare, long timeoutNanos, WaitState state) {
            return this == SCACQUIRE ? s.waitScacquire(c, compare, timeoutNanos, state)
                    : s.waitRelaxed(c, compare, timeoutNanos, state);
        }
    }

    /** A condition with a starting value that fails it and a later value that satisfies it. */
    record Case(SignalCondition condition, long compare, long initial, long satisfying, long stillFailing) {
    }

    private static final List<Case> CASES = List.of(
            new Case(SignalCondition.EQ, 7, 5, 7, 8),
            new Case(SignalCondition.NE, 5, 5, 6, 5),
            new Case(SignalCondition.LT, 3, 5, 2, 3),
            new Case(SignalCondition.GTE, 10, 5, 10, 9));

    @BeforeEach
    void startRuntime() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterEach
    void closeRuntime() {
        rt.close();
    }

    static Stream<Arguments> everyConditionStateAndOrder() {
        List<Arguments> all = new ArrayList<>();
        for (Case c : CASES) {
            for (WaitState state : WaitState.values()) {
                for (Order order : Order.values()) {
                    all.add(Arguments.of(c.condition(), state, order));
                }
            }
        }
        return all.stream();
    }

    static Stream<Arguments> everyStateAndOrder() {
        List<Arguments> all = new ArrayList<>();
        for (WaitState state : WaitState.values()) {
            for (Order order : Order.values()) {
                all.add(Arguments.of(state, order));
            }
        }
        return all.stream();
    }

    private static Case caseOf(SignalCondition condition) {
        return CASES.stream().filter(c -> c.condition() == condition).findFirst().orElseThrow();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("everyConditionStateAndOrder")
    void shouldReturnTheValueAnotherThreadStoresToSatisfyTheCondition(SignalCondition condition, WaitState state,
                                                                     Order order) throws Exception {
        Case c = caseOf(condition);
        Signal s = rt.createSignal(c.initial());
        CountDownLatch started = new CountDownLatch(1);
        WaiterThread<Long> waiter = WaiterThread.start("waiter", () -> {
            started.countDown();
            return order.await(s, condition, c.compare(), FOREVER, state);
        });
        if (state == WaitState.BLOCKED) {
            waiter.awaitParkedOn(s);
        } else {
            started.await();
        }
        s.storeScrelease(c.satisfying());
        assertEquals(c.satisfying(), waiter.result());
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("everyConditionStateAndOrder")
    void shouldKeepWaitingThroughAValueThatStillFailsTheCondition(SignalCondition condition, WaitState state,
                                                                 Order order) throws Exception {
        Case c = caseOf(condition);
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(c.initial());
            WaiterThread<Long> waiter = WaiterThread.start("waiter",
                    () -> order.await(s, condition, c.compare(), FOREVER, state)).awaitParkedOn(s);
            s.storeScrelease(c.stillFailing());
            s.storeScrelease(c.satisfying());
            assertEquals(c.satisfying(), waiter.result());
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("everyConditionStateAndOrder")
    void shouldReturnAtOnceWhenTheConditionAlreadyHolds(SignalCondition condition, WaitState state, Order order) {
        Case c = caseOf(condition);
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(c.satisfying());
            assertEquals(c.satisfying(), order.await(s, condition, c.compare(), FOREVER, state));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyStateAndOrder")
    void shouldReturnTheCurrentValueAfterTheTimeout(WaitState state, Order order) {
        Signal s = rt.createSignal(3);
        long timeout = TimeUnit.MILLISECONDS.toNanos(30);
        long start = System.nanoTime();
        long value = order.await(s, SignalCondition.EQ, 0, timeout, state);
        long elapsed = System.nanoTime() - start;
        assertEquals(3, value);
        assertTrue(elapsed >= timeout - SLACK_NANOS, "returned after " + elapsed + " ns, before the timeout");
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyStateAndOrder")
    void shouldReturnTheCurrentValueAtOnceWithAZeroTimeout(WaitState state, Order order) {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(3);
            assertEquals(3, order.await(s, SignalCondition.EQ, 0, 0, state));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyStateAndOrder")
    void shouldReturnEarlyWithTheInterruptStatusSetWhenInterrupted(WaitState state, Order order) throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(3);
            WaiterThread<Long> waiter = WaiterThread.start("waiter",
                    () -> order.await(s, SignalCondition.EQ, 0, FOREVER, state)).awaitParkedOn(s);
            waiter.thread().interrupt();
            assertEquals(3, waiter.result());
            assertTrue(waiter.interruptedAtEnd(), "interrupt status cleared");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyStateAndOrder")
    void shouldReturnWhenTheThreadIsAlreadyInterrupted(WaitState state, Order order) throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(3);
            WaiterThread<Long> waiter = WaiterThread.start("waiter", () -> {
                Thread.currentThread().interrupt();
                return order.await(s, SignalCondition.EQ, 0, FOREVER, state);
            });
            assertEquals(3, waiter.result());
            assertTrue(waiter.interruptedAtEnd(), "interrupt status cleared");
        }
    }

    @Test
    void shouldParkABlockedWaiter() throws Exception {
        Signal s = rt.createSignal(1);
        WaiterThread<Long> waiter = WaiterThread.start("waiter",
                () -> s.waitScacquire(SignalCondition.EQ, 0, FOREVER, WaitState.BLOCKED)).awaitParkedOn(s);
        Thread.State st = waiter.thread().getState();
        assertTrue(st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING, "state " + st);
        s.storeScrelease(0);
        assertEquals(0, waiter.result());
    }

    @Test
    void shouldParkAnActiveWaiterOnceItsSpinIsOver() throws Exception {
        Signal s = rt.createSignal(1);
        WaiterThread<Long> waiter = WaiterThread.start("waiter",
                () -> s.waitScacquire(SignalCondition.EQ, 0, FOREVER, WaitState.ACTIVE)).awaitParkedOn(s);
        // the blocker is set just before the park and the waiter re-checks between timed parks, so
        // one look at its state may catch it runnable: look until it is seen parked (bounded)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Thread.State st = waiter.thread().getState();
        while (st != Thread.State.WAITING && st != Thread.State.TIMED_WAITING && System.nanoTime() - deadline < 0) {
            Thread.yield();
            st = waiter.thread().getState();
        }
        assertTrue(st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING, "never seen parked: state " + st);
        s.storeScrelease(0);
        assertEquals(0, waiter.result());
    }

    static Stream<Arguments> wakingOperations() {
        return Stream.of(
                Arguments.of("storeRelaxed", (Consumer<Signal>) s -> s.storeRelaxed(1)),
                Arguments.of("storeScrelease", (Consumer<Signal>) s -> s.storeScrelease(1)),
                Arguments.of("exchangeRelaxed", (Consumer<Signal>) s -> s.exchangeRelaxed(1)),
                Arguments.of("casRelaxed", (Consumer<Signal>) s -> s.casRelaxed(0b0110, 1)),
                Arguments.of("addRelaxed", (Consumer<Signal>) s -> s.addRelaxed(1)),
                Arguments.of("subtractRelaxed", (Consumer<Signal>) s -> s.subtractRelaxed(1)),
                Arguments.of("andRelaxed", (Consumer<Signal>) s -> s.andRelaxed(0b0010)),
                Arguments.of("orRelaxed", (Consumer<Signal>) s -> s.orRelaxed(1)),
                Arguments.of("xorRelaxed", (Consumer<Signal>) s -> s.xorRelaxed(1)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("wakingOperations")
    void shouldWakeAParkedWaiterWithoutTheRecheck(String name, Consumer<Signal> operation) throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(0b0110);
            WaiterThread<Long> waiter = WaiterThread.start("waiter",
                    () -> s.waitRelaxed(SignalCondition.NE, 0b0110, FOREVER, WaitState.BLOCKED)).awaitParkedOn(s);
            operation.accept(s);
            assertEquals(s.loadScacquire(), waiter.result());
        }
    }

    @Test
    void shouldWakeEveryParkedWaiterOfTheSignal() throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(0);
            List<WaiterThread<Long>> waiters = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                waiters.add(WaiterThread.start("waiter" + i,
                        () -> s.waitScacquire(SignalCondition.GTE, 1, FOREVER, WaitState.BLOCKED)).awaitParkedOn(s));
            }
            s.addScrelease(1);
            for (WaiterThread<Long> w : waiters) {
                assertEquals(1, w.result());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Order.class)
    void shouldSeeAValueAKernelWritesBehindTheApiThroughTheRecheck(Order order) throws Exception {
        Signal s = rt.createSignal(1);
        WaiterThread<Long> waiter = WaiterThread.start("waiter",
                () -> order.await(s, SignalCondition.EQ, 0, FOREVER, WaitState.BLOCKED)).awaitParkedOn(s);
        rt.gpuAgent().svm().atomicStoreLong(s.handle() + SignalDescriptor.VALUE, 0, MemoryOrder.RELEASE,
                MemoryScope.SYSTEM);
        assertEquals(0, waiter.result());
    }

    @Test
    void shouldSeeASilentStoreThroughTheRecheck() throws Exception {
        Signal s = rt.createSignal(1);
        WaiterThread<Long> waiter = WaiterThread.start("waiter",
                () -> s.waitScacquire(SignalCondition.EQ, 0, FOREVER, WaitState.BLOCKED)).awaitParkedOn(s);
        s.silentStoreRelaxed(0);
        assertEquals(0, waiter.result());
    }

    @Test
    void shouldRejectANullCondition() {
        Signal s = rt.createSignal(1);
        HsaException e = assertThrows(HsaException.class, () -> s.waitScacquire(null, 0, 0, WaitState.ACTIVE));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRejectANullWaitState() {
        Signal s = rt.createSignal(1);
        HsaException e = assertThrows(HsaException.class, () -> s.waitRelaxed(SignalCondition.EQ, 0, 0, null));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldUnregisterItsWaiterWhenTheWaitEnds() throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(1);
            WaiterThread<Long> waiter = WaiterThread.start("waiter",
                    () -> s.waitScacquire(SignalCondition.EQ, 0, FOREVER, WaitState.BLOCKED)).awaitParkedOn(s);
            assertEquals(1, s.waiterCount());
            s.storeScrelease(0);
            waiter.result();
            assertEquals(0, s.waiterCount());
        }
    }

    @Test
    void shouldUnregisterItsWaiterAfterATimeout() {
        Signal s = rt.createSignal(1);
        s.waitScacquire(SignalCondition.EQ, 0, TimeUnit.MILLISECONDS.toNanos(5), WaitState.BLOCKED);
        assertEquals(0, s.waiterCount());
    }
}
