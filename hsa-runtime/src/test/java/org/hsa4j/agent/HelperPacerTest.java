package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** When a unit running a many-part work wakes helpers: only once what is left looks long enough. */
class HelperPacerTest {
    private static final long THRESHOLD = 50_000;

    private long now = 1_000;
    private final List<Long> wakes = new ArrayList<>();
    private final HelperPacer pacer = new HelperPacer(THRESHOLD, () -> now, wakes::add);

    /** A work with a settable count of unclaimed parts; never run here. */
    private static final class Left extends Work {
        long unclaimed;

        Left(long unclaimed) {
            super(null, 0, null);
            this.unclaimed = unclaimed;
        }

        @Override
        boolean claimable() {
            return unclaimed > 0;
        }

        @Override
        long unclaimedParts() {
            return unclaimed;
        }

        @Override
        long claim() {
            return unclaimed > 0 ? --unclaimed : -1;
        }

        @Override
        boolean isLastPart(long part) {
            return unclaimed == 0;
        }

        @Override
        void run(long part, ComputeUnit unit) {
            throw new AssertionError("not run by the pacer");
        }
    }

    /** Runs one shared part taking {@code nanos}, leaving {@code left} parts unclaimed behind it. */
    private void part(long nanos, Left work, long left) {
        pacer.beforeSharedPart();
        now += nanos;
        work.unclaimed = left;
        pacer.afterSharedPart(work, 0);
    }

    @Test
    void shouldNotWakeHelpersWhenTheRestIsShorterThanTheThreshold() {
        Left work = new Left(0);
        for (long left = 127; left > 0; left--) {
            part(150, work, left);
        }
        assertEquals(List.of(), wakes, "127 parts of 150 ns are 19 us, under the 50 us threshold");
    }

    @Test
    void shouldWakeHelpersAfterTheFirstPartWhenTheRestIsLong() {
        Left work = new Left(0);
        part(2_000, work, 127);
        assertEquals(List.of(5L), wakes, "127 parts of 2 us left: 254 us, a helper per 50 us");
    }

    @Test
    void shouldWakeHelpersForTwoHeavyPartsLeft() {
        Left work = new Left(0);
        part(1_000_000, work, 2);
        assertEquals(List.of(2L), wakes);
    }

    @Test
    void shouldEstimateOnlyAfterPowersOfTwoParts() {
        Left work = new Left(0);
        part(40, work, 1_000);
        part(60, work, 999);
        assertEquals(List.of(), wakes, "40 ns (the faster interval) times 999 parts is under 50 us");
        part(100, work, 998);
        assertEquals(List.of(), wakes, "60 ns times 998 would reach it, but the clock is not read after part 3");
        part(60, work, 997);
        assertEquals(List.of(1L), wakes, "after part 4 the faster interval's 60 ns times 997 parts reaches 50 us: one helper");
    }

    @Test
    void shouldCatchPartsThatGrowSlowerThanTheFirstOnes() {
        Left work = new Left(0);
        part(10, work, 100);
        part(10, work, 99);
        part(10_000, work, 98);
        part(10_000, work, 97);
        assertEquals(List.of(), wakes, "parts 3 and 4 are slow, part 2 was not: one slow interval may be a pause");
        for (long left = 96; left >= 93; left--) {
            part(10_000, work, left);
        }
        assertEquals(List.of(18L), wakes, "two slow intervals in a row: 10 us times 93 left is 930 us, a helper per 50 us");
    }

    @Test
    void shouldNotWakeHelpersForAStreamOfTinyPartsWhenOneIntervalWasPaused() {
        Left work = new Left(0);
        for (long left = 255; left > 0; left--) {
            part(left == 155 ? 4_000_000 : 100, work, left);
        }
        assertEquals(List.of(), wakes, "one 4 ms pause among 100 ns parts is the unit descheduled, not long work");
    }

    @Test
    void shouldWakeHelpersWhenPausesStretchTwoIntervalsInARow() {
        Left work = new Left(0);
        part(100, work, 10);
        now += 10_000_000;
        part(100, work, 10);
        assertEquals(List.of(), wakes, "one stretched interval is not enough");
        part(100, work, 10);
        now += 10_000_000;
        part(100, work, 10);
        assertEquals(List.of(10L), wakes, "the next interval is stretched too: the run is slow");
    }

    @Test
    void shouldNotWakeWhenNothingIsLeftUnclaimed() {
        Left work = new Left(0);
        part(10_000_000, work, 0);
        assertEquals(List.of(), wakes);
    }

    @Test
    void shouldStartANewTimedRunAfterEndRun() {
        Left work = new Left(0);
        part(100, work, 10);
        pacer.endRun();
        now += 10_000_000;
        part(100, work, 10);
        assertEquals(List.of(), wakes, "the idle time between runs is not counted as part time");
    }

    @Test
    void shouldRejectANegativeThreshold() {
        assertThrows(IllegalArgumentException.class, () -> new HelperPacer(-1, () -> 0, parts -> { }));
    }

    @Test
    void shouldAskForOneHelperPerThresholdOfWorkLeftNotOnePerPart() {
        Left work = new Left(0);
        part(1_000, work, 255);
        assertEquals(List.of(5L), wakes, "255 parts of 1 us left are 255 us: five helpers' worth, not 255");
    }

    @Test
    void shouldCountWorksQueuedBehindAsPartsLeft() {
        Left work = new Left(0);
        part(1_000_000, work, 0);
        pacer.beforeSharedPart();
        assertEquals(List.of(), wakes, "nothing left: nobody to wake");
        pacer.endRun();
        pacer.beforeSharedPart();
        now += 1_000_000;
        pacer.afterSharedPart(work, 3);
        assertEquals(List.of(3L), wakes, "three one-part works queued behind a 1 ms part");
    }
}
