package org.hsa4j.benchmarks;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * BASELINES: what plain Java gives for handing work to another thread and waiting for it.
 *
 * <p>What it measures: with one single-thread {@link ExecutorService} made in the trial's setup,
 * <ul>
 * <li>{@link #submitGet()}: {@code submit(noop).get()}, one hand-off and one wake-up each way:
 *     the baseline of the BLOCKED dispatch round trip (goal: no slower than this);</li>
 * <li>{@link #runAsyncJoin()}: {@code CompletableFuture.runAsync(noop, executor).join()}, the same
 *     through the CompletableFuture machinery;</li>
 * <li>{@link #executeBatch()}: {@value #BATCH} no-op tasks handed over back to back, the last one
 *     waited for, reported per task: the baseline of the batched packet benchmarks.</li>
 * </ul>
 *
 * <p>Why it is fair: it is the JDK's standard way to run something elsewhere and wait for it,
 * used exactly as an application would (one executor reused, nothing created per operation but
 * what the JDK itself creates), with a no-op task like the empty kernel. The worker thread parks
 * when idle, as the hsa4j compute units do, so both pay for waking a parked thread. Every wait is
 * bounded ({@code get} with a 10 s limit in place of {@code join()}, which cannot time out; both
 * park on the same completion): a broken executor fails the benchmark.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class ExecutorBaselineBenchmark {
    /** Tasks per invocation of {@link #executeBatch()}, as packets per doorbell in the batched benchmark. */
    public static final int BATCH = 256;

    private static final Runnable NOOP = () -> {
    };

    private ExecutorService executor;

    @Setup(Level.Trial)
    public void start() {
        executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "baseline-executor");
            t.setDaemon(true);
            return t;
        });
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
        executor.shutdown();
        if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("baseline executor did not stop within 10 s");
        }
    }

    /** One task handed over and waited for. */
    @Benchmark
    public Object submitGet() throws Exception {
        return executor.submit(NOOP).get(Waits.DEADLINE_NANOS, TimeUnit.NANOSECONDS);
    }

    /** One task handed over through CompletableFuture and joined. */
    @Benchmark
    public Object runAsyncJoin() throws Exception {
        return CompletableFuture.runAsync(NOOP, executor).get(Waits.DEADLINE_NANOS, TimeUnit.NANOSECONDS);
    }

    /** {@value #BATCH} tasks handed over back to back; the single worker runs them in order, so the last one's end is the batch's. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(BATCH)
    public Object executeBatch() throws InterruptedException, ExecutionException, TimeoutException {
        for (int i = 1; i < BATCH; i++) {
            executor.execute(NOOP);
        }
        Future<?> last = executor.submit(NOOP);
        return last.get(Waits.DEADLINE_NANOS, TimeUnit.NANOSECONDS);
    }
}
