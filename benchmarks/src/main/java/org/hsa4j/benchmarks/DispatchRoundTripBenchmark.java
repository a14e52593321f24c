package org.hsa4j.benchmarks;

import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
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
 * FIGURE: the round trip of one empty-kernel dispatch through the raw AQL protocol.
 *
 * <p>What it measures: per op, the host thread re-arms the completion signal to 1
 * ({@code storeRelaxed}), reserves a packet id ({@code addWriteIndexScacqScrel}), checks the slot
 * is free, writes the body of a 1-work-item kernel dispatch packet, publishes header and setup with
 * the one 32-bit release store, rings the doorbell, and waits until the completion signal reads 0,
 * with an ACTIVE or a BLOCKED wait ({@link #waitState}). In between the runtime's packet processor
 * notices the packet, validates it, launches it, a compute unit runs the empty kernel and decrements
 * the signal. One queue, one signal and one kernel object are reused for every op, as an
 * application issuing many small dispatches would.
 *
 * <p>Why it is fair: it is the full user-visible path of the spec's submission protocol with
 * nothing skipped (the same steps as RawDispatchProtocolTest), on the runtime's default
 * configuration ({@code HsaRuntime.init()}: one GPU agent with a compute unit per core; HSA4J_*
 * environment variables change it), and with an empty kernel so only the runtime's overhead is
 * measured. Goals
 * (issue hsa-runtime), each against a baseline from the same JMH run:
 * ACTIVE wait within 6x the raw ping-pong ({@link RawPingPongBenchmark}), the floor for any
 * round trip; BLOCKED wait no slower than {@code ExecutorService.submit().get()}
 * ({@link ExecutorBaselineBenchmark#submitGet()}), the plain-Java way to hand off and wait.
 * {@link #launchCall()} makes the same round trip with the one launch call and its completion's
 * join: within 1.1x {@link #roundTrip()} (issue 22).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class DispatchRoundTripBenchmark {
    /** How the host waits for the completion signal. */
    @Param({"ACTIVE", "BLOCKED"})
    public WaitState waitState;

    private static final short HEADER =
            PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM);

    private HsaRuntime rt;
    private Queue queue;
    private Signal done;
    private Executable executable;
    private long kernelObject;
    private final KernelDispatchPacket packet = new KernelDispatchPacket();

    @Setup(Level.Trial)
    public void start() {
        rt = HsaRuntime.init();
        queue = rt.gpuAgent().createQueue(256, QueueType.SINGLE, null);
        done = rt.createSignal(0);
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

    /** One empty-kernel dispatch, from reserving the packet id to seeing the completion signal at 0. */
    @Benchmark
    public long roundTrip() {
        done.storeRelaxed(1);
        long id = queue.addWriteIndexScacqScrel(1);
        queue.waitForSpace(id);
        packet.wrap(queue.ring(), queue.slotOffset(id))
                .workgroupSize(1, 1, 1)
                .gridSize(1, 1, 1)
                .privateSegmentSize(0)
                .groupSegmentSize(0)
                .kernelObject(kernelObject)
                .kernargAddress(0)
                .completionSignal(done.handle());
        packet.publish(HEADER, 1);
        queue.ringDoorbell(id);
        return Waits.await(done, SignalCondition.EQ, 0, waitState);
    }

    /**
     * The same round trip through the launch call: {@code queue.dispatch} (pooled signal re-armed by
     * the runtime, reserve, write, publish, ring) and {@code join} with the same wait state. Goal
     * (issue 22): within 1.1x {@link #roundTrip()} of the same run.
     */
    @Benchmark
    public Object launchCall() {
        DispatchCompletion c = queue.dispatch(kernelObject, 1, 1);
        c.join(waitState);
        return c;
    }

    /**
     * Diagnosis of {@link #launchCall()}'s cost: the launch builder with this benchmark's own
     * signal and no kernarg block (nothing pooled), joined the same way. On a quiet 2-core machine
     * (2026-11-25) each of the three round trips showed, in some forks and not others, a second mode
     * about a microsecond slower (p90 1.3-1.5 us against 0.5 us), whichever of them it was: compare
     * them over many forks ({@code -f 10}), not two.
     */
    @Benchmark
    public Object launchCallOwnSignal() {
        done.storeRelaxed(1);
        DispatchCompletion c = queue.launch(kernelObject).completion(done).dispatch();
        c.join(waitState);
        return c;
    }
}
