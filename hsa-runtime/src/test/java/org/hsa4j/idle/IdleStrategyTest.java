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
