package org.hsa4j.benchmarks;

import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * Bounded waits on hsa4j signals for the benchmarks. A signal wait may return early (the spec
 * allows it), so the benchmarks loop on the condition; the loop gives up loudly after
 * {@link #DEADLINE_NANOS}, so a runtime bug fails the benchmark instead of hanging the run.
 */
public final class Waits {
    /** Longest any single benchmark wait may take before the run is declared broken. */
    static final long DEADLINE_NANOS = 10_000_000_000L;

    private Waits() {
    }

    /** Waits until {@code signal} satisfies {@code condition} against {@code value}; returns the value seen. */
    public static long await(Signal signal, SignalCondition condition, long value, WaitState state) {
        long v = signal.waitScacquire(condition, value, DEADLINE_NANOS, state);
        if (condition.test(v, value)) {
            return v;
        }
        return awaitSlowly(signal, condition, value, state, v);
    }

    private static long awaitSlowly(Signal signal, SignalCondition condition, long value, WaitState state, long seen) {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        long v = seen;
        while (!condition.test(v, value)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("signal " + signal + " did not reach " + condition + " " + value
                        + " within " + DEADLINE_NANOS / 1_000_000 + " ms (last value " + v + ")");
            }
            v = signal.waitScacquire(condition, value, left, state);
        }
        return v;
    }
}
