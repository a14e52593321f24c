package org.hsa4j.benchmarks.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

import org.hsa4j.benchmarks.Waits;
import org.hsa4j.cuda.CudaBuffer;
import org.hsa4j.cuda.CudaKernel;
import org.hsa4j.cuda.CudaModule;
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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * FIGURE (issue 19 part 2): host services called from CUDA kernels through {@code hsa4j_rpc.cuh},
 * in nanoseconds per call, against the host-GPU ping-pong of the same run.
 * <ul>
 * <li>{@code nopRoundTrip}: one GPU thread makes {@value #ROUND_TRIP_CALLS} no-op calls in a row
 *     ({@code hsa4j_rpc_nop}, one dispatch per invocation, so the launch is spread over them): the
 *     round trip of one call.
 * <li>{@code pingPong}, the baseline: {@code hsa4j_pingpong} with the same number of rounds, the host
 *     writing 2k+1 into pinned memory and the kernel answering 2k+2 (one dispatch per invocation):
 *     the floor of any round trip over PCIe. Goal: nopRoundTrip at most 2x pingPong.
 * <li>{@code nopOneWarp}: 32 threads (one warp: one call per round carries all 32 lanes) x
 *     {@value #WARP_CALLS} calls: ns per thread's call (the throughput at 32 callers is its inverse).
 * <li>{@code nop4096Threads}: 4096 threads x {@value #MANY_CALLS} calls through
 *     {@value #DEVICE_PORTS} device ports: ns per thread's call at 4096 callers.
 * </ul>
 * Self-check: every dispatch checks each thread's status (0) and the ping-pong's last answer.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class CudaRpcBenchmark {
    static final int ROUND_TRIP_CALLS = 1024;
    static final int WARP_CALLS = 256;
    static final int MANY_THREADS = 4096;
    static final int MANY_CALLS = 16;
    static final int DEVICE_PORTS = 64;
    /** Polls of one ping-pong round before the kernel gives up (seconds). */
    private static final long SPIN_LIMIT = 200_000_000L;
    private static final long ROUND_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final VarHandle INT = JAVA_INT.varHandle();

    private Trial trial;
    private CudaBench gpu;
    private Services services;
    private CudaKernel nop;
    private CudaKernel pingpong;
    private long ctx;
    private long status;
    private long oneKernarg;
    private long warpKernarg;
    private long manyKernarg;
    private long pingKernarg;
    private MemorySegment flag;
    private Signal done;

    @Setup(Level.Trial)
    public void start() {
        trial = new Trial();
        gpu = trial.gpu(256);
        services = trial.own(Services.start(trial.runtime, ServicesConfig.builder().devicePorts(DEVICE_PORTS).build()));
        CudaModule rpc = CudaRpc.loadKernels(gpu.agent);
        nop = rpc.kernel("hsa4j_rpc_nop");
        pingpong = gpu.kernel("hsa4j_pingpong");
        ctx = CudaRpc.newContext(gpu.agent, services.ports().address());
        status = gpu.agent.svmPool().allocate(4L * MANY_THREADS);
        oneKernarg = nopKernarg(ROUND_TRIP_CALLS, 1);
        warpKernarg = nopKernarg(WARP_CALLS, 32);
        manyKernarg = nopKernarg(MANY_CALLS, MANY_THREADS);
        CudaBuffer pinned = trial.own(gpu.agent.allocatePinned(64));
        flag = pinned.hostSegment();
        pingKernarg = gpu.kernarg(24);
        MemorySegment args = gpu.kernargBytes(pingKernarg, 24);
        args.set(JAVA_LONG, 0, pinned.address());
        args.set(JAVA_INT, 8, ROUND_TRIP_CALLS);
        args.set(JAVA_LONG, 16, SPIN_LIMIT);
        done = trial.runtime.createSignal(0);
    }

    /** hsa4j_rpc_nop(ctx, status, calls, n). */
    private long nopKernarg(int calls, int threads) {
        long ka = gpu.kernarg(24);
        MemorySegment args = gpu.kernargBytes(ka, 24);
        args.set(JAVA_LONG, 0, ctx);
        args.set(JAVA_LONG, 8, status);
        args.set(JAVA_INT, 16, calls);
        args.set(JAVA_INT, 20, threads);
        return ka;
    }

    @TearDown(Level.Trial)
    public void stop() {
        trial.close();
    }

    private void runNop(long kernarg, int threads) {
        Svm svm = trial.runtime.svm();
        svm.setInt(status, -1);
        svm.setInt(status + 4L * (threads - 1), -1);
        done.storeRelaxed(1);
        gpu.dispatch(nop, Math.min(threads, 256), threads, kernarg, done);
        Waits.await(done, SignalCondition.EQ, 0, WaitState.ACTIVE);
        int first = svm.getInt(status);
        int last = svm.getInt(status + 4L * (threads - 1));
        if (first != 0 || last != 0) {
            throw new IllegalStateException("a no-op call from the GPU failed: thread 0 " + CudaRpc.describe(first)
                    + ", thread " + (threads - 1) + " " + CudaRpc.describe(last));
        }
    }

    @Benchmark
    @OperationsPerInvocation(ROUND_TRIP_CALLS)
    public void nopRoundTrip() {
        runNop(oneKernarg, 1);
    }

    @Benchmark
    @OperationsPerInvocation(32 * WARP_CALLS)
    public void nopOneWarp() {
        runNop(warpKernarg, 32);
    }

    @Benchmark
    @OperationsPerInvocation(MANY_THREADS * MANY_CALLS)
    public void nop4096Threads() {
        runNop(manyKernarg, MANY_THREADS);
    }

    @Benchmark
    @OperationsPerInvocation(ROUND_TRIP_CALLS)
    public void pingPong() {
        INT.setVolatile(flag, 0L, 0);
        done.storeRelaxed(1);
        gpu.dispatch(pingpong, 1, 1, pingKernarg, done);
        for (int k = 0; k < ROUND_TRIP_CALLS; k++) {
            INT.setVolatile(flag, 0L, 2 * k + 1);
            long deadline = System.nanoTime() + ROUND_NANOS;
            int v;
            while ((v = (int) INT.getVolatile(flag, 0L)) != 2 * k + 2) {
                if (v == -1 || System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the ping-pong kernel gave up or stopped answering in round " + k
                            + " (flag " + v + ")");
                }
                Thread.onSpinWait();
            }
        }
        Waits.await(done, SignalCondition.EQ, 0, WaitState.ACTIVE);
    }
}
