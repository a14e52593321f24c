package org.hsa4j.benchmarks;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * FIGURE: host-to-kernel signal ping-pong (the sync_2way pattern of persistent kernels).
 *
 * <p>What it measures: a persistent kernel of one work-item, dispatched once in the trial's setup,
 * loops on the Signal API: it obtains signals A and B with {@code rt.signal(handle)} from the
 * handles in its kernarg segment, waits (ACTIVE) until A changes, and answers by storing the value
 * it saw into B ({@code storeScrelease}). One op is one round trip seen from the host: store the
 * next sequence number into A ({@code storeScrelease}), wait (ACTIVE) until B holds it.
 *
 * <p>Why it is fair: both sides go through the public signal operations an application would use
 * (with their waiter bookkeeping and wake-ups), and the kernel runs on a compute unit of the
 * runtime's default configuration ({@code HsaRuntime.init()}), not on a thread of the benchmark's making. It is the same
 * exchange as {@link RawPingPongBenchmark} (one value there, one value back), so that is its
 * baseline, measured in the same JMH run; goal (issue hsa-runtime): within 2x of it.
 *
 * <p>The kernel is stopped cleanly in the teardown: the host stores a sentinel into A, the kernel
 * returns, and the host waits (bounded) for the dispatch's completion signal before closing the
 * runtime, so the runtime closes with no kernel running.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class SignalPingPongBenchmark {
    /** Value of A that tells the kernel to return. */
    static final long STOP = -1;
    /** Longest single wait of the kernel before it looks again (it waits until stopped). */
    private static final long KERNEL_WAIT_NANOS = 1_000_000_000L;

    private HsaRuntime rt;
    private Signal ping;
    private Signal pong;
    private Signal kernelDone;
    private Executable executable;
    private long sequence;

    @Setup(Level.Trial)
    public void start() {
        rt = HsaRuntime.init();
        ping = rt.createSignal(0);
        pong = rt.createSignal(0);
        kernelDone = rt.createSignal(1);
        HsaRuntime runtime = rt;
        executable = rt.createExecutable()
                .define("sync_2way", KernelDescriptor.withKernarg(16), wi -> answer(runtime, wi))
                .freeze();
        Queue queue = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        queue.launch(executable.symbol("sync_2way").kernelObject()).args(ping.handle(), pong.handle())
                .completion(kernelDone).dispatch();
        sequence = 0;
    }

    @TearDown(Level.Trial)
    public void stop() {
        if (rt == null) {
            return;
        }
        try {
            ping.storeScrelease(STOP);
            Waits.await(kernelDone, SignalCondition.EQ, 0, WaitState.BLOCKED);
        } finally {
            rt.close();
        }
    }

    /** The persistent kernel: answer every new value of A by storing it into B, until A holds {@link #STOP}. */
    static void answer(HsaRuntime rt, WorkItem wi) {
        Signal in = rt.signal(wi.kernarg().get(ValueLayout.JAVA_LONG, 0));
        Signal out = rt.signal(wi.kernarg().get(ValueLayout.JAVA_LONG, 8));
        long seen = 0;
        while (true) {
            long v = in.waitScacquire(SignalCondition.NE, seen, KERNEL_WAIT_NANOS, WaitState.ACTIVE);
            if (v == seen) {
                continue;
            }
            if (v == STOP) {
                return;
            }
            seen = v;
            out.storeScrelease(v);
        }
    }

    /** One round trip: the next sequence number into A, then wait until the kernel has copied it into B. */
    @Benchmark
    public long roundTrip() {
        long next = ++sequence;
        ping.storeScrelease(next);
        return Waits.await(pong, SignalCondition.EQ, next, WaitState.ACTIVE);
    }
}
