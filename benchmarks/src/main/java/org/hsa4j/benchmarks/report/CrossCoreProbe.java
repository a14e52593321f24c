package org.hsa4j.benchmarks.report;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * How long a cache line takes to go from one core to another and back on this machine right now:
 * two threads spin on one line each, passing a counter (a release store, an acquire load), and
 * the median round trip of ten 50 ms windows is reported.
 *
 * <p>Why the report records it: on a virtual machine the same two vCPUs are sometimes placed on
 * cores that share a cache complex and sometimes not, and the cross-core round trip then moves
 * between about 100 ns and about 420 ns by this probe (70 and 350 ns with volatile fields and
 * no clock reads) for minutes at a time (seen on the project's 2-core machines, 2026-11-26).
 * Every figure that hands packets between threads moves with it (the one-unit packet throughput
 * between ~10 and ~6.5 M/s), while a baseline dominated by its own work (ExecutorService
 * executeBatch) barely does, so a ratio taken in one placement against a baseline taken in the
 * other says little. A reading before and after the run shows which
 * placement the run began and ended in.
 *
 * <p>Every wait is bounded: a window ends after its time even if the partner stopped answering
 * (descheduled), and the partner stops with the probe. One processor gives no reading.
 */
final class CrossCoreProbe {
    private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(long[].class);
    /** Longs between the two lines (128 bytes), so the ping and the pong never share a line or a prefetch pair. */
    private static final int PAD = 16;
    private static final int PING = PAD;
    private static final int PONG = 2 * PAD;
    private static final int WINDOWS = 10;
    private static final long WINDOW_NANOS = 50_000_000;
    /** Spins between clock reads while waiting for an answer. */
    private static final int SPINS_PER_CLOCK = 1024;
    /** Looks without a new value after which the partner parks between looks. */
    private static final int IDLE_SPINS = 1 << 20;
    /** Marks the end: the partner returns when it sees it. */
    private static final long STOP = -1;

    private CrossCoreProbe() {
    }

    /** Runs the probe and prints the reading: {@code java -cp benchmarks.jar org.hsa4j.benchmarks.report.CrossCoreProbe}. */
    public static void main(String[] args) throws InterruptedException {
        System.out.println("cross-core round trip: " + measure());
    }

    /** The median round trip of the windows and their range, e.g. "100 ns (windows 98 to 240 ns)"; "n/a (...)" without two processors. */
    static String measure() throws InterruptedException {
        if (Runtime.getRuntime().availableProcessors() < 2) {
            return "n/a (one processor)";
        }
        long[] cells = new long[3 * PAD + 1];
        Thread partner = Thread.ofPlatform().daemon().name("cross-core-probe").start(() -> answer(cells));
        long[] windows = new long[WINDOWS];
        long sent = 0;
        try {
            for (int w = 0; w < WINDOWS; w++) {
                long start = System.nanoTime();
                long end = start + WINDOW_NANOS;
                long trips = 0;
                long now = start;
                while (now < end) {
                    sent++;
                    CELL.setRelease(cells, PING, sent);
                    if (!awaitAnswer(cells, sent, end)) {
                        break;
                    }
                    trips++;
                    if ((trips & 63) == 0) {
                        now = System.nanoTime();
                    }
                }
                windows[w] = trips == 0 ? Long.MAX_VALUE : (System.nanoTime() - start) / trips;
            }
        } finally {
            CELL.setRelease(cells, PING, STOP);
            partner.join(1_000);
        }
        Arrays.sort(windows);
        if (windows[0] == Long.MAX_VALUE) {
            return "n/a (the partner thread never answered)";
        }
        long median = windows[WINDOWS / 2];
        long worst = windows[WINDOWS - 1];
        return median + " ns (windows " + windows[0] + " to " + (worst == Long.MAX_VALUE ? "unanswered" : worst + " ns") + ")";
    }

    /** Spins until the partner echoes {@code sent}; false once {@code end} passed without it. */
    private static boolean awaitAnswer(long[] cells, long sent, long end) {
        for (int spins = 1; (long) CELL.getAcquire(cells, PONG) != sent; spins++) {
            Thread.onSpinWait();
            if (spins % SPINS_PER_CLOCK == 0 && System.nanoTime() > end) {
                return false;
            }
        }
        return true;
    }

    /**
     * The partner: echoes every new value of the ping line until it reads {@link #STOP}. A partner
     * that has seen nothing new for {@link #IDLE_SPINS} looks (its prober is gone or descheduled)
     * parks a millisecond between looks, so it never holds a core for long.
     */
    private static void answer(long[] cells) {
        long seen = 0;
        int idle = 0;
        while (true) {
            long v = (long) CELL.getAcquire(cells, PING);
            if (v == STOP) {
                return;
            }
            if (v != seen) {
                seen = v;
                idle = 0;
                CELL.setRelease(cells, PONG, v);
            } else if (++idle >= IDLE_SPINS) {
                LockSupport.parkNanos(1_000_000);
            } else {
                Thread.onSpinWait();
            }
        }
    }
}
