package org.hsa4j.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * No lost wake-up: two threads hand a token back and forth through two signals with BLOCKED
 * waits, so nearly every wait spins out and parks. The signals live in a manager whose waiters
 * never re-check on their own, so one lost wake-up hangs the handoff and the class timeout fails
 * the test; with a runtime's re-check it would only cost a millisecond and go unnoticed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SignalWakeupStressTest {
    private static final int HANDOFFS = 20_000;
    private static final long FOREVER = Long.MAX_VALUE;

    @Test
    void shouldLoseNoWakeUpInScreleaseHandoffs() throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal ping = signals.create(-1);
            Signal pong = signals.create(-1);
            WaiterThread<Long> echo = WaiterThread.start("echo", () -> {
                for (int i = 0; i < HANDOFFS; i++) {
                    assertEquals(i, ping.waitScacquire(SignalCondition.EQ, i, FOREVER, WaitState.BLOCKED));
                    pong.storeScrelease(i);
                }
                return (long) HANDOFFS;
            });
            for (int i = 0; i < HANDOFFS; i++) {
                ping.storeScrelease(i);
                assertEquals(i, pong.waitScacquire(SignalCondition.EQ, i, FOREVER, WaitState.BLOCKED));
            }
            assertEquals(HANDOFFS, echo.result());
        }
    }

    @Test
    void shouldLoseNoWakeUpInRelaxedHandoffs() throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal ping = signals.create(-1);
            Signal pong = signals.create(-1);
            WaiterThread<Long> echo = WaiterThread.start("echo", () -> {
                for (int i = 0; i < HANDOFFS; i++) {
                    ping.waitRelaxed(SignalCondition.EQ, i, FOREVER, WaitState.BLOCKED);
                    pong.storeRelaxed(i);
                }
                return (long) HANDOFFS;
            });
            for (int i = 0; i < HANDOFFS; i++) {
                ping.storeRelaxed(i);
                assertEquals(i, pong.waitRelaxed(SignalCondition.EQ, i, FOREVER, WaitState.BLOCKED));
            }
            assertEquals(HANDOFFS, echo.result());
        }
    }

    @Test
    void shouldLoseNoWakeUpInReadModifyWriteHandoffs() throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal ping = signals.create(0);
            Signal pong = signals.create(HANDOFFS);
            WaiterThread<Long> echo = WaiterThread.start("echo", () -> {
                for (int i = 1; i <= HANDOFFS; i++) {
                    ping.waitScacquire(SignalCondition.GTE, i, FOREVER, WaitState.BLOCKED);
                    pong.subtractScrelease(1);
                }
                return (long) HANDOFFS;
            });
            for (int i = 1; i <= HANDOFFS; i++) {
                ping.addScacqScrel(1);
                assertEquals(HANDOFFS - i, pong.waitScacquire(SignalCondition.LT, HANDOFFS - i + 1, FOREVER,
                        WaitState.BLOCKED));
            }
            assertEquals(HANDOFFS, echo.result());
        }
    }

    @Test
    void shouldLoseNoWakeUpInGroupHandoffs() throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal ping = signals.create(-1);
            Signal idle = signals.create(0);
            Signal pong = signals.create(-1);
            SignalGroup group = new SignalGroup(List.of(idle, ping));
            SignalCondition[] conditions = {SignalCondition.NE, SignalCondition.EQ};
            WaiterThread<Long> echo = WaiterThread.start("echo", () -> {
                for (int i = 0; i < HANDOFFS; i++) {
                    SignalGroup.Satisfied got = group.waitAnyScacquire(conditions, new long[] {0, i}, WaitState.BLOCKED,
                            FOREVER);
                    assertEquals(1, got.index());
                    pong.storeScrelease(i);
                }
                return (long) HANDOFFS;
            });
            for (int i = 0; i < HANDOFFS; i++) {
                ping.storeScrelease(i);
                assertEquals(i, pong.waitScacquire(SignalCondition.EQ, i, FOREVER, WaitState.BLOCKED));
            }
            assertEquals(HANDOFFS, echo.result());
        }
    }
}
