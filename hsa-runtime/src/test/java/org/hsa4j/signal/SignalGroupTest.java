package org.hsa4j.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code hsa_signal_group_*}: waiting for any member, timeouts, bad arguments and failed members. */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SignalGroupTest {
    private static final long FOREVER = Long.MAX_VALUE;
    private static final SignalCondition[] EQ_EQ_EQ = {SignalCondition.EQ, SignalCondition.EQ, SignalCondition.EQ};
    private static final long[] ZEROS = {0, 0, 0};

    private HsaRuntime rt;

    @BeforeEach
    void startRuntime() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterEach
    void closeRuntime() {
        rt.close();
    }

    @ParameterizedTest
    @EnumSource(WaitState.class)
    void shouldReturnTheIndexAndValueOfTheMemberAnotherThreadSatisfies(WaitState state) throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal a = signals.create(1);
            Signal b = signals.create(1);
            Signal c = signals.create(1);
            SignalGroup group = new SignalGroup(List.of(a, b, c));
            WaiterThread<SignalGroup.Satisfied> waiter = WaiterThread.start("waiter",
                    () -> group.waitAnyScacquire(new SignalCondition[] {SignalCondition.EQ, SignalCondition.LT,
                            SignalCondition.GTE}, new long[] {0, -5, 10}, state, FOREVER)).awaitParkedOn(group);
            b.storeScrelease(-6);
            SignalGroup.Satisfied got = waiter.result();
            assertEquals(1, got.index());
            assertSame(b, got.signal());
            assertEquals(-6, got.value());
        }
    }

    @Test
    void shouldReturnAMemberThatAlreadyHoldsAtOnce() {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            SignalGroup group = new SignalGroup(List.of(signals.create(1), signals.create(0), signals.create(1)));
            SignalGroup.Satisfied got = group.waitAnyScacquire(EQ_EQ_EQ, ZEROS, WaitState.BLOCKED, FOREVER);
            assertEquals(1, got.index());
            assertEquals(0, got.value());
        }
    }

    @Test
    void shouldWaitWithRelaxedLoadsToo() throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal a = signals.create(1);
            Signal b = signals.create(1);
            SignalGroup group = new SignalGroup(List.of(a, b));
            WaiterThread<SignalGroup.Satisfied> waiter = WaiterThread.start("waiter",
                    () -> group.waitAnyRelaxed(new SignalCondition[] {SignalCondition.NE, SignalCondition.NE},
                            new long[] {1, 1}, WaitState.BLOCKED, FOREVER)).awaitParkedOn(group);
            a.subtractRelaxed(1);
            SignalGroup.Satisfied got = waiter.result();
            assertEquals(0, got.index());
            assertEquals(0, got.value());
        }
    }

    @ParameterizedTest
    @EnumSource(WaitState.class)
    void shouldReturnNullAfterTheTimeout(WaitState state) {
        SignalGroup group = rt.createSignalGroup(List.of(rt.createSignal(1), rt.createSignal(2), rt.createSignal(3)));
        long timeout = TimeUnit.MILLISECONDS.toNanos(20);
        long start = System.nanoTime();
        SignalGroup.Satisfied got = group.waitAnyScacquire(EQ_EQ_EQ, ZEROS, state, timeout);
        long elapsed = System.nanoTime() - start;
        assertNull(got);
        assertTrue(elapsed >= timeout - TimeUnit.MILLISECONDS.toNanos(1), "returned after " + elapsed + " ns");
    }

    @Test
    void shouldReturnNullAtOnceWithAZeroTimeout() {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            SignalGroup group = new SignalGroup(List.of(signals.create(1), signals.create(1), signals.create(1)));
            assertNull(group.waitAnyScacquire(EQ_EQ_EQ, ZEROS, WaitState.BLOCKED, 0));
        }
    }

    @Test
    void shouldReturnNullWithTheInterruptStatusSetWhenInterrupted() throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            SignalGroup group = new SignalGroup(List.of(signals.create(1), signals.create(1), signals.create(1)));
            WaiterThread<SignalGroup.Satisfied> waiter = WaiterThread.start("waiter",
                    () -> group.waitAnyScacquire(EQ_EQ_EQ, ZEROS, WaitState.BLOCKED, FOREVER)).awaitParkedOn(group);
            waiter.thread().interrupt();
            assertNull(waiter.result());
            assertTrue(waiter.interruptedAtEnd());
        }
    }

    @Test
    void shouldSeeAMemberChangedBehindTheApiThroughTheRecheck() throws Exception {
        Signal a = rt.createSignal(1);
        Signal b = rt.createSignal(1);
        SignalGroup group = rt.createSignalGroup(List.of(a, b));
        WaiterThread<SignalGroup.Satisfied> waiter = WaiterThread.start("waiter",
                () -> group.waitAnyScacquire(new SignalCondition[] {SignalCondition.EQ, SignalCondition.EQ},
                        new long[] {0, 0}, WaitState.BLOCKED, FOREVER)).awaitParkedOn(group);
        b.silentStoreScrelease(0);
        assertEquals(1, waiter.result().index());
    }

    @Test
    void shouldUnregisterFromEveryMemberWhenTheWaitEnds() throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal a = signals.create(1);
            Signal b = signals.create(1);
            SignalGroup group = new SignalGroup(List.of(a, b));
            WaiterThread<SignalGroup.Satisfied> waiter = WaiterThread.start("waiter",
                    () -> group.waitAnyScacquire(new SignalCondition[] {SignalCondition.EQ, SignalCondition.EQ},
                            new long[] {0, 0}, WaitState.BLOCKED, FOREVER)).awaitParkedOn(group);
            assertEquals(1, a.waiterCount());
            a.storeScrelease(0);
            assertNotNull(waiter.result());
            assertEquals(0, a.waiterCount());
            assertEquals(0, b.waiterCount());
        }
    }

    @Test
    void shouldRejectFewerConditionsThanMembers() {
        SignalGroup group = rt.createSignalGroup(List.of(rt.createSignal(1), rt.createSignal(1), rt.createSignal(1)));
        HsaException e = assertThrows(HsaException.class, () -> group.waitAnyScacquire(
                new SignalCondition[] {SignalCondition.EQ, SignalCondition.EQ}, ZEROS, WaitState.ACTIVE, 0));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRejectMoreCompareValuesThanMembers() {
        SignalGroup group = rt.createSignalGroup(List.of(rt.createSignal(1), rt.createSignal(1), rt.createSignal(1)));
        HsaException e = assertThrows(HsaException.class, () -> group.waitAnyScacquire(EQ_EQ_EQ,
                new long[] {0, 0, 0, 0}, WaitState.ACTIVE, 0));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRejectMissingArrays() {
        SignalGroup group = rt.createSignalGroup(List.of(rt.createSignal(1), rt.createSignal(1), rt.createSignal(1)));
        HsaException e = assertThrows(HsaException.class, () -> group.waitAnyRelaxed(null, null, WaitState.ACTIVE, 0));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRejectANullCondition() {
        SignalGroup group = rt.createSignalGroup(List.of(rt.createSignal(1), rt.createSignal(1), rt.createSignal(1)));
        HsaException e = assertThrows(HsaException.class, () -> group.waitAnyScacquire(
                new SignalCondition[] {SignalCondition.EQ, null, SignalCondition.EQ}, ZEROS, WaitState.ACTIVE, 0));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRejectANullWaitState() {
        SignalGroup group = rt.createSignalGroup(List.of(rt.createSignal(1), rt.createSignal(1), rt.createSignal(1)));
        HsaException e = assertThrows(HsaException.class, () -> group.waitAnyScacquire(EQ_EQ_EQ, ZEROS, null, 0));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRejectAnEmptyGroup() {
        HsaException e = assertThrows(HsaException.class, () -> rt.createSignalGroup(List.of()));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRejectADestroyedMember() {
        Signal s = rt.createSignal(0);
        s.destroy();
        HsaException e = assertThrows(HsaException.class, () -> rt.createSignalGroup(List.of(rt.createSignal(0), s)));
        assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
    }

    @Test
    void shouldThrowTheStatusOfAFailedMember() {
        Signal a = rt.createSignal(1);
        Signal b = rt.createSignal(1);
        SignalGroup group = rt.createSignalGroup(List.of(a, b));
        b.fail(new HsaException(HsaStatus.EXCEPTION, "kernel threw"));
        HsaException e = assertThrows(HsaException.class, () -> group.waitAnyScacquire(
                new SignalCondition[] {SignalCondition.EQ, SignalCondition.EQ}, new long[] {0, 0}, WaitState.ACTIVE,
                FOREVER));
        assertEquals(HsaStatus.EXCEPTION, e.status());
    }

    @Test
    void shouldWakeAParkedGroupWaiterWhenAMemberFails() throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal a = signals.create(1);
            Signal b = signals.create(1);
            SignalGroup group = new SignalGroup(List.of(a, b));
            WaiterThread<SignalGroup.Satisfied> waiter = WaiterThread.start("waiter",
                    () -> group.waitAnyScacquire(new SignalCondition[] {SignalCondition.EQ, SignalCondition.EQ},
                            new long[] {0, 0}, WaitState.BLOCKED, FOREVER)).awaitParkedOn(group);
            a.fail(new HsaException(HsaStatus.INVALID_PACKET_FORMAT, "bad packet"));
            assertEquals(HsaStatus.INVALID_PACKET_FORMAT, waiter.thrown(HsaException.class).status());
        }
    }

    @Test
    void shouldWakeAParkedGroupWaiterWithInvalidSignalWhenAMemberIsDestroyed() throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal a = signals.create(1);
            Signal b = signals.create(1);
            SignalGroup group = new SignalGroup(List.of(a, b));
            WaiterThread<SignalGroup.Satisfied> waiter = WaiterThread.start("waiter",
                    () -> group.waitAnyScacquire(new SignalCondition[] {SignalCondition.EQ, SignalCondition.EQ},
                            new long[] {0, 0}, WaitState.BLOCKED, FOREVER)).awaitParkedOn(group);
            b.destroy();
            assertEquals(HsaStatus.INVALID_SIGNAL, waiter.thrown(HsaException.class).status());
        }
    }

    @Test
    void shouldRefuseAWaitOnADestroyedGroup() {
        SignalGroup group = rt.createSignalGroup(List.of(rt.createSignal(0), rt.createSignal(0), rt.createSignal(0)));
        group.destroy();
        HsaException e = assertThrows(HsaException.class, () -> group.waitAnyScacquire(EQ_EQ_EQ, ZEROS, WaitState.ACTIVE, 0));
        assertEquals(HsaStatus.INVALID_SIGNAL_GROUP, e.status());
    }

    @Test
    void shouldRefuseASecondDestroy() {
        SignalGroup group = rt.createSignalGroup(List.of(rt.createSignal(0)));
        group.destroy();
        assertEquals(HsaStatus.INVALID_SIGNAL_GROUP, assertThrows(HsaException.class, group::destroy).status());
    }

    @Test
    void shouldLeaveTheMembersAliveWhenDestroyed() {
        Signal member = rt.createSignal(5);
        rt.createSignalGroup(List.of(member)).destroy();
        assertEquals(5, member.loadScacquire());
    }
}
