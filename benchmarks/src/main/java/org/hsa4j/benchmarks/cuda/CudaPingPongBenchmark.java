package org.hsa4j.benchmarks.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

import org.hsa4j.benchmarks.Dispatches;
import org.hsa4j.benchmarks.Waits;
import org.hsa4j.cuda.CudaBuffer;
import org.hsa4j.cuda.CudaKernel;
import org.hsa4j.cuda.CudaStream;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.SignalDescriptor;
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
 * FIGURE (issue 18): host-GPU ping-pong, one round trip per op.
 *
 * <p>HSA4J_SIGNALS is the figure, "a CUDA kernel waits on an hsa4j signal and answers on
 * another": two signals from {@code CudaAgent.createSignal} (their values in real-address SVM the
 * device reaches), the kernel {@code hsa4j_signal_serve} dispatched through the CUDA agent's AQL
 * queue, the host storing k+1 into the ping signal ({@code storeScrelease}) and waiting for k+1 on
 * the pong signal ({@code waitScacquire}, ACTIVE). HSA4J_AQL is the same kernel-dispatch path with
 * the turns taken on one int in pinned memory ({@code hsa4j_pingpong_serve}), as {@code CudaSeeds
 * pingpong} does: the host writes 2k+1 (release), the kernel answers 2k+2.
 * <ul>
 * <li>HSA4J_SIGNALS: the signal-serving kernel dispatched through the AQL queue, turns on hsa4j signals.
 * <li>HSA4J_AQL: the serving kernel dispatched through the AQL queue (its completion signal is
 *     awaited at teardown, after the host writes the stop value).
 * <li>RAW_CUDA, the baseline: the same kernel launched with {@code cuLaunchKernel} on a stream of
 *     its own: the raw CUDA ping-pong through pinned memory.
 * <li>CPU_POOL, a reference line: a Java kernel on the CPU-pool agent serving the same protocol on
 *     an int in SVM.
 * </ul>
 * Goal: HSA4J_SIGNALS at most 1.25x RAW_CUDA, both from the same JMH run. Self-check: every op checks
 * the answer is its own round's (a -1 means the kernel gave up), and teardown checks the kernel ended
 * through the stop value, within a bounded wait.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class CudaPingPongBenchmark {
    /** The value that makes the serving kernel return. */
    static final int STOP = -2;
    /** Polls of one round before the GPU kernel gives up (tens of seconds: longer than any pause of JMH's). */
    private static final long SPIN_LIMIT = 200_000_000L;
    private static final long ROUND_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final VarHandle INT = JAVA_INT.varHandle();

    /** hsa4j's AQL-dispatched kernel, the raw-CUDA baseline, or the CPU-pool reference. */
    @Param({"HSA4J_SIGNALS", "HSA4J_AQL", "RAW_CUDA", "CPU_POOL"})
    public Side side;

    private Trial trial;
    private CudaStream stream;
    private MemorySegment host;
    private Signal done;
    private int round;
    private boolean launched;
    private Signal ping;
    private Signal pong;

    @Setup(Level.Trial)
    public void start() {
        trial = new Trial();
        done = trial.runtime.createSignal(1);
        round = 0;
        if (side == Side.CPU_POOL) {
            startCpuPool();
            return;
        }
        CudaBench gpu = trial.gpu(256);
        if (side == Side.HSA4J_SIGNALS) {
            ping = gpu.agent.createSignal(0);
            pong = gpu.agent.createSignal(0);
            long ka = gpu.kernarg(24);
            MemorySegment args = gpu.kernargBytes(ka, 24);
            args.set(JAVA_LONG, 0, ping.handle() + SignalDescriptor.VALUE);
            args.set(JAVA_LONG, 8, pong.handle() + SignalDescriptor.VALUE);
            args.set(JAVA_LONG, 16, SPIN_LIMIT);
            gpu.dispatch(gpu.kernel("hsa4j_signal_serve"), 1, 1, ka, done);
            launched = true;
            return;
        }
        CudaKernel serve = gpu.kernel("hsa4j_pingpong_serve");
        CudaBuffer flag = trial.own(gpu.agent.allocatePinned(64));
        host = flag.hostSegment();
        INT.setVolatile(host, 0L, 0);
        if (side == Side.HSA4J_AQL) {
            long ka = gpu.kernarg(16);
            MemorySegment args = gpu.kernargBytes(ka, 16);
            args.set(JAVA_LONG, 0, flag.address());
            args.set(JAVA_LONG, 8, SPIN_LIMIT);
            gpu.dispatch(serve, 1, 1, ka, done);
        } else {
            MemorySegment args = trial.own(Arena.ofShared()).allocate(16, 16);
            args.set(JAVA_LONG, 0, flag.address());
            args.set(JAVA_LONG, 8, SPIN_LIMIT);
            stream = trial.stream();
            stream.launch(serve, 1, 1, args);
        }
        launched = true;
    }

    private void startCpuPool() {
        host = trial.runtime.svm().segment(trial.runtime.hostMalloc(64), 64);
        INT.setVolatile(host, 0L, 0);
        MemorySegment f = host;
        long serve = trial.cpuKernel("serve", wi -> serve(f));
        Dispatches.submitOne(trial.cpuQueue(256), serve, 1, 1, 0, done);
        launched = true;
    }

    /** The CPU-pool kernel: hsa4j_pingpong_serve's protocol in Java, with a time limit per round. */
    private static void serve(MemorySegment flag) {
        for (int k = 0;; k++) {
            long deadline = System.nanoTime() + ROUND_NANOS;
            int v;
            while ((v = (int) INT.getVolatile(flag, 0L)) != 2 * k + 1) {
                if (v < 0) {
                    return;
                }
                if (System.nanoTime() - deadline > 0) {
                    INT.setVolatile(flag, 0L, -1);
                    return;
                }
                Thread.onSpinWait();
            }
            INT.setVolatile(flag, 0L, 2 * k + 2);
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        try {
            if (launched && side == Side.HSA4J_SIGNALS) {
                ping.storeScrelease(STOP);
                Waits.await(done, SignalCondition.EQ, 0, WaitState.BLOCKED);
                if (pong.loadScacquire() == -1) {
                    throw new IllegalStateException("the signal-serving kernel gave up waiting");
                }
            } else if (launched) {
                INT.setVolatile(host, 0L, STOP);
                if (stream != null) {
                    stream.synchronize();
                } else {
                    Waits.await(done, SignalCondition.EQ, 0, WaitState.BLOCKED);
                }
                int last = (int) INT.getVolatile(host, 0L);
                if (last != STOP) {
                    throw new IllegalStateException("the serving kernel ended by itself (flag " + last + "), not by the stop");
                }
            }
        } finally {
            trial.close();
        }
    }

    /** One round: write 2k+1, spin until the kernel's 2k+2 (HSA4J_SIGNALS: ping k+1, wait for pong k+1). */
    @Benchmark
    public long roundTrip() {
        if (ping != null) {
            return signalRound();
        }
        int k = round++;
        int want = 2 * k + 2;
        INT.setVolatile(host, 0L, 2 * k + 1);
        long deadline = System.nanoTime() + ROUND_NANOS;
        int v;
        while ((v = (int) INT.getVolatile(host, 0L)) != want) {
            if (v == -1 || System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("ping-pong round " + k + " did not come back (flag " + v + ")");
            }
            Thread.onSpinWait();
        }
        return v;
    }

    private long signalRound() {
        long k = ++round;
        ping.storeScrelease(k);
        long deadline = System.nanoTime() + ROUND_NANOS;
        long v;
        while ((v = pong.waitScacquire(SignalCondition.EQ, k, ROUND_NANOS, WaitState.ACTIVE)) != k) {
            if (v == -1 || System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("signal ping-pong round " + k + " did not come back (pong " + v + ")");
            }
        }
        return v;
    }
}
