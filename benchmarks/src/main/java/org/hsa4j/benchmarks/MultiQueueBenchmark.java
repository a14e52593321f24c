package org.hsa4j.benchmarks;

import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.packet.KernelDispatchPacket;
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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * SCALING (information): aggregate empty-dispatch throughput with one queue per host thread.
 *
 * <p>What it measures: each JMH thread owns a {@value BatchedPacketsBenchmark#QUEUE_SIZE}-slot
 * queue of one shared runtime (default compute units) and streams {@value BatchedPacketsBenchmark#BATCH}
 * empty 1-work-item dispatches per doorbell into it, the last with the barrier bit and the thread's
 * completion signal, exactly as {@link DispatchScalingBenchmark}; JMH sums the threads' packets/s.
 * Run it with {@code -t 1}, {@code -t 2}, {@code -t 4} and {@code -t 8} for 1, 2, 4 and 8 queues
 * fed by as many host threads (issue 20's goal: 8 queues at least the 1-queue figure).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 3, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
public class MultiQueueBenchmark {
    /** The runtime and the empty kernel, shared by every thread. */
    @State(Scope.Benchmark)
    public static class Shared {
        HsaRuntime rt;
        Executable executable;
        long kernelObject;

        @Setup(Level.Trial)
        public void start() {
            rt = HsaRuntime.init(RuntimeConfig.defaults());
            executable = rt.createExecutable().define("empty", KernelDescriptor.EMPTY, wi -> {
            }).freeze();
            kernelObject = executable.symbol("empty").kernelObject();
        }

        @TearDown(Level.Trial)
        public void stop() {
            if (rt != null) {
                rt.close();
            }
        }
    }

    /** One host thread's queue and completion signal. */
    @State(Scope.Thread)
    public static class Feeder {
        Queue queue;
        Signal done;
        final KernelDispatchPacket kernel = new KernelDispatchPacket();

        @Setup(Level.Trial)
        public void start(Shared shared) {
            queue = shared.rt.gpuAgent().createQueue(BatchedPacketsBenchmark.QUEUE_SIZE, QueueType.SINGLE, null);
            done = shared.rt.createSignal(0);
        }
    }

    /** One batch into this thread's queue, one doorbell, one wait; scored per packet. */
    @Benchmark
    @OperationsPerInvocation(BatchedPacketsBenchmark.BATCH)
    public long batch(Shared shared, Feeder f) {
        f.done.storeRelaxed(1);
        long first = f.queue.addWriteIndexScacqScrel(BatchedPacketsBenchmark.BATCH);
        long last = first + BatchedPacketsBenchmark.BATCH - 1;
        f.queue.waitForSpace(last);
        BatchedPacketsBenchmark.writeKernels(f.kernel, f.queue, first, last, shared.kernelObject, f.done.handle());
        f.queue.ringDoorbell(last);
        return Waits.await(f.done, SignalCondition.EQ, 0, WaitState.ACTIVE);
    }
}
