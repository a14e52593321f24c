package org.hsa4j.examples;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Timing for the examples' figures: the first (cold) round is reported apart, the next rounds warm
 * the JIT and the runtime up, and the steady-state figure is the median of the rounds after them.
 * Each timing line names the baseline it is to be read against, measured in the same run.
 */
final class Timing {
    private Timing() {
    }

    /** A first-round time and a steady-state (median) round time, in nanoseconds. */
    record Figure(long firstNanos, long steadyNanos) {
        /** The steady-state time in microseconds. */
        double steadyMicros() {
            return steadyNanos / 1e3;
        }

        /** The first round's time in microseconds. */
        double firstMicros() {
            return firstNanos / 1e3;
        }

        /** The steady-state time in milliseconds. */
        double steadyMillis() {
            return steadyNanos / 1e6;
        }

        /** The first round's time in milliseconds. */
        double firstMillis() {
            return firstNanos / 1e6;
        }
    }

    /**
     * Runs {@code round} for k = 0 .. {@code rounds - 1}, timing each; the first round is the cold
     * figure, rounds 1 .. {@code warmups} are not counted, the median of the rest is the steady one.
     */
    static Figure rounds(int rounds, int warmups, IntConsumer round) {
        if (rounds < warmups + 2) {
            throw new IllegalArgumentException(rounds + " rounds leave nothing to time after " + warmups + " warm-ups");
        }
        long[] times = new long[rounds];
        for (int k = 0; k < rounds; k++) {
            long start = System.nanoTime();
            round.accept(k);
            times[k] = System.nanoTime() - start;
        }
        long[] steady = Arrays.copyOfRange(times, warmups + 1, rounds);
        Arrays.sort(steady);
        return new Figure(times[0], steady[steady.length / 2]);
    }

    /**
     * A baseline for host-device handshakes: average nanoseconds per turn of the same flag-and-ack
     * handshake between two plain Java threads (after {@code turns / 5} warm-up turns).
     */
    static double threadHandshakeNanos(int turns) {
        AtomicInteger turn = new AtomicInteger(-1);
        AtomicInteger ack = new AtomicInteger(-1);
        Thread other = new Thread(() -> {
            long deadline = Bounded.deadline();
            for (int i = 0; i < turns; i++) {
                int step = i;
                Bounded.spinUntil(() -> turn.get() == step, deadline, "the baseline's turn " + i);
                ack.set(i);
            }
        }, "handshake-baseline");
        other.setDaemon(true);
        other.start();
        long deadline = Bounded.deadline();
        int warmups = turns / 5;
        long start = 0;
        for (int i = 0; i < turns; i++) {
            if (i == warmups) {
                start = System.nanoTime();
            }
            turn.set(i);
            int step = i;
            Bounded.spinUntil(() -> ack.get() == step, deadline, "the baseline's ack " + i);
        }
        return (double) (System.nanoTime() - start) / (turns - warmups);
    }
}
