package org.hsa4j.examples;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.hsa4j.amp.CompletionFuture;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * Bounded waits for the examples: no example waits forever. A wait that runs out of time throws
 * {@link IllegalStateException} naming what it waited for (in a kernel, that fails the dispatch;
 * on the host, the example). Spins give the core away after a while, so a spinning host thread
 * and a spinning compute unit make progress on a machine with fewer cores than spinners.
 */
final class Bounded {
    /** How long any single wait may take before the example fails. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static final int SPINS_BEFORE_YIELD = 256;

    private Bounded() {
    }

    /** A deadline {@link #TIMEOUT} from now, in {@link System#nanoTime()} units. */
    static long deadline() {
        return System.nanoTime() + TIMEOUT.toNanos();
    }

    /** Spins until {@code condition} holds; throws when {@code deadline} passes first. */
    static void spinUntil(BooleanSupplier condition, long deadline, String what) {
        int spins = 0;
        while (!condition.getAsBoolean()) {
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                spins = 0;
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("timed out waiting for " + what);
                }
                Thread.yield();
            }
        }
    }

    /** Waits for {@code future} and rethrows its failure; throws when it takes longer than {@link #TIMEOUT}. */
    static void await(CompletionFuture future, String what) {
        if (!future.waitFor(TIMEOUT)) {
            throw new IllegalStateException(what + " did not complete in " + TIMEOUT.toSeconds() + " s");
        }
        future.get();
    }

    /** Waits until the dispatch ended (its failure throws); throws when it takes longer than {@link #TIMEOUT}. */
    static void await(DispatchCompletion done, String what) {
        if (!done.join(TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException(what + " did not complete in " + TIMEOUT.toSeconds() + " s");
        }
    }

    /** Waits until {@code done} reaches 0; throws when it takes longer than {@link #TIMEOUT}. */
    static void await(Signal done, String what) {
        long deadline = deadline();
        while (done.waitScacquire(SignalCondition.EQ, 0, 100_000_000L, WaitState.BLOCKED) != 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(what + " did not complete in " + TIMEOUT.toSeconds() + " s");
            }
        }
    }
}
