package org.hsa4j.benchmarks;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * BASELINE: the floor for every round trip between two threads on this machine.
 *
 * <p>What it measures: one round trip of one off-heap cache line between the benchmark thread and
 * a partner thread. The line is a 64-byte-aligned {@link MemorySegment} from a shared arena and
 * both threads touch it only through a {@link VarHandle}, exactly as hsa4j's signals and queue
 * indices do. The benchmark thread stores an odd value with release order, the partner sees it with
 * an acquire load and answers with the next even value; the benchmark thread returns once it sees
 * the answer. One op is one ping and one pong: the line crosses between the cores twice.
 *
 * <p>Why it is fair as a floor: it does the least any hsa4j round trip must do (each dispatch or
 * signal round trip moves at least this line there and back) with the cheapest correct orders
 * (release/acquire, no full fence), no allocation and no indirection. Nothing in the runtime can
 * beat it, so the goals are ratios to it ("dispatch round trip within 6x", "signal ping-pong
 * within 2x"), measured in the same JMH run, hence on the same load and the same JIT.
 *
 * <p>Both sides spin only for a bounded time, then yield, then park with short timeouts (this is a
 * 2-core machine: an unbounded spin would steal a core from everything else between iterations).
 * The partner is started in the trial's setup and stopped in its teardown; if it dies the benchmark
 * thread notices at its next bounded wait and fails loudly instead of spinning forever.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class RawPingPongBenchmark {
    /** Value that tells the partner to stop. */
    private static final long STOP = -1;
    /** Spins (each with {@link Thread#onSpinWait()}) before a waiting side starts yielding. */
    private static final int SPINS = 1 << 14;
    /** Yields before a waiting side starts parking. */
    private static final int YIELDS = 1 << 8;
    /** Park of a waiting side once it has spun and yielded, between two looks at the line. */
    private static final long PARK_NANOS = 50_000;
    /** How long the benchmark thread waits for an answer before declaring the partner broken. */
    private static final long ANSWER_DEADLINE_NANOS = 10_000_000_000L;

    private static final VarHandle CELL = ValueLayout.JAVA_LONG.varHandle();

    private Arena arena;
    private MemorySegment line;
    private Thread partner;
    private volatile Throwable partnerFailure;
    private long last;

    @Setup(Level.Trial)
    public void startPartner() {
        arena = Arena.ofShared();
        line = arena.allocate(64, 64);
        CELL.setVolatile(line, 0L, 0L);
        last = 0;
        partner = new Thread(this::answer, "raw-ping-pong-partner");
        partner.setDaemon(true);
        partner.setUncaughtExceptionHandler((t, e) -> partnerFailure = e);
        partner.start();
    }

    @TearDown(Level.Trial)
    public void stopPartner() throws InterruptedException {
        if (partner == null) {
            return;
        }
        CELL.setVolatile(line, 0L, STOP);
        LockSupport.unpark(partner);
        partner.join(10_000);
        boolean stuck = partner.isAlive();
        arena.close();
        if (stuck) {
            throw new IllegalStateException("ping-pong partner did not stop within 10 s");
        }
        if (partnerFailure != null) {
            throw new IllegalStateException("ping-pong partner failed", partnerFailure);
        }
    }

    /** One round trip: ping (odd value, release store), wait for the pong (next even value, acquire load). */
    @Benchmark
    public long roundTrip() {
        long ping = last + 1;
        CELL.setRelease(line, 0L, ping);
        long pong = ping + 1;
        if ((long) CELL.getAcquire(line, 0L) != pong) {
            awaitPong(pong);
        }
        last = pong;
        return pong;
    }

    private void awaitPong(long pong) {
        for (int i = 0; i < SPINS; i++) {
            Thread.onSpinWait();
            if ((long) CELL.getAcquire(line, 0L) == pong) {
                return;
            }
        }
        for (int i = 0; i < YIELDS; i++) {
            Thread.yield();
            if ((long) CELL.getAcquire(line, 0L) == pong) {
                return;
            }
        }
        long deadline = System.nanoTime() + ANSWER_DEADLINE_NANOS;
        while ((long) CELL.getAcquire(line, 0L) != pong) {
            if (!partner.isAlive()) {
                throw new IllegalStateException("ping-pong partner died", partnerFailure);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("ping-pong partner did not answer " + (pong - 1) + " within 10 s");
            }
            LockSupport.parkNanos(PARK_NANOS);
        }
    }

    /** The partner's loop: answer every odd value with the next even one until told to stop. */
    private void answer() {
        long seen = 0;
        while (true) {
            long v = awaitPing(seen);
            if (v == STOP) {
                return;
            }
            seen = v + 1;
            CELL.setRelease(line, 0L, seen);
        }
    }

    private long awaitPing(long seen) {
        int round = 0;
        while (true) {
            long v = (long) CELL.getAcquire(line, 0L);
            if (v != seen) {
                return v;
            }
            if (round < SPINS) {
                Thread.onSpinWait();
            } else if (round < SPINS + YIELDS) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(PARK_NANOS);
            }
            round++;
        }
    }
}
