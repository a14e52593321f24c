package org.hsa4j.testsupport;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.hsa4j.memory.Svm;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * Every wait in a stress test goes through here, so none can hang.
 *
 * <p>A wait gives up after {@link #PATIENCE_NANOS} and returns false; the test then reports the
 * outcome {@link #TIMEOUT}, which every test marks FORBIDDEN. The patience is long because two
 * CPUs are shared by both actors, the runtime's compute unit and whatever else the machine runs.
 * Once one wait in a JVM has timed out the protocol is broken, and waiting ten seconds for each of
 * the thousands of remaining samples would only stretch the run: from then on a wait looks at its
 * condition once ({@link #TRIPPED_PATIENCE_NANOS} is 0), and the fork ends quickly with its
 * forbidden outcomes counted.
 *
 * <p>Spins start with {@link Thread#onSpinWait()}, then yield, then park for short periods: on two
 * CPUs the thread being waited for may need the waiter's CPU.
 */
public final class BoundedWait {
    /** The outcome a test reports when a wait ran out. */
    public static final String TIMEOUT = "TIMEOUT";
    /** How long one wait may take while no wait in this JVM has timed out. */
    public static final long PATIENCE_NANOS = 10_000_000_000L;
    /** How long one wait may take once a wait in this JVM has timed out: no time at all. */
    public static final long TRIPPED_PATIENCE_NANOS = 0;

    private static final int SPINS = 100;
    private static final int YIELDS = 1_000;
    private static final long PARK_NANOS = 20_000;

    private static volatile boolean tripped;

    private BoundedWait() {
    }

    /** True once some wait in this JVM has timed out. */
    public static boolean tripped() {
        return tripped;
    }

    /** The deadline (a {@link System#nanoTime()} value) of a wait starting now. */
    public static long deadline() {
        return System.nanoTime() + (tripped ? TRIPPED_PATIENCE_NANOS : PATIENCE_NANOS);
    }

    /** Records a timeout and returns false, for {@code return timedOut();} in a wait loop. */
    public static boolean timedOut() {
        tripped = true;
        return false;
    }

    /** Spins, yields, then parks until {@code condition} holds (true) or the patience runs out (false). */
    public static boolean until(BooleanSupplier condition) {
        long deadline = deadline();
        for (int i = 0; ; i++) {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                return timedOut();
            }
            pause(i);
        }
    }

    /** Waits until the int at {@code address} reads {@code expected} with an scacquire load. */
    public static boolean untilIntAcquire(Svm svm, long address, int expected) {
        long deadline = deadline();
        for (int i = 0; ; i++) {
            if (svm.loadIntAcquire(address) == expected) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                return timedOut();
            }
            pause(i);
        }
    }

    /**
     * Waits with {@link Signal#waitScacquire} until the signal satisfies {@code condition} against
     * {@code compare}, looping over early returns as the spec requires.
     */
    public static boolean untilSignal(Signal signal, SignalCondition condition, long compare) {
        long deadline = deadline();
        while (true) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return condition.test(signal.loadScacquire(), compare) || timedOut();
            }
            long seen = signal.waitScacquire(condition, compare, remaining, WaitState.ACTIVE);
            if (condition.test(seen, compare)) {
                return true;
            }
        }
    }

    /** One step of back-off: the {@code i}-th unsuccessful look at a condition. */
    public static void pause(int i) {
        if (i < SPINS) {
            Thread.onSpinWait();
        } else if (i < YIELDS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(PARK_NANOS);
        }
    }
}
