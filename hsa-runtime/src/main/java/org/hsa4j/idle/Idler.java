package org.hsa4j.idle;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * One wait's progress through the phases of its {@link IdleStrategy}: made per wait, used by the
 * waiting thread only. The clock is read once per step in the yield and park phases and once per
 * {@link #CLOCK_STEPS} steps while spinning, so a pure spin is a pause and a load.
 */
public final class Idler {
    /** Spin steps between two clock reads. */
    static final int CLOCK_STEPS = 32;

    private final IdleStrategy strategy;
    private final LongSupplier clock;
    private final long busyNanos;
    private final long start;
    private long elapsed;
    private int steps;
    private int parks;
    private IdleStrategy.Phase phase;
    /** What a parked thread shows as its park blocker (diagnostics, thread dumps, tests). */
    private Object blocker = this;

    Idler(IdleStrategy strategy, long busyNanos, LongSupplier clock) {
        this.strategy = strategy;
        this.busyNanos = busyNanos;
        this.clock = clock;
        this.start = clock.getAsLong();
        this.phase = strategy.phase(0, busyNanos, start);
    }

    /**
     * The thread waited for runs on this core ({@link CoreSharing}): the next step parks where this
     * wait may park, else yields. A wait registered for an unpark registers before it (as always, when
     * {@link #parksNext()}).
     */
    public void yieldCoreAtOnce() {
        phase = strategy.mayPark() ? IdleStrategy.Phase.PARK : IdleStrategy.Phase.YIELD;
    }

    /** Parks show {@code blocker} as their park blocker (the object waited on); returns this idler. */
    public Idler blocker(Object blocker) {
        this.blocker = blocker;
        return this;
    }

    /** The phase the next {@link #idle} takes: a site woken by unpark registers itself before the first PARK. */
    public IdleStrategy.Phase nextPhase() {
        return phase;
    }

    /** True when the next {@link #idle} parks. */
    public boolean parksNext() {
        return phase == IdleStrategy.Phase.PARK;
    }

    /**
     * Idles one step in the current phase: a spin pause, a yield, or a park of at most
     * {@code maxParkNanos} (the wait's deadline or re-check bound; at least 1 ns; a park whose
     * length is {@link IdleStrategy#UNTIMED} waits for an unpark). Returns the
     * phase the step took. A park returns early on unpark or interrupt; the caller looks again.
     */
    public IdleStrategy.Phase idle(long maxParkNanos) {
        IdleStrategy.Phase took = phase;
        switch (took) {
            case SPIN -> {
                Thread.onSpinWait();
                if ((++steps & (CLOCK_STEPS - 1)) == 0) {
                    advance();
                }
            }
            case YIELD -> {
                long before = start + elapsed; // the clock read that chose this step
                Thread.yield();
                steps++;
                long now = clock.getAsLong();
                strategy.yielded(before, now);
                advanceTo(now);
            }
            case PARK -> {
                long nanos = Math.min(maxParkNanos, strategy.parkNanos(parks));
                if (nanos == IdleStrategy.UNTIMED) {
                    LockSupport.park(blocker); // no timer: only an unpark (or an interrupt) ends it
                } else {
                    LockSupport.parkNanos(blocker, Math.max(1, nanos));
                }
                parks++;
                steps++;
            }
        }
        return took;
    }

    /** Idles one step with no cap on the park but the strategy's own. */
    public IdleStrategy.Phase idle() {
        return idle(Long.MAX_VALUE);
    }

    private void advance() {
        advanceTo(clock.getAsLong());
    }

    private void advanceTo(long now) {
        elapsed = now - start;
        phase = strategy.phase(elapsed, busyNanos, now);
    }

    /** Parks taken so far. */
    public int parks() {
        return parks;
    }

    /** Steps idled so far. */
    public int steps() {
        return steps;
    }

    /** Nanoseconds from the start of the wait to the last clock read. */
    public long elapsedNanos() {
        return elapsed;
    }
}
