package org.hsa4j.agent;

import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Decides when a compute unit running a many-workgroup dispatch wakes idle units to help.
 *
 * <h2>Why not at once</h2>
 * Waking a parked unit costs the waker an unpark system call and the agent a thread that takes a
 * core: on a machine with as many cores as compute units, the host thread waiting for the
 * dispatch is the third runnable thread. A dispatch whose work is a few microseconds finishes
 * sooner on the unit that launched it alone (measured: 1K floats through parallelForEach took
 * 21 us with a woken second unit and 1.2 us with one unit). So helpers are woken only for work
 * that is long enough to repay the wake-up, and only the running unit can tell how long that is.
 *
 * <h2>How it works</h2>
 * Each unit owns one pacer. Before a part that leaves parts of its work unclaimed, the pacer starts
 * timing (once per run of such parts). After the 1st, 2nd, 4th, 8th, ... part of the run it
 * estimates what is left as the mean part time so far times the unclaimed parts, and when that
 * reaches the threshold it wakes up to that many idle units (the agent caps it at its other units).
 * Doubling the spacing keeps the clock reads to a logarithm of the parts, and a dispatch whose
 * parts grow slower than the first ones is still caught within twice its elapsed time. A part
 * with nothing left behind it, or a look that found no work, ends the run.
 *
 * <p>Dispatches with no more workgroups than the agent has compute units do not wait for the
 * pacer: their groups may wait on each other (a persistent kernel's workgroups often do), so the
 * processor wakes a unit per group at launch. Only the owning unit's thread calls a pacer.
 */
final class HelperPacer {
    private final long thresholdNanos;
    private final LongSupplier clock;
    private final LongConsumer wake;
    /** True while a run of parts that left other parts unclaimed is being timed. */
    private boolean timing;
    /** Clock reading when the run began. */
    private long since;
    /** Parts of the run finished so far. */
    private long parts;

    /**
     * A pacer that calls {@code wake} with the unclaimed parts once their estimated time reaches
     * {@code thresholdNanos}, reading time from {@code clock}.
     */
    HelperPacer(long thresholdNanos, LongSupplier clock, LongConsumer wake) {
        if (thresholdNanos < 0) {
            throw new IllegalArgumentException("thresholdNanos must be >= 0, was " + thresholdNanos);
        }
        this.thresholdNanos = thresholdNanos;
        this.clock = clock;
        this.wake = wake;
    }

    /** Before a part that leaves parts of its work unclaimed: starts timing unless a run is on. */
    void beforeSharedPart() {
        if (!timing) {
            timing = true;
            since = clock.getAsLong();
            parts = 0;
        }
    }

    /** After such a part of {@code work}: at 1, 2, 4, ... parts, wakes helpers if what is left looks long enough. */
    void afterSharedPart(Work work) {
        long n = ++parts;
        if ((n & (n - 1)) != 0) {
            return;
        }
        long left = work.unclaimedParts();
        if (left > 0 && (clock.getAsLong() - since) / n * left >= thresholdNanos) {
            wake.accept(left);
        }
    }

    /** Ends the run: the unit ran a part with nothing left behind it, or found no work. */
    void endRun() {
        timing = false;
    }
}
