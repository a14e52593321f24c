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
 * Each unit owns one pacer. Before a part that leaves parts unclaimed behind it (of its own work,
 * or launched works queued behind it in the ring, so a stream of one-workgroup dispatches is one
 * run), the pacer starts timing (once per run of such parts). After the 1st, 2nd, 4th, 8th, ... part
 * of the run it reads the clock, takes the mean part time of the interval since its last reading,
 * and estimates what is left as that mean times the unclaimed parts; when that reaches the
 * threshold it asks for one helper per threshold's worth of what is left, at most one per part (the
 * agent caps it at its other units): a helper costs about a threshold to wake, so a run estimated
 * at a few thresholds wakes a few, not a unit per part. Doubling the spacing keeps the clock reads
 * to a logarithm of the parts.
 *
 * <h2>Why the faster of two intervals</h2>
 * From the second reading on, the estimate takes the faster of the last two intervals' means. A
 * unit that was descheduled (another process, a JIT thread, the host thread on a machine with as
 * many cores as runnable threads) sees one interval stretched by milliseconds: a stream of
 * 100 ns dispatches estimated from it looked like milliseconds of work and woke a helper that
 * only took a core from the running unit and the host, raced it for the ring's head, and
 * stretched the next interval in turn (measured on 2 cores under load: ~500 such wakes a second
 * with 16 units). A pause falls into one interval; slow parts make both slow, so a dispatch whose
 * parts grow slower than the first ones is still caught within four times its elapsed time. The
 * first reading has one interval of one part, which a pause rarely hits, and keeps a long
 * dispatch's helpers one part early.
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
    /** Parts of the run finished so far. */
    private long parts;
    /** Clock reading and parts finished at the last estimate. */
    private long lastClock;
    private long lastParts;
    /** Mean part time of the interval before the last estimate, or Long.MAX_VALUE before the first. */
    private long lastMean;

    /**
     * A pacer that calls {@code wake} with the helpers to wake once the unclaimed parts' estimated
     * time reaches {@code thresholdNanos}, reading time from {@code clock}.
     */
    HelperPacer(long thresholdNanos, LongSupplier clock, LongConsumer wake) {
        if (thresholdNanos < 0) {
            throw new IllegalArgumentException("thresholdNanos must be >= 0, was " + thresholdNanos);
        }
        this.thresholdNanos = thresholdNanos;
        this.clock = clock;
        this.wake = wake;
    }

    /** Before a part that leaves parts unclaimed behind it: starts timing unless a run is on. */
    void beforeSharedPart() {
        if (!timing) {
            timing = true;
            lastClock = clock.getAsLong();
            parts = 0;
            lastParts = 0;
            lastMean = Long.MAX_VALUE;
        }
    }

    /**
     * After such a part of {@code work}, with {@code worksBehind} launched works queued behind it
     * (each counted as one part): at 1, 2, 4, ... parts, wakes helpers if what is left looks long
     * enough at the faster of the last two intervals' mean part times.
     */
    void afterSharedPart(Work work, long worksBehind) {
        long n = ++parts;
        if ((n & (n - 1)) != 0) {
            return;
        }
        long left = work.unclaimedParts() + Math.max(0, worksBehind);
        if (left <= 0) {
            return;
        }
        long now = clock.getAsLong();
        long mean = (now - lastClock) / (n - lastParts);
        long faster = Math.min(mean, lastMean);
        lastClock = now;
        lastParts = n;
        lastMean = mean;
        long estimate = saturatingProduct(faster, left);
        if (estimate >= thresholdNanos) {
            wake.accept(Math.min(left, Math.max(1, estimate / Math.max(1, thresholdNanos))));
        }
    }

    /** {@code a * b} for non-negative factors, or Long.MAX_VALUE when it overflows. */
    private static long saturatingProduct(long a, long b) {
        long low = a * b;
        return Math.multiplyHigh(a, b) != 0 || low < 0 ? Long.MAX_VALUE : low;
    }

    /** Ends the run: the unit ran a part with nothing left behind it, or found no work. */
    void endRun() {
        timing = false;
    }
}
