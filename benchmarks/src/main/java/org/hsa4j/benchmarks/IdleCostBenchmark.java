package org.hsa4j.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.hsa4j.agent.Agent;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * FIGURES: what an initialized but idle runtime costs: CPU while idle, and its footprint at rest.
 *
 * <p>What it measures: each iteration's setup settles the heap (full GCs until nothing more is
 * freed), initializes a runtime with {@code HsaRuntime.init()} (the defaults: one GPU agent with a compute unit
 * per core, plus the CPU agent; HSA4J_* environment variables change them)
 * and creates one 1024-slot queue, then settles the heap again. The difference is the heap the
 * runtime retains ({@code heapBytes}); {@code rt.memory().reservedBytes()} is its off-heap
 * footprint ({@code offHeapBytes}); {@code threads} is how many threads it started. The single
 * timed op then leaves it alone for {@value #IDLE_MILLIS} ms and reports the CPU time spent meanwhile,
 * as a percentage of one core: by the whole process ({@code processCpuPercent}) and by the runtime's
 * own compute-unit threads ({@code workerCpuPercent}). These are JMH auxiliary counters (one value
 * per iteration); the primary score is only the op's wall time, which is the idle period itself.
 *
 * <p>Why it is fair: the baseline, {@link #threadPool}, does the same with the plain-Java
 * equivalent of an idle agent, a started fixed thread pool with as many threads as the runtime
 * has compute units, in the same JMH run, so the JVM's own background cost (JIT, GC, JMH's
 * threads) is in both process figures and cancels in the comparison. The process figure is
 * conservative: it counts everything the JVM does while the runtime idles. The idle period starts
 * right after setup, so it includes the runtime's back-off from its first short parks to its
 * longest. Goal (issue hsa-runtime): an idle runtime costs under 2% of one core.
 *
 * <p>{@link #computeUnits} 0 keeps the defaults; a positive value configures the GPU agent with that
 * many compute units (and the pool with as many threads), so the cost of many configured units shows
 * (issue 20: under 0.5% of one core with 16 units).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 10)
@Fork(2)
@State(Scope.Benchmark)
public class IdleCostBenchmark {
    /** The GPU agent's compute units: 0 for the default (one per core); 16 for issue 20's idle goal. */
    @Param({"0", "16"})
    public int computeUnits;

    /** The configuration both states use: the environment's, with {@link #computeUnits} when positive. */
    RuntimeConfig config() {
        RuntimeConfig.Builder b = RuntimeConfig.builderFromEnvironment();
        return (computeUnits > 0 ? b.computeUnits(computeUnits) : b).build();
    }

    /** How long each measured op leaves the runtime (or pool) idle. */
    static final long IDLE_MILLIS = 1000;

    /** The per-iteration figures, reported as JMH auxiliary counters. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Figures {
        /** CPU of the whole process while idle, in % of one core. */
        public double processCpuPercent;
        /** CPU of the runtime's (or pool's) worker threads while idle, in % of one core. */
        public double workerCpuPercent;
        /** Off-heap bytes held at rest. */
        public double offHeapBytes;
        /** Heap bytes retained at rest. */
        public double heapBytes;
        /** Threads started. */
        public double threads;

        @Setup(Level.Iteration)
        public void clear() {
            processCpuPercent = 0;
            workerCpuPercent = 0;
            offHeapBytes = 0;
            heapBytes = 0;
            threads = 0;
        }
    }

    /** An initialized runtime with one GPU agent and one queue, made afresh for every iteration. */
    @State(Scope.Benchmark)
    public static class IdleRuntime {
        HsaRuntime rt;
        Thread[] workers;
        long heapBytes;
        long offHeapBytes;
        int threads;

        @Setup(Level.Iteration)
        public void start(IdleCostBenchmark b) {
            long heapBefore = Probes.settledHeapUsed();
            int threadsBefore = Probes.liveThreads();
            rt = b.computeUnits > 0 ? HsaRuntime.init(b.config()) : HsaRuntime.init();
            rt.gpuAgent().createQueue(1024, QueueType.SINGLE, null);
            heapBytes = Probes.settledHeapUsed() - heapBefore;
            threads = Probes.liveThreads() - threadsBefore;
            offHeapBytes = rt.memory().reservedBytes();
            List<Thread> all = new ArrayList<>();
            for (Agent a : rt.agents()) {
                all.addAll(List.of(a.computeUnitThreads()));
            }
            workers = all.toArray(Thread[]::new);
        }

        @TearDown(Level.Iteration)
        public void stop() {
            if (rt != null) {
                rt.close();
            }
        }
    }

    /** BASELINE: a started fixed thread pool with as many threads as the default runtime has compute units. */
    @State(Scope.Benchmark)
    public static class IdlePool {
        ThreadPoolExecutor pool;
        Thread[] workers;
        long heapBytes;
        int threads;

        @Setup(Level.Iteration)
        public void start(IdleCostBenchmark b) {
            RuntimeConfig config = b.config();
            int n = config.gpuAgents() * config.computeUnits() + config.cpuComputeUnits();
            List<Thread> made = new ArrayList<>();
            long heapBefore = Probes.settledHeapUsed();
            int threadsBefore = Probes.liveThreads();
            pool = new ThreadPoolExecutor(n, n, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "baseline-pool-" + made.size());
                t.setDaemon(true);
                made.add(t);
                return t;
            });
            pool.prestartAllCoreThreads();
            heapBytes = Probes.settledHeapUsed() - heapBefore;
            threads = Probes.liveThreads() - threadsBefore;
            workers = made.toArray(Thread[]::new);
        }

        @TearDown(Level.Iteration)
        public void stop() throws InterruptedException {
            if (pool == null) {
                return;
            }
            pool.shutdown();
            if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("baseline pool did not stop within 10 s");
            }
        }
    }

    /** FIGURE: an idle runtime left alone for {@value #IDLE_MILLIS} ms. */
    @Benchmark
    public void runtime(IdleRuntime s, Figures f) throws InterruptedException {
        idle(s.workers, f);
        f.offHeapBytes = s.offHeapBytes;
        f.heapBytes = s.heapBytes;
        f.threads = s.threads;
    }

    /** BASELINE: an idle fixed thread pool left alone for {@value #IDLE_MILLIS} ms. */
    @Benchmark
    public void threadPool(IdlePool s, Figures f) throws InterruptedException {
        idle(s.workers, f);
        f.offHeapBytes = 0;
        f.heapBytes = s.heapBytes;
        f.threads = s.threads;
    }

    private static void idle(Thread[] workers, Figures f) throws InterruptedException {
        long wall0 = System.nanoTime();
        long process0 = Probes.processCpuNanos();
        long workers0 = Probes.threadsCpuNanos(workers);
        Thread.sleep(IDLE_MILLIS);
        long workers1 = Probes.threadsCpuNanos(workers);
        long process1 = Probes.processCpuNanos();
        double wall = System.nanoTime() - wall0;
        f.processCpuPercent = 100.0 * (process1 - process0) / wall;
        f.workerCpuPercent = 100.0 * (workers1 - workers0) / wall;
    }
}
