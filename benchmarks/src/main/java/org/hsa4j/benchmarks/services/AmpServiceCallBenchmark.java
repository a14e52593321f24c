package org.hsa4j.benchmarks.services;

import java.util.concurrent.TimeUnit;

import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CompletionFuture;
import org.hsa4j.amp.ContextKernel;
import org.hsa4j.amp.Extent;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.services.Services;
import org.hsa4j.services.memory.DeviceHeap;
import org.hsa4j.services.memory.HeapStatus;
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
 * FIGURE: a service call from a C++AMP kernel (through its {@code KernelContext}) beside the same
 * call from a raw kernel (through its {@code WorkItem}), in the same run.
 *
 * <p>What it measures: one work-item (one index) on a GPU agent with one compute unit makes
 * {@value #CALLS} device-heap malloc/free pairs back to back, and the time per pair is reported.
 * The device heap is a service whose calls stay on the agent once its chunk is filled (atomics on
 * SVM; the host is asked only to refill), so the figure holds the caller-side cost of a service
 * call, the part that differs between the two kernels, without a second thread's scheduling in it:
 * on a loaded machine the RPC round trip of {@link ServiceRoundTripBenchmark#ampNop} is dominated
 * by when the server thread next runs. {@link #rawKernel} is the baseline; the dispatch (a raw
 * packet, or a parallelForEach and its future, the host waiting BLOCKED in both) is paid once per
 * {@value #CALLS} calls. Goal (issue 22): ampKernel within 1.2x rawKernel.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class AmpServiceCallBenchmark {
    /** Calls per dispatch. */
    static final int CALLS = 20_000;
    private static final Extent ONE = new Extent(1);

    private HsaRuntime rt;
    private Services services;
    private Amp amp;
    private KernelLoop raw;
    private ContextKernel ampKernel;

    @Setup(Level.Trial)
    public void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        services = Services.start(rt);
        DeviceHeap heap = services.deviceHeap();
        Queue queue = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        raw = new KernelLoop(rt, queue, KernelDescriptor.EMPTY, wi -> {
            for (int i = 0; i < CALLS; i++) {
                if (heap.free(wi, heap.malloc(wi, 64)) != HeapStatus.OK) {
                    throw new IllegalStateException("device heap free failed");
                }
            }
        });
        amp = Amp.on(rt);
        ampKernel = (idx, ctx) -> {
            for (int i = 0; i < CALLS; i++) {
                if (heap.free(ctx, heap.malloc(ctx, 64)) != HeapStatus.OK) {
                    throw new IllegalStateException("device heap free failed");
                }
            }
        };
    }

    @TearDown(Level.Trial)
    public void stop() {
        amp.close();
        services.close();
        rt.close();
    }

    /** One device-heap malloc/free pair from a C++AMP kernel through its KernelContext. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void ampKernel() {
        CompletionFuture f = amp.parallelForEach(ONE, ampKernel);
        f.wait(WaitState.BLOCKED);
        f.get();
    }

    /** BASELINE: the same pair from a raw kernel through its WorkItem. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void rawKernel() {
        raw.run(1, 1, 0);
    }
}
