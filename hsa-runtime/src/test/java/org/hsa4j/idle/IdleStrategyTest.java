package org.hsa4j.idle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.idle.IdleStrategy.Phase;
import org.hsa4j.queue.Await;
import org.junit.jupiter.api.Test;

class IdleStrategyTest {
    @Test
    void aWaitSpinsThenYieldsThenParks() {
        IdleStrategy s = IdleStrategy.forMachine(16, 2, true);
        assertEquals(Phase.SPIN, s.phase(0));
        assertEquals(Phase.SPIN, s.phase(s.spinNanos() - 1));
        assertEquals(Phase.YIELD, s.phase(s.spinNanos()));
        assertEquals(Phase.YIELD, s.phase(s.busyNanos() - 1));
        assertEquals(Phase.PARK, s.phase(s.busyNanos()));
    }

    @Test
    void spinnersOutnumberingCoresShortenTheSpinAndTheBusyPhase() {
        IdleStrategy roomy = IdleStrategy.forMachine(16, 2, true);
        IdleStrategy scarce = IdleStrategy.forMachine(2, 3, true);
        assertTrue(roomy.roomy());
        assertFalse(scarce.roomy());
        assertTrue(scarce.spinNanos() < roomy.spinNanos());
        assertTrue(scarce.busyNanos() < roomy.busyNanos());
    }

    @Test
    void asManySpinnersAsCoresCountAsScarce() {
        assertFalse(IdleStrategy.forMachine(4, 4, true).roomy());
    }

    @Test
    void busyWaitingNeverParks() {
        IdleStrategy s = IdleStrategy.forMachine(2, 1, false);
        assertEquals(Phase.YIELD, s.phase(s.busyNanos()));
        assertEquals(Phase.YIELD, s.phase(Long.MAX_VALUE / 2));
    }

    @Test
    void backgroundIdlingParksEvenWhenBusyWaiting() {
        IdleStrategy s = IdleStrategy.forMachine(2, 1, false).background();
        assertEquals(Phase.PARK, s.phase(s.busyNanos()));
    }

    @Test
    void parksDoubleFromTheMinimumUpToTheMaximum() {
        IdleStrategy s = IdleStrategy.defaults().withParks(1_000, 5_000);
        assertEquals(1_000, s.parkNanos(0));
        assertEquals(2_000, s.parkNanos(1));
        assertEquals(4_000, s.parkNanos(2));
        assertEquals(5_000, s.parkNanos(3));
        assertEquals(5_000, s.parkNanos(Integer.MAX_VALUE));
    }

    @Test
    void parksDoublingPastTheRangeOfALongStayAtTheMaximum() {
        IdleStrategy s = IdleStrategy.defaults().withParks(Long.MAX_VALUE / 4, IdleStrategy.UNTIMED);
        assertEquals(Long.MAX_VALUE / 4, s.parkNanos(0));
        assertEquals(IdleStrategy.UNTIMED, s.parkNanos(3));
        assertEquals(IdleStrategy.UNTIMED, s.parkNanos(Integer.MAX_VALUE));
    }

    @Test
    void anUntimedParkWaitsForAnUnparkWithoutATimer() throws InterruptedException {
        Idler idler = IdleStrategy.defaults().background().withBusyNanos(0)
                .withParks(IdleStrategy.UNTIMED, IdleStrategy.UNTIMED).idler();
        assertTrue(idler.parksNext());
        Thread t = Thread.ofPlatform().start(idler::idle);
        Await.until(() -> t.getState() == Thread.State.WAITING, "the idler to park without a timer (WAITING)");
        LockSupport.unpark(t);
        t.join(Await.DEFAULT);
        assertFalse(t.isAlive(), "the unpark ended the park");
        assertEquals(1, idler.parks());
    }

    @Test
    void aShorterBusyBudgetShortensTheSpinToo() {
        IdleStrategy s = IdleStrategy.forMachine(16, 1, true).withBusyNanos(500);
        assertEquals(500, s.busyNanos());
        assertEquals(500, s.spinNanos());
        assertEquals(Phase.PARK, s.phase(500));
    }

    @Test
    void anIdlerMovesThroughThePhasesByItsClock() {
        IdleStrategy s = IdleStrategy.forMachine(16, 1, true).withParks(1, 1);
        AtomicLong now = new AtomicLong(1_000);
        Idler idler = s.idler(now::get);
        assertEquals(Phase.SPIN, idler.idle());
        now.addAndGet(s.spinNanos());
        for (int i = 0; i < Idler.CLOCK_STEPS; i++) {
            idler.idle();
        }
        assertEquals(Phase.YIELD, idler.nextPhase());
        now.addAndGet(s.busyNanos());
        idler.idle();
        assertTrue(idler.parksNext());
        assertEquals(Phase.PARK, idler.idle(1));
        assertEquals(1, idler.parks());
    }

