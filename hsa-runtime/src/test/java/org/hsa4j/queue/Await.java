package org.hsa4j.queue;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * Bounded waits for tests: each gives up with an assertion failure after its timeout instead of
 * hanging, and none relies on a sleep for ordering (polling only re-checks a condition).
 */
public final class Await {
    /** How long a test waits for something that should happen promptly. */
    public static final Duration DEFAULT = Duration.ofSeconds(20);

    private Await() {
    }

    /** Waits until {@code signal} is 0; an HsaException from a failed signal propagates. */
    public static void completion(Signal signal) {
        value(signal, 0, DEFAULT);
    }

    /** Waits until {@code signal} equals {@code expected}; an HsaException from a failed signal propagates. */
    public static void value(Signal signal, long expected, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            long v = signal.waitScacquire(SignalCondition.EQ, expected, Math.max(left, 0), WaitState.BLOCKED);
            if (v == expected) {
                return;
            }
            if (deadline - System.nanoTime() <= 0) {
                fail("signal " + signal + " stayed at " + v + ", expected " + expected + " within " + timeout);
            }
        }
    }

    /** Polls {@code condition} until it holds, failing with {@code what} after {@link #DEFAULT}. */
    public static void until(BooleanSupplier condition, String what) {
        until(condition, DEFAULT, what);
    }

    /** Polls {@code condition} until it holds, failing with {@code what} after {@code timeout}. */
    public static void until(BooleanSupplier condition, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int spins = 0;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + timeout + " waiting for " + what);
            }
            if (++spins < 1000) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(100_000);
            }
        }
    }
}
