package org.hsa4j.benchmarks.services;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CompletionFuture;
import org.hsa4j.amp.ContextKernel;
import org.hsa4j.amp.Extent;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.memory.Svm;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.services.Services;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.services.aql.AgentDispatchClient;
import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.RpcClient;
import org.hsa4j.services.rpc.RpcStatus;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * FIGURE: round trip of a no-op service call from a kernel with ACTIVE waiting, beside the raw
 * ping-pong floor between the same two threads, in the same run.
 *
 * <p>What it measures: one work-item (on a GPU agent with one compute unit) makes {@value #CALLS}
 * calls back to back, and the time per call is reported. {@link #rpcNop} calls
 * {@link Opcodes#NOP} through an RPC port with ACTIVE waiting on both ends (the client spins for
 * its reply and the server thread for the next call up to 200 us before parking, as an ACTIVE
 * signal wait does); {@link #agentDispatchNop} makes the same call through agent dispatch packets
 * on the CPU agent. The baseline {@link #rawPingPong} runs the same kernel shape, but each of its
 * iterations is one bare ping-pong of a cache line in SVM with a host thread that spins on it:
 * the least any GPU-to-host round trip must do; its host thread exists only in rawPingPong's trials
 * (idle, it parks 50 us at a time, and its wake-ups would steal a core from the other two
 * benchmarks' threads). The kernel's dispatch is paid once per
 * {@value #CALLS} calls in all three, so it is in all of them alike and nearly nothing in each.
 * {@link #ampNop} makes {@link #rpcNop}'s calls from a C++AMP kernel through its
 * {@code KernelContext} (a parallelForEach over one index, on its own view's queue, the host
 * waiting BLOCKED as for the others; the layer exists only in ampNop's trials).
 * Goal (issue services): rpcNop within 3x rawPingPong. Goal (issue 22): ampNop within 1.2x rpcNop.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class ServiceRoundTripBenchmark {
    /** Calls (or ping-pongs) per dispatch. */
    static final int CALLS = 2000;
    /** Spin of both ends before they park: an ACTIVE wait spins as long as ROCR's (200 us). */
    static final long ACTIVE_SPIN_NANOS = 200_000;
    private static final long STOP = -1;
    private static final Extent ONE = new Extent(1);

    private HsaRuntime rt;
    private Services services;
    private Queue queue;
    private KernelLoop rpc;
    private KernelLoop aql;
    private KernelLoop raw;
    private long line;
    private Thread partner;
    private Amp amp;
    private ContextKernel ampKernel;
    private volatile boolean failed;

    @Setup(Level.Trial)
    public void start(BenchmarkParams params) {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        services = Services.start(rt, ServicesConfig.builder().waitState(WaitState.ACTIVE)
                .idleSpinNanos(ACTIVE_SPIN_NANOS).build());
        queue = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        RpcClient client = services.client(WaitState.ACTIVE);
        rpc = new KernelLoop(rt, queue, KernelDescriptor.EMPTY, wi -> {
            long[] inOut = new long[8];
            for (int i = 0; i < CALLS; i++) {
                if (client.invoke(wi, Opcodes.NOP, inOut) != RpcStatus.OK) {
                    throw new IllegalStateException("NOP failed");
                }
            }
        });
        AgentDispatchClient agent = services.agentDispatchClient(64, 4);
        aql = new KernelLoop(rt, queue, KernelDescriptor.EMPTY, wi -> {
            for (int i = 0; i < CALLS; i++) {
                agent.call(wi, Opcodes.NOP);
            }
        });
        if (params.getBenchmark().endsWith(".ampNop")) {
            amp = Amp.on(rt);
            ampKernel = (idx, ctx) -> {
                long[] inOut = new long[8];
                for (int i = 0; i < CALLS; i++) {
                    if (client.invoke(ctx, Opcodes.NOP, inOut) != RpcStatus.OK) {
                        throw new IllegalStateException("NOP failed");
                    }
                }
            };
        }
        line = rt.hostMalloc(64);
        rt.svm().storeLongRelease(line, 0);
        raw = new KernelLoop(rt, queue, KernelDescriptor.EMPTY, wi -> {
            Svm svm = wi.svm();
            long at = KernelLoop.arg(wi, 0);
            long v = svm.loadLongAcquire(at);
            for (int i = 0; i < CALLS; i++) {
                svm.storeLongRelease(at, v + 1);
                v += 2;
                while (svm.loadLongAcquire(at) != v) {
                    Thread.onSpinWait();
                }
            }
        });
        // the partner runs only in rawPingPong's trials: idle, it wakes every 50 us, which in the
        // other benchmarks' trials would take one of the machine's cores from the two threads
        // they measure (20,000 wake-ups a second on 2 cores)
        if (params.getBenchmark().endsWith(".rawPingPong")) {
            partner = new Thread(this::answer, "services-bench-pong");
            partner.setDaemon(true);
            partner.start();
        }
    }

    /** Answers every odd value with the next even one, spinning (then parking when idle for long). */
    private void answer() {
        Svm svm = rt.svm();
        long seen = 0;
        int idle = 0;
        try {
            while (true) {
                long v = svm.loadLongAcquire(line);
                if (v == STOP) {
                    return;
                }
                if (v != seen && (v & 1) == 1) {
                    seen = v + 1;
                    svm.storeLongRelease(line, seen);
                    idle = 0;
                } else if (++idle < 1 << 16) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(50_000);
                }
            }
        } catch (RuntimeException e) {
            failed = true;
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
        rt.svm().storeLongRelease(line, STOP);
        if (partner != null) {
            partner.join(10_000);
        }
        if (amp != null) {
            amp.close();
        }
        services.close();
        rt.close();
        if (failed) {
            throw new IllegalStateException("the ping-pong partner failed");
        }
    }

    /** One no-op service call through an RPC port, ACTIVE waiting. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void rpcNop() {
        rpc.run(1, 1, 0);
    }

    /** One no-op service call through an RPC port from a C++AMP kernel, ACTIVE waiting. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void ampNop() {
        CompletionFuture f = amp.parallelForEach(ONE, ampKernel);
        f.wait(WaitState.BLOCKED); // as KernelLoop waits: a spinning host would take a core from the two measured threads
        f.get();
    }

    /** One no-op service call through an agent dispatch packet on the CPU agent. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void agentDispatchNop() {
        aql.run(1, 1, 0);
    }

    /** BASELINE: one ping-pong of an SVM cache line between the work-item and a spinning host thread. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void rawPingPong() {
        raw.run(1, 1, 0, line);
    }
}
