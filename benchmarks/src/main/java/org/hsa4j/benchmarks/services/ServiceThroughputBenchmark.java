package org.hsa4j.benchmarks.services;

import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
import org.hsa4j.services.rpc.GroupCall;
import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.RpcClient;
import org.hsa4j.services.rpc.RpcStatus;
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
 * FIGURE: service calls per second with 1, 64 and 4096 concurrent callers.
 *
 * <p>What it measures: each op is one dispatch of {@code callers} work-items (workgroups of up to
 * 64, on the default GPU agent: one compute unit per core) that together make {@value #CALLS}
 * no-op calls ({@code CALLS / callers} each), with the default services (one server thread,
 * BLOCKED clients, automatic port count); the score is calls per second. With 1 caller every call
 * waits for the previous; with 4096 callers the calls of all compute units overlap and the
 * server thread drains several ports per pass. {@link #wavefrontBatched} makes the same 4096 calls
 * with {@link GroupCall} per wavefront (one port round trip carries 64 lanes), for comparison.
 * The dispatch is in every op alike (its cost is about one call's).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class ServiceThroughputBenchmark {
    /** Calls per op. */
    static final int CALLS = 4096;

    @Param({"1", "64", "4096"})
    public int callers;

    private HsaRuntime rt;
    private Services services;
    private Queue queue;
    private KernelLoop single;
    private KernelLoop batched;

    @Setup(Level.Trial)
    public void start() {
        rt = HsaRuntime.init();
        services = Services.start(rt);
        queue = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        RpcClient client = services.client();
        single = new KernelLoop(rt, queue, KernelDescriptor.EMPTY, wi -> {
            long each = KernelLoop.arg(wi, 0);
            long[] inOut = new long[8];
            for (long i = 0; i < each; i++) {
                if (client.invoke(wi, Opcodes.NOP, inOut) != RpcStatus.OK) {
                    throw new IllegalStateException("NOP failed");
                }
            }
        });
        GroupCall group = new GroupCall(client, GroupCall.Scope.WAVEFRONT, 0);
        batched = new KernelLoop(rt, queue, KernelDescriptor.EMPTY.withBarriers(), wi -> {
            long[] inOut = new long[8];
            if (group.call(wi, Opcodes.NOP, inOut) != RpcStatus.OK) {
                throw new IllegalStateException("batched NOP failed");
            }
        });
    }

    @TearDown(Level.Trial)
    public void stop() {
        services.close();
        rt.close();
    }

    /** {@value #CALLS} single-lane calls from {@code callers} work-items. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void calls() {
        single.run(callers, Math.min(callers, 64), 0, CALLS / callers);
    }

    /** {@value #CALLS} calls from 4096 work-items, batched per wavefront (the callers parameter does not apply). */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void wavefrontBatched() {
        batched.run(CALLS, 256, (int) GroupCall.groupBytes(256));
    }
}
