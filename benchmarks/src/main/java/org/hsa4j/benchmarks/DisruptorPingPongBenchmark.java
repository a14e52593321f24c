package org.hsa4j.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;

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
 * BASELINE (information): the round trip of one event through an LMAX Disruptor 4 1P-1C pair of
 * rings, beside the raw ping-pong.
 *
 * <p>What it measures: two single-producer ring buffers of {@value #RING_SIZE} slots, one each way.
 * The benchmark thread claims a slot of the ping ring, writes a number into its event and publishes
 * it; a {@link BatchEventProcessor} on its own thread (the ponger) consumes it and publishes the
 * same number on the pong ring; the benchmark thread waits for that sequence on the pong ring's
 * barrier, checks the number and releases the slot (its gating sequence). One op is one round
 * trip, the same shape as {@link RawPingPongBenchmark#roundTrip()} but through the Disruptor's
 * sequences, barriers and batch processor instead of one bare cache line.
 *
 * <p>The wait strategy is a bounded yielding one ({@link BoundedYieldingWaitStrategy}): the stock
 * {@code YieldingWaitStrategy} spins 100 times and then yields forever, and {@code BusySpinWaitStrategy}
 * never stops spinning; on a 2-core machine either steals a core between iterations, and neither
 * ever gives up if the other side dies. This one spins, yields and parks with the very phases the
 * raw ping-pong uses, so the two baselines differ only in the machinery, and gives up after 10 s
 * (Disruptor's {@link TimeoutException}), so a dead ponger fails the benchmark instead of hanging it.
 *
 * <p>Not the same figure as the Disruptor's published "1P-1C about 160M ops/s" (DESIGN.md): that is
 * a one-way throughput, events streamed in batches with nothing waiting for an answer, so its
 * ~6 ns per event is an amortized cost, not a round trip. Here every event waits for its answer,
 * so the line of each ring's cursor crosses the cores twice per op, like every hsa4j round trip.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class DisruptorPingPongBenchmark {
    /** Slots of each ring (one event is in flight at a time; the size only bounds the sequences' lead). */
    static final int RING_SIZE = 1024;
    /** Spins (each with {@link Thread#onSpinWait()}) before a waiting side starts yielding, as in the raw ping-pong. */
    private static final int SPINS = 1 << 14;
    /** Yields before a waiting side starts parking, as in the raw ping-pong. */
    private static final int YIELDS = 1 << 8;
    /** Park of a waiting side once it has spun and yielded, as in the raw ping-pong. */
    private static final long PARK_NANOS = 50_000;
    /** How long one wait may last before it throws Disruptor's {@link TimeoutException}. */
    private static final long DEADLINE_NANOS = 10_000_000_000L;

    /** The one field an event carries. */
    static final class ValueEvent {
        long value;
    }

    private RingBuffer<ValueEvent> ping;
    private RingBuffer<ValueEvent> pong;
    private SequenceBarrier pongBarrier;
    private Sequence pongRead;
    private BatchEventProcessor<ValueEvent> ponger;
    private Thread pongerThread;
    private volatile Throwable pongerFailure;
    private long next;

    @Setup(Level.Trial)
    public void startPonger() {
        WaitStrategy waits = new BoundedYieldingWaitStrategy();
        ping = RingBuffer.createSingleProducer(ValueEvent::new, RING_SIZE, waits);
        pong = RingBuffer.createSingleProducer(ValueEvent::new, RING_SIZE, waits);
        pongBarrier = pong.newBarrier();
        pongRead = new Sequence();
        pong.addGatingSequences(pongRead);
        ponger = new BatchEventProcessorBuilder().build(ping, ping.newBarrier(), (ValueEvent e, long seq, boolean end) -> {
            long s = pong.next();
            pong.get(s).value = e.value;
            pong.publish(s);
        });
        ping.addGatingSequences(ponger.getSequence());
        next = 0;
        pongerThread = new Thread(ponger, "disruptor-ponger");
        pongerThread.setDaemon(true);
        pongerThread.setUncaughtExceptionHandler((t, e) -> pongerFailure = e);
        pongerThread.start();
    }

    @TearDown(Level.Trial)
    public void stopPonger() throws InterruptedException {
        if (pongerThread == null) {
            return;
        }
        ponger.halt();
        pongerThread.join(10_000);
        if (pongerThread.isAlive()) {
            throw new IllegalStateException("Disruptor ponger did not stop within 10 s");
        }
        if (pongerFailure != null) {
            throw new IllegalStateException("Disruptor ponger failed", pongerFailure);
        }
    }

    /** One round trip: publish on the ping ring, wait for the same sequence on the pong ring. */
    @Benchmark
    public long roundTrip() {
        long seq = ping.next();
        long value = next + 1;
        ping.get(seq).value = value;
        ping.publish(seq);
        long expected = next;
        try {
            pongBarrier.waitFor(expected);
        } catch (TimeoutException e) {
            throw new IllegalStateException("Disruptor ponger did not answer sequence " + expected + " within 10 s",
                    pongerFailure);
        } catch (AlertException | InterruptedException e) {
            throw new IllegalStateException("waiting on the pong ring was interrupted", e);
        }
        long answer = pong.get(expected).value;
        if (answer != value) {
            throw new IllegalStateException("pong " + expected + " carried " + answer + ", not " + value);
        }
        pongRead.set(expected);
        next = expected + 1;
        return answer;
    }

    /**
     * Spin, then yield, then park in short timeouts until the sequence is available, like the raw
     * ping-pong's waits; throws Disruptor's {@link TimeoutException} once it has parked for
     * {@value DisruptorPingPongBenchmark#DEADLINE_NANOS} ns. Publishers never need to wake anyone:
     * a parked waiter looks again after at most {@value DisruptorPingPongBenchmark#PARK_NANOS} ns.
     */
    static final class BoundedYieldingWaitStrategy implements WaitStrategy {
        @Override
        public long waitFor(long sequence, Sequence cursor, Sequence dependentSequence, SequenceBarrier barrier)
                throws AlertException, TimeoutException {
            long available = dependentSequence.get();
            if (available >= sequence) {
                return available;
            }
            long deadline = 0;
            for (int round = 0; ; round++) {
                barrier.checkAlert();
                available = dependentSequence.get();
                if (available >= sequence) {
                    return available;
                }
                if (round < SPINS) {
                    Thread.onSpinWait();
                } else if (round < SPINS + YIELDS) {
                    Thread.yield();
                } else {
                    if (deadline == 0) {
                        deadline = System.nanoTime() + DEADLINE_NANOS;
                    } else if (System.nanoTime() - deadline > 0) {
                        throw TimeoutException.INSTANCE;
                    }
                    LockSupport.parkNanos(PARK_NANOS);
                }
            }
        }

        @Override
        public void signalAllWhenBlocking() {
            // waiters park with a timeout: nobody to wake
        }
    }
}
