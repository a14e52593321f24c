package org.hsa4j.benchmarks.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.hsa4j.benchmarks.Waits;
import org.hsa4j.cuda.CudaBuffer;
import org.hsa4j.cuda.CudaKernel;
import org.hsa4j.cuda.CudaRpc;
import org.hsa4j.memory.Svm;
import org.hsa4j.services.Services;
import org.hsa4j.services.ServicesConfig;
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
 * FIGURE (issue 19 part 2): the seed's MilThread table from a CUDA kernel, microseconds per dispatch
 * of {@code hsa4j_rpc_milthread} over {@code threads} threads, each allocating a 64-byte block,
 * writing and checking its eight words and freeing it.
 * <ul>
 * <li>{@code gpuHeap}: {@code hsa4j_gheap.cuh}, metadata in device memory (L2 atomics), chunks of
 *     64 KiB from the host's malloc over RPC only when a class is full (the heap is kept across
 *     invocations, as a program's heap is: after the first, no RPC at all).
 * <li>{@code hostMalloc}: the host's malloc and free over RPC, one warp-batched call each.
 * </ul>
 * Self-check: every dispatch checks the first and last thread's result (0).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class CudaHeapBenchmark {
    static final int DEVICE_PORTS = 64;
    static final int MAX_THREADS = 65536;

    @Param({"256", "4096", "65536"})
    public int threads;

    private Trial trial;
    private CudaBench gpu;
    private CudaKernel milthread;
    private CudaBuffer heap;
    private long results;
    private long heapKernarg;
    private long hostKernarg;
    private Signal done;

    @Setup(Level.Trial)
    public void start() {
        trial = new Trial();
        gpu = trial.gpu(256);
        Services services = trial.own(Services.start(trial.runtime, ServicesConfig.builder().devicePorts(DEVICE_PORTS).build()));
        milthread = CudaRpc.loadKernels(gpu.agent).kernel("hsa4j_rpc_milthread");
        long ctx = CudaRpc.newContext(gpu.agent, services.ports().address());
        heap = trial.own(CudaRpc.createHeap(gpu.agent));
        results = gpu.agent.svmPool().allocate(8L * MAX_THREADS);
        heapKernarg = kernarg(ctx, heap.address());
        hostKernarg = kernarg(ctx, 0);
        done = trial.runtime.createSignal(0);
    }

    /** hsa4j_rpc_milthread(ctx, heap, results, n). */
    private long kernarg(long ctx, long heapAddress) {
        long ka = gpu.kernarg(32);
        MemorySegment args = gpu.kernargBytes(ka, 32);
        args.set(JAVA_LONG, 0, ctx);
        args.set(JAVA_LONG, 8, heapAddress);
        args.set(JAVA_LONG, 16, results);
        args.set(JAVA_INT, 24, threads);
        return ka;
    }

    @TearDown(Level.Trial)
    public void stop() {
        trial.close();
    }

    private void run(long kernarg) {
        Svm svm = trial.runtime.svm();
        svm.setLong(results, 1);
        svm.setLong(results + 8L * (threads - 1), 1);
        done.storeRelaxed(1);
        gpu.dispatch(milthread, Math.min(threads, 256), threads, kernarg, done);
        Waits.await(done, SignalCondition.EQ, 0, WaitState.ACTIVE);
        long first = svm.getLong(results);
        long last = svm.getLong(results + 8L * (threads - 1));
        if (first != 0 || last != 0) {
            throw new IllegalStateException("milthread failed: thread 0 " + first + ", thread " + (threads - 1) + " " + last
                    + " (-1 null, -2 - w word w wrong, -100 + HeapStatus free failed, " + CudaRpc.describe(first) + ")");
        }
    }

    @Benchmark
    public void gpuHeap() {
        run(heapKernarg);
    }

    @Benchmark
    public void hostMalloc() {
        run(hostKernarg);
    }
}
