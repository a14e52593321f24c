package org.hsa4j.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
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
 * SCALING: aggregate empty-dispatch throughput with one queue per host thread.
 *
 * <p>What it measures: {@code queues} queues of {@value BatchedPacketsBenchmark#QUEUE_SIZE} slots on
 * one runtime (default compute units), each fed by its own host thread that streams
 * {@value BatchedPacketsBenchmark#BATCH} empty 1-work-item dispatches per doorbell into it, the last
 * with the barrier bit and the thread's completion signal, exactly as {@link DispatchScalingBenchmark}.
 * The JMH thread feeds the first queue (the primary score: its own packets/s); {@code queues - 1}
 * feeder threads started for the trial feed the others for as long as it runs. The aggregate over
 * all queues is the auxiliary counter {@code aggregatePackets} (packets/s of every feeder in the
 * iteration), so 1, 2, 4 and 8 queues are compared within one JMH run (issue 20's goal: 8 queues
 * at least the 1-queue figure).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 3, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
public class MultiQueueBenchmark {
    /** The runtime, the empty kernel and the feeders of every queue but the JMH thread's. */
    @State(Scope.Benchmark)
    public static class Shared {
        /** Queues, each fed by its own host thread. */
        @Param({"1", "2", "4", "8"})
        public int queues;
        HsaRuntime rt;
        Executable executable;
        long kernelObject;
        Feeder first;
        final LongAdder backgroundPackets = new LongAdder();
        private volatile boolean running;
        private Thread[] feeders;
        private volatile Throwable failure;

        @Setup(Level.Trial)
        public void start() {
            rt = HsaRuntime.init(RuntimeConfig.defaults());
            executable = rt.createExecutable().define("empty", KernelDescriptor.EMPTY, wi -> {
            }).freeze();
            kernelObject = executable.symbol("empty").kernelObject();
            first = new Feeder(this);
            running = true;
            feeders = new Thread[queues - 1];
            for (int i = 0; i < feeders.length; i++) {
                Feeder f = new Feeder(this);
                feeders[i] = Thread.ofPlatform().daemon().name("feeder-" + (i + 1)).start(() -> {
                    try {
                        while (running) {
                            f.batch(kernelObject);
                            backgroundPackets.add(BatchedPacketsBenchmark.BATCH);
                        }
                    } catch (Throwable t) {
                        failure = t;
                    }
                });
            }
        }

        /** Fails the measurement when a feeder thread failed (a lost dispatch must not pass as a slow one). */
        void check() {
            Throwable t = failure;
            if (t != null) {
                throw new IllegalStateException("a feeder thread failed", t);
            }
        }

        @TearDown(Level.Trial)
        public void stop() throws InterruptedException {
            running = false;
            for (Thread t : feeders == null ? new Thread[0] : feeders) {
                t.join(Waits.DEADLINE_NANOS / 1_000_000);
            }
            if (rt != null) {
                rt.close();
            }
        }
    }

    /** One host thread's queue and completion signal. */
    static final class Feeder {
        final Queue queue;
        final Signal done;
        final KernelDispatchPacket kernel = new KernelDispatchPacket();

        Feeder(Shared shared) {
            queue = shared.rt.gpuAgent().createQueue(BatchedPacketsBenchmark.QUEUE_SIZE, QueueType.SINGLE, null);
            done = shared.rt.createSignal(0);
        }

        /** One batch into this feeder's queue, one doorbell, one wait. */
        long batch(long kernelObject) {
            return BatchedPacketsBenchmark.submitKernelBatch(kernel, queue, kernelObject, done);
        }
    }

    /** Packets of every queue in the iteration, as a rate: the aggregate figure. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Aggregate {
        /** Packets of all queues this iteration (an OPERATIONS counter: JMH reports it per second). */
        public long aggregatePackets;
        private long own;
        private long backgroundAtStart;

        @Setup(Level.Iteration)
        public void clear(Shared shared) {
            aggregatePackets = 0;
            own = 0;
            backgroundAtStart = shared.backgroundPackets.sum();
        }

        void add(Shared shared) {
            own += BatchedPacketsBenchmark.BATCH;
            aggregatePackets = own + shared.backgroundPackets.sum() - backgroundAtStart;
        }
    }

    /** One batch into the first queue; scored per packet of that queue, the aggregate in the counter. */
    @Benchmark
    @OperationsPerInvocation(BatchedPacketsBenchmark.BATCH)
    public long batch(Shared shared, Aggregate aggregate) {
        long r = shared.first.batch(shared.kernelObject);
        shared.check();
        aggregate.add(shared);
        return r;
    }
}