    /** An idler of {@code s} on {@code now}, taken past its spin phase into its yield phase. */
    private static Idler yielding(IdleStrategy s, AtomicLong now) {
        Idler idler = s.idler(now::get);
        now.addAndGet(s.spinNanos());
        for (int i = 0; i < Idler.CLOCK_STEPS; i++) {
            idler.idle();
        }
        assertEquals(Phase.YIELD, idler.nextPhase());
        return idler;
    }

    /** {@code n} yield steps of {@code idler}, each taking {@code nanos} on {@code now}. */
    private static void yields(Idler idler, AtomicLong now, int n, long nanos) {
        for (int i = 0; i < n; i++) {
            now.addAndGet(nanos);
            assertEquals(Phase.YIELD, idler.idle());
        }
    }

    @Test
    void aWaitParkingUnderLoadParksAtOnceAfterAStreakOfLongYields() {
        IdleStrategy base = IdleStrategy.forMachine(16, 1, true).withBusyNanos(Long.MAX_VALUE / 4);
        AtomicLong now = new AtomicLong(1_000);
        Idler plain = yielding(base, now);
        yields(plain, now, Oversubscription.STREAK, Oversubscription.LONG_YIELD_NANOS);
        assertEquals(Phase.YIELD, plain.nextPhase(), "a wait not made parkingUnderLoad keeps yielding");
        assertEquals(Phase.SPIN, base.idler(now::get).nextPhase(), "a wait not made parkingUnderLoad still spins first");
        Idler blocked = base.parkingUnderLoad().idler(now::get);
        assertEquals(Phase.PARK, blocked.nextPhase(), "the family saw the streak: a blocked wait parks at once, without a spin");
    }

    @Test
    void shortYieldsOrTooFewLongOnesKeepTheYieldPhase() {
        IdleStrategy s = IdleStrategy.forMachine(16, 1, true).withBusyNanos(Long.MAX_VALUE / 4).parkingUnderLoad();
        AtomicLong now = new AtomicLong(1_000);
        Idler idler = yielding(s, now);
        yields(idler, now, 50, Oversubscription.LONG_YIELD_NANOS / 2);
        yields(idler, now, Oversubscription.STREAK - 1, Oversubscription.LONG_YIELD_NANOS);
        assertEquals(Phase.YIELD, idler.nextPhase());
    }

    @Test
    void theYieldPhaseComesBackOnceTheWindowAfterTheStreakPassed() {
        IdleStrategy s = IdleStrategy.forMachine(16, 1, true).withBusyNanos(Long.MAX_VALUE / 4).parkingUnderLoad();
        AtomicLong now = new AtomicLong(1_000);
        yields(yielding(s, now), now, Oversubscription.STREAK, Oversubscription.LONG_YIELD_NANOS);
        now.addAndGet(Oversubscription.WINDOW_NANOS);
        Idler later = yielding(s, now);
        later.idle();
        assertEquals(Phase.YIELD, later.nextPhase());
    }

    @Test
    void busyWaitingYieldsEvenUnderLoad() {
        IdleStrategy s = IdleStrategy.forMachine(16, 1, false).withBusyNanos(1_000).parkingUnderLoad();
        AtomicLong now = new AtomicLong(1_000);
        yields(yielding(s, now), now, Oversubscription.STREAK, Oversubscription.LONG_YIELD_NANOS);
        Idler next = yielding(s, now);
        now.addAndGet(1);
        next.idle();
        assertEquals(Phase.YIELD, next.nextPhase());
    }

    @Test
    void theSwitchIsOnUnlessTheVariableIsZero() {
        assertTrue(IdleStrategy.interruptFromEnvironment(Map.of()));
        assertTrue(IdleStrategy.interruptFromEnvironment(Map.of("HSA_ENABLE_INTERRUPT", "1")));
        assertFalse(IdleStrategy.interruptFromEnvironment(Map.of("HSA_ENABLE_INTERRUPT", "0")));
    }

    @Test
    void theSwitchRejectsOtherValues() {
        assertThrows(IllegalArgumentException.class,
                () -> IdleStrategy.interruptFromEnvironment(Map.of("HSA_ENABLE_INTERRUPT", "yes")));
    }

    @Test
    void badBoundsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> IdleStrategy.forMachine(0, 1, true));
        assertThrows(IllegalArgumentException.class, () -> IdleStrategy.defaults().withParks(10, 5));
    }
}
