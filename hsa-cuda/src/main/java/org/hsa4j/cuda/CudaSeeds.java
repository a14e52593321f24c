package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * Seed programs on the CUDA agent (part 7 of issue 18, first two), self-checking, each beside its
 * raw-CUDA baseline measured in the same run:
 * <ul>
 * <li>{@code sync_1way}: 1024 x 256 GPU threads each add 1 four times with system-scope atomics to
 *     one int in pinned memory while the host watches it rise; the total must be exactly 1,048,576.
 * <li>{@code pingpong}: a kernel dispatched through an AQL queue and a Java thread take turns on
 *     one int in pinned memory ({@code ld.acquire.sys}/{@code st.release.sys}); baseline: the same
 *     kernel launched with {@code cuLaunchKernel} directly.
 * <li>{@code dispatch}: empty-kernel round trip through the AQL queue (packet write to completion
 *     signal observed) against {@code cuLaunchKernel} + {@code cuStreamSynchronize}.
 * </ul>
 * The raw baselines drive a {@link CudaStream}, as the JMH benchmarks of {@code org.hsa4j.benchmarks.cuda} do.
 * Usage: {@code CudaSeeds sync_1way|pingpong|dispatch|all}; exit status 0 when every check held.
 */
public final class CudaSeeds {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final HsaRuntime runtime;
    private final CudaAgent agent;
    private final CudaModule kernels;
    private final Queue queue;
    private final PrintStream out;

    private CudaSeeds(HsaRuntime runtime, CudaAgent agent, PrintStream out) {
        this.runtime = runtime;
        this.agent = agent;
        this.out = out;
        this.kernels = agent.load(CudaCodeObject.fromResource("org/hsa4j/cuda/kernels/hsa4j_kernels.ptx"));
        this.queue = agent.createQueue(1024, QueueType.SINGLE, (e, q) -> out.println("queue error: " + e.getMessage()));
    }

    public static void main(String[] args) {
        String which = args.length > 0 ? args[0] : "all";
        CudaPlatform p = CudaPlatform.discover();
        if (!p.available()) {
            System.out.println("no CUDA: " + p.reason());
            System.exit(2);
        }
        boolean ok = true;
        try (HsaRuntime rt = HsaRuntime.init(); CudaAgent agent = CudaAgent.open(rt, p, 0)) {
            CudaSeeds s = new CudaSeeds(rt, agent, System.out);
            System.out.println("agent: " + agent.name() + ", driver CUDA " + p.driverVersion());
            if (which.equals("all") || which.equals("sync_1way")) {
                ok &= s.sync1Way();
            }
            if (which.equals("all") || which.equals("pingpong")) {
                ok &= s.pingpong(100_000);
            }
            if (which.equals("all") || which.equals("dispatch")) {
                ok &= s.dispatch(20_000);
            }
            s.queue.destroy();
        }
        System.out.println(ok ? "PASSED" : "FAILED");
        System.exit(ok ? 0 : 1);
    }

    private long kernarg(long bytes) {
        return runtime.allocate(runtime.kernargPool(), Math.max(16, bytes));
    }

    private MemorySegment kernargBytes(long address, long bytes) {
        return runtime.cpuAgent().svm().segment(address, bytes);
    }

    private void submit(CudaKernel k, int workgroup, int grid, long kernarg, Signal completion) {
        queue.launch(k.kernelObject()).grid(grid).workgroup(workgroup).kernarg(kernarg).completion(completion).dispatch();
    }

