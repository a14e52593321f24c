package org.hsa4j.benchmarks.amp;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.hsa4j.agent.AgentCounters;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CompletionFuture;
import org.hsa4j.amp.CppMemoryOrder;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.IndexKernel;
import org.hsa4j.amp.IntArrayView;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * SCALING (issue 20): the seed program sync_2way written with default settings, against the same
 * program on one compute unit.
 *
 * <p>What it measures: the shape of examples' {@code sync_2way}: {@value #N} work-items of one
 * {@code parallelForEach}; work-item {@code i} spins (then yields) until the host's turn flag says
 * {@code i}, moves the single 1 of an SVM array one cell on and stores an acknowledgement; the host
 * thread stores each turn and spins (then yields) for its acknowledgement. One op is one turn (host
 * to work-item to host), averaged over the {@value #N} turns of one dispatch. {@link #computeUnits}
 * 0 is what a user gets from {@code HsaRuntime.init()} (a compute unit per core), 1 is what the
 * example configures. Goal: the default at most 2x the one-unit turn time.
 *
 * <p>Why it is hard: a work-item that waits for a later turn spins on a unit, so every unit beyond
 * the one running the current turn takes a core from it and from the host thread.
 *
 * <p>Auxiliary counters: the GPU agent's wake-ups and role hand-offs over each iteration (JMH sums
 * them), which say whether units beyond the first were woken.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class SyncTwoWayBenchmark {
    /** Work-items, and turns per op. */
    static final int N = 1024;
    /** Spins between yields in both waits (the example's). */
    private static final int SPINS_BEFORE_YIELD = 256;
    /** The longest any wait may take before the benchmark fails instead of hanging. */
    private static final long TIMEOUT_NANOS = 60_000_000_000L;

    /** Compute units of the GPU agent: 0 for the default ({@code HsaRuntime.init()}). */
    @Param({"0", "1"})
    public int computeUnits;

    private HsaRuntime rt;
    private Amp amp;
    private IntArrayView cells;
    private IntArrayView turn;
    private IntArrayView ack;
    private IndexKernel mover;

    @Setup(Level.Trial)
    public void start() {
        rt = computeUnits > 0 ? HsaRuntime.init(RuntimeConfig.builderFromEnvironment().computeUnits(computeUnits).build())
                : HsaRuntime.init();
        amp = Amp.on(rt);
        cells = amp.defaultAccelerator().newInts(N);
        turn = amp.defaultAccelerator().newInts(1);
        ack = amp.defaultAccelerator().newInts(1);
        IntArrayView t = turn;
        IntArrayView a = ack;
        IntArrayView c = cells;
        mover = idx -> {
            int i = idx.get(0);
            spinUntil(() -> t.atomicLoad(0, CppMemoryOrder.ACQUIRE) == i, System.nanoTime() + TIMEOUT_NANOS);
            if (i > 0) {
                c.set(i - 1, 0);
            }
            c.set(i, 1);
            a.atomicStore(0, i, CppMemoryOrder.RELEASE);
        };
    }

    @TearDown(Level.Trial)
    public void stop() {
        if (amp != null) {
            amp.close();
        }
        if (rt != null) {
            rt.close();
        }
    }

    /** The GPU agent's wake-ups and role hand-offs over each iteration. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counters {
        /** Parked units unparked by another thread. */
        public long wakeUps;
        /** Times a unit took the processor role. */
        public long roleHandoffs;
        private AgentCounters base;

        @Setup(Level.Iteration)
        public void clear(SyncTwoWayBenchmark b) {
            base = b.rt.gpuAgent().counters();
            wakeUps = 0;
            roleHandoffs = 0;
        }

        void update(AgentCounters now) {
            AgentCounters d = now.minus(base);
            wakeUps = d.wakeUps();
            roleHandoffs = d.roleHandoffs();
        }
    }

    /** {@value #N} turns host to work-item to host; scored per turn. */
    @Benchmark
    @OperationsPerInvocation(N)
    public int turns(Counters counters) {
        turn.atomicStore(0, -1, CppMemoryOrder.RELEASE);
        ack.atomicStore(0, -1, CppMemoryOrder.RELEASE);
        CompletionFuture kernel = amp.parallelForEach(new Extent(N), mover);
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        for (int i = 0; i < N; i++) {
            turn.atomicStore(0, i, CppMemoryOrder.RELEASE);
            int step = i;
            spinUntil(() -> ack.atomicLoad(0, CppMemoryOrder.ACQUIRE) == step || kernel.isFailed(), deadline);
            if (kernel.isFailed()) {
                kernel.get();
            }
        }
        kernel.get();
        counters.update(rt.gpuAgent().counters());
        return cells.get(N - 1);
    }

    /** Spins, yielding every {@value #SPINS_BEFORE_YIELD} looks, until {@code condition}; fails past {@code deadline}. */
    private static void spinUntil(BooleanSupplier condition, long deadline) {
        int spins = 0;
        while (!condition.getAsBoolean()) {
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                spins = 0;
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("a sync_2way wait timed out");
                }
                Thread.yield();
            }
        }
    }
}
