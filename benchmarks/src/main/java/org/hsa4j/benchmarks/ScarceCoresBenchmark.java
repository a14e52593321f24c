package org.hsa4j.benchmarks;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
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
 * SCALING (information): the empty dispatch round trip (BLOCKED wait) and an ExecutorService
 * {@code submit().get()} of a no-op, each with and without {@link BusyLoad}: {@code busyThreads}
 * background threads that spin for the whole trial, so the runtime's threads and the host thread
 * compete for cores as on a shared machine. Sample time (p50 in the JMH percentiles); issue 20's
 * goal: under two busy threads the round trip's p50 at most submit().get()'s under the same load.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 3, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
public class ScarceCoresBenchmark {
    /** Background threads that keep cores busy during the trial (0: none). */
    @State(Scope.Benchmark)
    public static class BusyLoad {
        /** Busy background threads. */
        @Param({"0", "2"})
        public int busyThreads;
        private volatile boolean running;
        private Thread[] threads;
        /** Sink for the busy loops, so the JIT keeps them. */
        public volatile long sink;

        @Setup(Level.Trial)
        public void start() {
            running = true;
            threads = new Thread[busyThreads];
            for (int i = 0; i < busyThreads; i++) {
                threads[i] = Thread.ofPlatform().daemon().name("busy-" + i).start(() -> {
                    long x = 0;
                    while (running) {
                        x = x * 6364136223846793005L + 1442695040888963407L;
                    }
                    sink = x;
                });
            }
        }

        @TearDown(Level.Trial)
        public void stop() throws InterruptedException {
            running = false;
            for (Thread t : threads) {
                t.join(10_000);
            }
        }
    }

    /** A runtime with default compute units, one queue, one signal; and a one-thread executor. */
    @State(Scope.Benchmark)
    public static class Targets {
        HsaRuntime rt;
        Queue queue;
        Signal done;
        Executable executable;
        long kernelObject;
        ExecutorService executor;

        @Setup(Level.Trial)
        public void start() {
            rt = HsaRuntime.init(RuntimeConfig.defaults());
            queue = rt.gpuAgent().createQueue(BatchedPacketsBenchmark.QUEUE_SIZE, QueueType.SINGLE, null);
            done = rt.createSignal(0);
            executable = rt.createExecutable().define("empty", KernelDescriptor.EMPTY, wi -> {
            }).freeze();
            kernelObject = executable.symbol("empty").kernelObject();
            executor = Executors.newSingleThreadExecutor();
        }

        @TearDown(Level.Trial)
        public void stop() throws InterruptedException {
            executor.shutdown();
            executor.awaitTermination(10, TimeUnit.SECONDS);
            rt.close();
        }
    }

    /** One empty-kernel dispatch, BLOCKED wait for its completion. */
    @Benchmark
    public long dispatchRoundTrip(BusyLoad load, Targets t) {
        t.done.storeRelaxed(1);
        Dispatches.submitOne(t.queue, t.kernelObject, 1, 1, 0, t.done);
        return Waits.await(t.done, SignalCondition.EQ, 0, WaitState.BLOCKED);
    }

    /** The plain-Java baseline: a no-op handed to a one-thread executor and waited for. */
    @Benchmark
    public Object executorSubmitGet(BusyLoad load, Targets t) throws Exception {
        return t.executor.submit(() -> 1).get();
    }
}
