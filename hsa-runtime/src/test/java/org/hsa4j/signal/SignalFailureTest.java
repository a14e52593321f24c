package org.hsa4j.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Failed signals ({@code fail(e)}), re-arming them with a store, and runtime shutdown. */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SignalFailureTest {
    private static final long FOREVER = Long.MAX_VALUE;

    private static HsaException failure(HsaStatus status) {
        return new HsaException(status, "test failure");
    }

    @ParameterizedTest
    @EnumSource(WaitState.class)
    void shouldThrowTheFailureStatusFromAWaitOnAFailedSignal(WaitState state) {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(1);
            s.fail(failure(HsaStatus.EXCEPTION));
            HsaException e = assertThrows(HsaException.class,
                    () -> s.waitScacquire(SignalCondition.EQ, 0, FOREVER, state));
            assertEquals(HsaStatus.EXCEPTION, e.status());
        }
    }

    @Test
    void shouldThrowTheFailureStatusFromARelaxedWait() {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(1);
            s.fail(failure(HsaStatus.OUT_OF_RESOURCES));
            HsaException e = assertThrows(HsaException.class,
                    () -> s.waitRelaxed(SignalCondition.EQ, 0, 0, WaitState.BLOCKED));
            assertEquals(HsaStatus.OUT_OF_RESOURCES, e.status());
        }
    }

    @ParameterizedTest
    @EnumSource(WaitState.class)
    void shouldWakeAParkedWaiterWithTheFailureStatus(WaitState state) throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(1);
            WaiterThread<Long> waiter = WaiterThread.start("waiter",
                    () -> s.waitScacquire(SignalCondition.EQ, 0, FOREVER, state)).awaitParkedOn(s);
            s.fail(failure(HsaStatus.INVALID_PACKET_FORMAT));
            assertEquals(HsaStatus.INVALID_PACKET_FORMAT, waiter.thrown(HsaException.class).status());
        }
    }

    @Test
    void shouldKeepTheFailureAsTheCause() {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(1);
            HsaException cause = failure(HsaStatus.EXCEPTION);
            s.fail(cause);
            assertSame(cause, s.failure());
            HsaException e = assertThrows(HsaException.class,
                    () -> s.waitScacquire(SignalCondition.EQ, 0, 0, WaitState.ACTIVE));
            assertSame(cause, e.getCause());
        }
    }

    static Stream<Arguments> rearmingStores() {
        return Stream.of(
                Arguments.of("storeScrelease", (Consumer<Signal>) s -> s.storeScrelease(0)),
                Arguments.of("storeRelaxed", (Consumer<Signal>) s -> s.storeRelaxed(0)),
                Arguments.of("silentStoreScrelease", (Consumer<Signal>) s -> s.silentStoreScrelease(0)),
                Arguments.of("silentStoreRelaxed", (Consumer<Signal>) s -> s.silentStoreRelaxed(0)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rearmingStores")
    void shouldReArmAFailedSignalOnAStore(String name, Consumer<Signal> store) {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(1);
            s.fail(failure(HsaStatus.EXCEPTION));
            store.accept(s);
            assertNull(s.failure());
            assertEquals(0, s.waitScacquire(SignalCondition.EQ, 0, FOREVER, WaitState.BLOCKED));
        }
    }

    @Test
    void shouldWaitNormallyAgainAfterAReArmingStore() throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(1);
            s.fail(failure(HsaStatus.EXCEPTION));
            s.storeScrelease(2);
            WaiterThread<Long> waiter = WaiterThread.start("waiter",
                    () -> s.waitScacquire(SignalCondition.LT, 1, FOREVER, WaitState.BLOCKED)).awaitParkedOn(s);
            s.subtractScrelease(2);
            assertEquals(0, waiter.result());
        }
    }

    @Test
    void shouldKeepTheFailureThroughReadModifyWrites() {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(1);
            s.fail(failure(HsaStatus.EXCEPTION));
            s.addScacqScrel(1);
            HsaException e = assertThrows(HsaException.class,
                    () -> s.waitScacquire(SignalCondition.EQ, 0, 0, WaitState.ACTIVE));
            assertEquals(HsaStatus.EXCEPTION, e.status());
        }
    }

    @ParameterizedTest
    @EnumSource(WaitState.class)
    void shouldWakeAWaiterWithNotInitializedWhenTheRuntimeCloses(WaitState state) throws Exception {
        HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        Signal s = rt.createSignal(1);
        WaiterThread<Long> waiter = WaiterThread.start("waiter",
                () -> s.waitScacquire(SignalCondition.EQ, 0, FOREVER, state)).awaitParkedOn(s);
        rt.close();
        assertEquals(HsaStatus.NOT_INITIALIZED, waiter.thrown(HsaException.class).status());
    }

    @Test
    void shouldWakeAGroupWaiterWithNotInitializedWhenTheRuntimeCloses() throws Exception {
        HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        SignalGroup group = rt.createSignalGroup(java.util.List.of(rt.createSignal(1), rt.createSignal(1)));
        WaiterThread<SignalGroup.Satisfied> waiter = WaiterThread.start("waiter",
                () -> group.waitAnyScacquire(new SignalCondition[] {SignalCondition.EQ, SignalCondition.EQ},
                        new long[] {0, 0}, WaitState.BLOCKED, FOREVER)).awaitParkedOn(group);
        rt.close();
        assertEquals(HsaStatus.NOT_INITIALIZED, waiter.thrown(HsaException.class).status());
    }

    @Test
    void shouldRejectAWaitStartedAfterTheRuntimeClosed() {
        HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        Signal s = rt.createSignal(1);
        rt.close();
        HsaException e = assertThrows(HsaException.class,
                () -> s.waitScacquire(SignalCondition.EQ, 0, FOREVER, WaitState.BLOCKED));
        assertEquals(HsaStatus.NOT_INITIALIZED, e.status());
    }

    static Stream<Arguments> operationsAfterClose() {
        return Stream.of(
                Arguments.of("loadScacquire", (Consumer<Signal>) Signal::loadScacquire),
                Arguments.of("loadRelaxed", (Consumer<Signal>) Signal::loadRelaxed),
                Arguments.of("storeScrelease", (Consumer<Signal>) s -> s.storeScrelease(0)),
                Arguments.of("silentStoreRelaxed", (Consumer<Signal>) s -> s.silentStoreRelaxed(0)),
                Arguments.of("exchangeRelaxed", (Consumer<Signal>) s -> s.exchangeRelaxed(0)),
                Arguments.of("casScacqScrel", (Consumer<Signal>) s -> s.casScacqScrel(1, 0)),
                Arguments.of("subtractScrelease", (Consumer<Signal>) s -> s.subtractScrelease(1)),
                Arguments.of("xorScacquire", (Consumer<Signal>) s -> s.xorScacquire(1)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("operationsAfterClose")
    void shouldReportNotInitializedForOperationsAfterTheRuntimeClosed(String name, Consumer<Signal> operation) {
        HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        Signal s = rt.createSignal(1);
        rt.close();
        HsaException e = assertThrows(HsaException.class, () -> operation.accept(s));
        assertEquals(HsaStatus.NOT_INITIALIZED, e.status());
    }
}
