package org.hsa4j.benchmarks.cuda;

import java.util.concurrent.TimeUnit;

import org.hsa4j.benchmarks.Dispatches;
import org.hsa4j.benchmarks.Waits;
import org.hsa4j.cuda.CudaKernel;
import org.hsa4j.cuda.CudaStream;
import org.hsa4j.queue.Queue;
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
 * FIGURE (issue 18): the round trip of one empty-kernel dispatch on the GPU, host write to
 * completion signal observed.
 *
 * <p>What it measures, per op ({@link #side}):
 * <ul>
 * <li>HSA4J_AQL: re-arm the completion signal, reserve a packet id, write and publish a 1-work-item
 *     dispatch of {@code hsa4j_empty} on the CUDA agent's AQL queue, ring the doorbell, spin (ACTIVE)
 *     until the signal reads 0. In between, the queue's host processor thread sees the packet,
 *     launches it with {@code cuLaunchKernel}, sees its event complete and decrements the signal.
 * <li>HSA4J_RESIDENT: the same op on a GPU-resident queue ({@code CudaAgent.createResidentQueue}) with
 *     the built-in resident kernel {@code hsa4j_r_empty} and a signal from {@code CudaAgent.createSignal}:
 *     the processor grid reads the packet, runs it and decrements the signal; no host thread in between.
 * <li>RAW_CUDA, the baseline: {@code cuLaunchKernel} of the same kernel on one stream, then
 *     {@code cuStreamSynchronize}.
 * <li>CPU_POOL, a reference line: the HSA4J_AQL op on the runtime's CPU-pool agent with an empty
 *     Java kernel (as {@code DispatchRoundTripBenchmark} ACTIVE).
 * </ul>
 * Goals: HSA4J_AQL at most 1.5x RAW_CUDA (issue 18), HSA4J_RESIDENT at most 0.5x RAW_CUDA (issue 19),
 * all from the same JMH run. Self-check: every op waits for
 * its own completion (bounded), and the queue's error callback fails the trial at teardown.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class CudaDispatchRoundTripBenchmark {
    /** hsa4j's AQL path, the raw-CUDA baseline, or the CPU-pool reference. */
    @Param({"HSA4J_AQL", "HSA4J_RESIDENT", "RAW_CUDA", "CPU_POOL"})
    public Side side;

    private Trial trial;
    private CudaBench gpu;
    private CudaStream stream;
    private CudaKernel empty;
    private Queue cpuQueue;
    private long cpuKernel;
    private Signal done;
    private Queue residentQueue;
    private long residentEmpty;

    @Setup(Level.Trial)
    public void start() {
        trial = new Trial();
        done = trial.runtime.createSignal(0);
        if (side == Side.CPU_POOL) {
            cpuQueue = trial.cpuQueue(256);
            cpuKernel = trial.cpuKernel("empty", wi -> {
            });
            return;
        }
        gpu = trial.gpu(256);
        empty = gpu.kernel("hsa4j_empty");
        if (side == Side.HSA4J_RESIDENT) {
            residentQueue = gpu.resident(256);
            residentEmpty = gpu.residentKernel("hsa4j_r_empty");
            done = gpu.agent.createSignal(0);   // in the registered SVM: the grid decrements it
        }
        if (side == Side.RAW_CUDA) {
            stream = trial.stream();
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        trial.close();
    }

    /** One empty-kernel dispatch and its completion observed. */
    @Benchmark
    public long roundTrip() {
        switch (side) {
            case RAW_CUDA -> {
                stream.launch(empty, 1, 1, null);
                stream.synchronize();
                return 0;
            }
            case HSA4J_AQL -> {
                done.storeRelaxed(1);
                gpu.dispatch(empty, 1, 1, 0, done);
            }
            case HSA4J_RESIDENT -> {
                done.storeRelaxed(1);
                Dispatches.submitOne(residentQueue, residentEmpty, 1, 1, 0, done);
            }
            case CPU_POOL -> {
                done.storeRelaxed(1);
                Dispatches.submitOne(cpuQueue, cpuKernel, 1, 1, 0, done);
            }
        }
        return Waits.await(done, SignalCondition.EQ, 0, WaitState.ACTIVE);
    }
}