    private static boolean await(Signal s) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (s.waitScacquire(SignalCondition.EQ, 0, WAIT_NANOS, WaitState.ACTIVE) != 0) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
        }
        return true;
    }

    boolean sync1Way() {
        int blocks = 1024;
        int threads = 256;
        int times = 4;
        int expected = blocks * threads * times;
        try (CudaBuffer counter = agent.allocatePinned(64)) {
            MemorySegment host = counter.hostSegment();
            VarHandle vh = JAVA_INT.varHandle();
            vh.setVolatile(host, 0L, 0);
            long ka = kernarg(16);
            MemorySegment args = kernargBytes(ka, 16);
            args.set(JAVA_LONG, 0, counter.address());
            args.set(JAVA_INT, 8, times);
            Signal done = runtime.createSignal(1);
            long t0 = System.nanoTime();
            submit(kernels.kernel("hsa4j_count"), threads, blocks * threads, ka, done);
            int last = -1;
            int distinct = 0;
            long deadline = t0 + WAIT_NANOS;
            while (done.loadScacquire() != 0 && System.nanoTime() - deadline < 0) {
                int v = (int) vh.getVolatile(host, 0L);
                if (v != last) {
                    distinct++;
                    last = v;
                }
            }
            boolean completed = await(done);
            long ns = System.nanoTime() - t0;
            int fin = (int) vh.getVolatile(host, 0L);
            boolean ok = completed && fin == expected;
            out.printf("sync_1way: final %d of %d (%s), host saw %d distinct values, %.2f ms, %.1f M system-scope atomics/s%n",
                    fin, expected, ok ? "right" : "WRONG", distinct, ns / 1e6, expected / (ns / 1e3));
            return ok;
        }
    }

    boolean pingpong(int rounds) {
        CudaKernel k = kernels.kernel("hsa4j_pingpong");
        try (CudaBuffer flag = agent.allocatePinned(64)) {
            MemorySegment host = flag.hostSegment();
            long ka = kernarg(24);
            MemorySegment args = kernargBytes(ka, 24);
            args.set(JAVA_LONG, 0, flag.address());
            args.set(JAVA_INT, 8, rounds);
            args.set(JAVA_LONG, 16, 20_000_000L);
            // through the AQL queue
            JAVA_INT.varHandle().setVolatile(host, 0L, 0);
            Signal done = runtime.createSignal(1);
            submit(k, 1, 1, ka, done);
            long[] aql = turns(host, rounds);
            boolean ok = aql != null && await(done);
            // raw: the same kernel with cuLaunchKernel on a stream of our own
            JAVA_INT.varHandle().setVolatile(host, 0L, 0);
            long[] raw = rawPingpong(k, args, host, rounds);
            ok &= raw != null;
            if (ok) {
                out.printf("pingpong: %d rounds, median round trip %s through the AQL queue, %s raw cuLaunchKernel (ratio %.2f)%n",
                        rounds, us(median(aql)), us(median(raw)), median(aql) / (double) median(raw));
            } else {
                out.println("pingpong: FAILED (a round did not come back)");
            }
            return ok;
        }
    }

    private long[] rawPingpong(CudaKernel k, MemorySegment args, MemorySegment host, int rounds) {
        try (CudaStream stream = CudaStream.open(agent)) {
            stream.launch(k, 1, 1, args);
            long[] t = turns(host, rounds);
            stream.synchronize();
            return t;
        }
    }

    private static long[] turns(MemorySegment host, int rounds) {
        VarHandle vh = JAVA_INT.varHandle();
        long[] t = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            long s = System.nanoTime();
            vh.setVolatile(host, 0L, 2 * i + 1);
            long deadline = s + WAIT_NANOS;
            int v;
            while ((v = (int) vh.getVolatile(host, 0L)) != 2 * i + 2) {
                if (v == -1 || System.nanoTime() - deadline > 0) {
                    return null;
                }
                Thread.onSpinWait();
            }
            t[i] = System.nanoTime() - s;
        }
        return Arrays.copyOfRange(t, rounds / 10, rounds);
    }

    boolean dispatch(int n) {
        CudaKernel empty = kernels.kernel("hsa4j_empty");
        Signal done = runtime.createSignal(1);
        long[] aql = new long[n];
        for (int i = 0; i < n; i++) {
            done.storeRelaxed(1);
            long s = System.nanoTime();
            submit(empty, 1, 1, 0, done);
            if (!await(done)) {
                out.println("dispatch: FAILED (no completion)");
                return false;
            }
            aql[i] = System.nanoTime() - s;
        }
        long[] raw = new long[n];
        try (CudaStream stream = CudaStream.open(agent)) {
            for (int i = 0; i < n; i++) {
                long s = System.nanoTime();
                stream.launch(empty, 1, 1, null);
                stream.synchronize();
                raw[i] = System.nanoTime() - s;
            }
        }
        long[] a1 = Arrays.copyOfRange(aql, n / 4, n);
        long[] r1 = Arrays.copyOfRange(raw, n / 4, n);
        out.printf("dispatch: empty kernel round trip median %s through the AQL queue, %s cuLaunchKernel+cuStreamSynchronize (ratio %.2f)%n",
                us(median(a1)), us(median(r1)), median(a1) / (double) median(r1));
        return true;
    }

    private static long median(long[] t) {
        long[] c = t.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    private static String us(long ns) {
        return String.format("%.2f us", ns / 1e3);
    }
}
