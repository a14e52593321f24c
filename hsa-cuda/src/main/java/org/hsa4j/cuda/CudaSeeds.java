package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueState;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Seed programs on the CUDA agent (part 7 of issue 18), self-checking, on the agent
 * {@code HsaRuntime.init()} registers; the first three beside a raw-CUDA baseline measured in the same run:
 * <ul>
 * <li>{@code sync_1way}: 1024 x 256 GPU threads each add 1 four times with system-scope atomics to
 *     one int in pinned memory while the host watches it rise; the total must be exactly 1,048,576.
 * <li>{@code pingpong}: a kernel dispatched through an AQL queue and a Java thread take turns on
 *     one int in pinned memory ({@code ld.acquire.sys}/{@code st.release.sys}); baseline: the same
 *     kernel launched with {@code cuLaunchKernel} directly.
 * <li>{@code dispatch}: empty-kernel round trip through the AQL queue (packet write to completion
 *     signal observed) against {@code cuLaunchKernel} + {@code cuStreamSynchronize}.
 * <li>{@code binary_tree_insert}: GPU threads and host threads insert concurrently into one
 *     pointer tree in real-address SVM; the host checks every key once, in order ({@link CudaBinaryTree}).
 * </ul>
 * The raw baselines drive a {@link CudaStream}, as the JMH benchmarks of {@code org.hsa4j.benchmarks.cuda} do.
 * Further: {@code sync_2way} (work-item i waits for the host's flag, moves a single 1 along an array,
 * acknowledges; the host checks each round), {@code atomic_int} (system-scope fetch-add/sub and
 * release stores on pinned memory), {@code vector_add} (host arrays by address, no copies),
 * {@code managed_memory} (the seed's table: managed memory works; plain malloc memory faults with
 * MEMORY_FAULT, in a child JVM since CUDA cannot recover a context in-process, and this process's
 * agent serves on). async_chain is in the examples ({@code ./hsa4j run async_chain}): it needs the C++AMP layer.
 * {@code binary_tree_insert}: GPU threads and host threads insert into one pointer tree in real-address SVM
 * ({@link CudaBinaryTree}). {@code resident}: the raw AQL flow on a GPU-resident queue ({@link CudaResidentSeed}).
 * Usage: {@code CudaSeeds NAME|all} ({@link #SEEDS}); exit status 0 when every check held.
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

    /** The seeds {@link #run} knows, in the order {@code all} runs them (managed_memory last: its child faults). */
    public static final List<String> SEEDS = List.of("sync_1way", "sync_2way", "pingpong", "atomic_int", "vector_add",
            "dispatch", "binary_tree_insert", "resident", "managed_memory");
    /** The child process of managed_memory: a kernel touches plain malloc memory. */
    static final String FAULT_ROW = "managed_memory_fault_row";
    private static final int CHILD_FAULTED = 0;
    private static final int CHILD_RAN = 3;

    public static void main(String[] args) {
        String which = args.length > 0 ? args[0] : "all";
        if (!which.equals("all") && !SEEDS.contains(which) && !which.equals(FAULT_ROW)) {
            System.out.println("no seed named " + which + "; known: all, " + String.join(", ", SEEDS));
            System.exit(2);
        }
        boolean ok = true;
        try (HsaRuntime rt = HsaRuntime.init()) {
            List<CudaAgent> gpus = CudaAgent.in(rt);
            if (gpus.isEmpty()) {
                System.out.println(String.join("; ", rt.providerNotes()));
                System.exit(2);
            }
            CudaAgent agent = gpus.get(0);
            if (which.equals(FAULT_ROW)) {
                System.exit(faultRow(rt, agent, System.out));
            }
            System.out.println("agent: " + agent.name() + " (HsaRuntime.init() agent " + agent.hsaAgent().index()
                    + "), driver CUDA " + CudaAgentProvider.platform().driverVersion());
            for (String seed : which.equals("all") ? SEEDS : List.of(which)) {
                ok &= run(seed, agent, System.out);
            }
        }
        System.out.println(ok ? "PASSED" : "FAILED");
        System.exit(ok ? 0 : 1);
    }

    /**
     * Runs seed {@code name} (one of {@link #SEEDS}) on {@code agent}, printing what it shows; true
     * when its self-check held.
     *
     * @throws HsaException INVALID_ARGUMENT for an unknown name
     */
    public static boolean run(String name, CudaAgent agent, PrintStream out) {
        CudaSeeds s = new CudaSeeds(agent.runtime(), agent, out);
        try {
            return switch (name) {
                case "sync_1way" -> s.sync1Way();
                case "sync_2way" -> s.sync2Way(256);
                case "pingpong" -> s.pingpong(100_000);
                case "atomic_int" -> s.atomicInt(1 << 20);
                case "vector_add" -> s.vectorAdd(1 << 22);
                case "dispatch" -> s.dispatch(20_000);
                case "binary_tree_insert" -> s.binaryTreeInsert();
                case "resident" -> CudaResidentSeed.run(agent, s.kernels.kernel("hsa4j_empty"), 1 << 20, 20_000, out);
                case "managed_memory" -> s.managedMemory(1 << 22);
                default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT, "no CUDA seed named " + name
                        + "; known: " + String.join(", ", SEEDS));
            };
        } finally {
            if (s.queue.state() != QueueState.DESTROYED) {
                s.queue.destroy();
            }
        }
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
            // baseline: one host thread making the same number of atomic increments on the same pinned word
            long h0 = System.nanoTime();
            for (int i = 0; i < expected; i++) {
                vh.getAndAdd(host, 0L, 1);
            }
            long hostNs = System.nanoTime() - h0;
            out.printf("sync_1way: final %d of %d (%s), host saw %d distinct values, %.2f ms, %.1f M system-scope atomics/s;"
                    + " baseline: one host thread's %d atomic increments of the same pinned word %.2f ms (%.1f M/s)%n",
                    fin, expected, ok ? "right" : "WRONG", distinct, ns / 1e6, expected / (ns / 1e3),
                    expected, hostNs / 1e6, expected / (hostNs / 1e3));
            return ok;
        }
    }

    boolean pingpong(int rounds) {
        CudaKernel k = kernels.kernel("hsa4j_pingpong");
        try (CudaBuffer flag = agent.allocatePinned(64)) {
            MemorySegment host = flag.hostSegment();
            long ka = pingpongKernarg(flag, rounds);
            MemorySegment args = kernargBytes(ka, 24);
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
                out.printf("pingpong: %d rounds, median round trip %s through the AQL queue; baseline: %s with a raw cuLaunchKernel (ratio %.2f)%n",
                        rounds, us(median(aql)), us(median(raw)), median(aql) / (double) median(raw));
            } else {
                out.println("pingpong: FAILED (a round did not come back)");
            }
            return ok;
        }
    }

    /** The median of a raw ping-pong of {@code rounds} rounds (the pingpong seed's baseline), or -1 when a round did not come back. */
    private long rawPingpongMedian(int rounds) {
        CudaKernel k = kernels.kernel("hsa4j_pingpong");
        try (CudaBuffer flag = agent.allocatePinned(64)) {
            MemorySegment host = flag.hostSegment();
            JAVA_INT.varHandle().setVolatile(host, 0L, 0);
            long[] raw = rawPingpong(k, kernargBytes(pingpongKernarg(flag, rounds), 24), host, rounds);
            return raw == null ? -1 : median(raw);
        }
    }

    /** hsa4j_pingpong(flag, rounds, polls per round): its kernarg block. */
    private long pingpongKernarg(CudaBuffer flag, int rounds) {
        long ka = kernarg(24);
        MemorySegment args = kernargBytes(ka, 24);
        args.set(JAVA_LONG, 0, flag.address());
        args.set(JAVA_INT, 8, rounds);
        args.set(JAVA_LONG, 16, 20_000_000L);
        return ka;
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

    boolean binaryTreeInsert() {
        return CudaBinaryTree.seed(runtime, agent, kernels, queue, out);
    }

    /** Dispatches {@code k} over {@code grid} work-items and waits for it; the failure, or null when it completed. */
    private HsaException runKernel(CudaKernel k, int workgroup, int grid, long kernarg) {
        Signal done = runtime.createSignal(1);
        submit(k, workgroup, grid, kernarg, done);
        try {
            return await(done) ? null : new HsaException(HsaStatus.ERROR, k.symbol() + " did not complete in 60 s");
        } catch (HsaException e) {
            return e;
        }
    }

    /** A kernarg segment of {@code longs} then {@code ints} (8-byte slots), as the C parameters lay out. */
    private long args(long[] longs, int... ints) {
        long bytes = 8L * longs.length + 8L * ints.length;
        long ka = kernarg(bytes);
        MemorySegment a = kernargBytes(ka, Math.max(16, bytes));
        long at = 0;
        for (long v : longs) {
            a.set(JAVA_LONG, at, v);
            at += 8;
        }
        for (int v : ints) {
            a.set(JAVA_INT, at, v);
            at += 8;
        }
        return ka;
    }

    boolean sync2Way(int n) {
        CudaKernel k = kernels.kernel("hsa4j_sync_2way");
        try (CudaBuffer mem = agent.allocatePinned(8 + 4L * (n + 1))) {
            MemorySegment host = mem.hostSegment();
            host.fill((byte) 0);
            VarHandle vh = JAVA_INT.varHandle();
            host.set(JAVA_INT, 8, 1);   // the single 1 starts in cell 0
            long ka = kernarg(40);
            MemorySegment a = kernargBytes(ka, 40);
            a.set(JAVA_LONG, 0, mem.address());
            a.set(JAVA_LONG, 8, mem.address() + 4);
            a.set(JAVA_LONG, 16, mem.address() + 8);
            a.set(JAVA_INT, 24, n);
            a.set(JAVA_LONG, 32, 20_000_000L);
            Signal done = runtime.createSignal(1);
            submit(k, 1, n, ka, done);
            long[] t = new long[n];
            String problem = null;
            for (int i = 1; i <= n && problem == null; i++) {
                long s = System.nanoTime();
                vh.setVolatile(host, 0L, i);   // the host's turn flag: work-item i may go
                long deadline = s + WAIT_NANOS;
                int ack;
                while ((ack = (int) vh.getVolatile(host, 4L)) != i) {
                    if (ack == -1 || System.nanoTime() - deadline > 0) {
                        problem = "work-item " + i + " did not answer (ack " + ack + ")";
                        break;
                    }
                    Thread.onSpinWait();
                }
                t[i - 1] = System.nanoTime() - s;
                for (int c = 0; c <= n && problem == null; c++) {
                    int v = host.get(JAVA_INT, 8 + 4L * c);
                    if (v != (c == i ? 1 : 0)) {
                        problem = "after round " + i + " cell " + c + " holds " + v;
                    }
                }
            }
            if (problem != null) {
                vh.setVolatile(host, 0L, -1);   // releases the work-items still waiting: they give up
            }
            boolean completed;
            try {
                completed = await(done);
            } catch (HsaException e) {
                completed = false;
                problem = problem != null ? problem : "the dispatch failed: " + e.getMessage();
            }
            boolean ok = problem == null && completed;
            long baseline = rawPingpongMedian(n);
            out.printf("sync_2way: %d rounds of host flag -> GPU work-item -> host check, the single 1 at cell %d (%s), "
                    + "median round %s; baseline: a raw host-GPU ping-pong on one pinned flag (cuLaunchKernel) %s%n", n, n,
                    ok ? "right" : "WRONG: " + (problem != null ? problem : "no completion"), us(median(t)),
                    baseline < 0 ? "did not come back" : us(baseline));
            return ok;
        }
    }

    boolean atomicInt(int n) {
        try (CudaBuffer a = agent.allocatePinned(4L * n); CudaBuffer b = agent.allocatePinned(4L * n);
             CudaBuffer c = agent.allocatePinned(4L * n)) {
            for (int i = 0; i < n; i++) {
                a.hostSegment().setAtIndex(JAVA_INT, i, i);
                b.hostSegment().setAtIndex(JAVA_INT, i, 3 * i);
                c.hostSegment().setAtIndex(JAVA_INT, i, -1);
            }
            long t0 = System.nanoTime();
            HsaException e = runKernel(kernels.kernel("hsa4j_atomic_int"), 256, n,
                    args(new long[] {a.address(), b.address(), c.address()}, n));
            long ns = System.nanoTime() - t0;
            int wrong = 0;
            for (int i = 0; i < n && e == null; i++) {
                if (a.hostSegment().getAtIndex(JAVA_INT, i) != i + 1 || b.hostSegment().getAtIndex(JAVA_INT, i) != 3 * i - 1
                        || c.hostSegment().getAtIndex(JAVA_INT, i) != 4 * i) {
                    wrong++;
                }
            }
            boolean ok = e == null && wrong == 0;
            // baseline: one host thread doing the same atomics and stores on the same pinned arrays
            VarHandle vh = JAVA_INT.arrayElementVarHandle();
            long h0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                int x = (int) vh.getAndAdd(a.hostSegment(), 0L, (long) i, 1) + 1;
                int y = (int) vh.getAndAdd(b.hostSegment(), 0L, (long) i, -1) - 1;
                vh.setRelease(c.hostSegment(), 0L, (long) i, x + y);
            }
            long hostNs = System.nanoTime() - h0;
            out.printf("atomic_int: %,d work-items, a+1 and b-1 by system-scope atomics, c = a + b by release stores in "
                    + "pinned memory: %s, %.2f ms; baseline: one host thread doing the same on the same arrays %.2f ms%n", n,
                    ok ? "all right" : e != null ? "FAILED: " + e.getMessage() : wrong + " WRONG", ns / 1e6, hostNs / 1e6);
            return ok;
        }
    }

    boolean vectorAdd(int n) {
        try (CudaBuffer a = agent.allocatePinned(4L * n); CudaBuffer b = agent.allocatePinned(4L * n);
             CudaBuffer c = agent.allocatePinned(4L * n)) {
            for (int i = 0; i < n; i++) {
                a.hostSegment().setAtIndex(JAVA_FLOAT, i, i);
                b.hostSegment().setAtIndex(JAVA_FLOAT, i, 0.5f * i);
            }
            long t0 = System.nanoTime();
            HsaException e = runKernel(kernels.kernel("hsa4j_vector_add"), 256, n,
                    args(new long[] {a.address(), b.address(), c.address()}, n));
            long ns = System.nanoTime() - t0;
            int wrong = 0;
            for (int i = 0; i < n && e == null; i++) {
                if (c.hostSegment().getAtIndex(JAVA_FLOAT, i) != i + 0.5f * i) {
                    wrong++;
                }
            }
            boolean ok = e == null && wrong == 0;
            // baseline: one host thread adding the same pinned arrays
            MemorySegment ha = a.hostSegment();
            MemorySegment hb = b.hostSegment();
            MemorySegment hc = c.hostSegment();
            long h0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                hc.setAtIndex(JAVA_FLOAT, i, ha.getAtIndex(JAVA_FLOAT, i) + hb.getAtIndex(JAVA_FLOAT, i));
            }
            long hostNs = System.nanoTime() - h0;
            out.printf("vector_add: %,d floats, host arrays by address (pinned, mapped: no copies), c = a + b: %s, "
                    + "%.2f ms (%.1f GB/s over the bus); baseline: one host thread's loop over the same arrays %.2f ms%n", n,
                    ok ? "all right" : e != null ? "FAILED: " + e.getMessage() : wrong + " WRONG", ns / 1e6, 12.0 * n / ns,
                    hostNs / 1e6);
            return ok;
        }
    }

    /**
     * The seed's managed-memory table on real hardware: managed memory works; plain malloc memory
     * touched by a kernel faults (MEMORY_FAULT on the queue) on a device without pageable memory
     * access. CUDA cannot recreate a context after such a fault within the process, so that row
     * runs in a child JVM of its own; this process's agent then serves a managed row again.
     */
    boolean managedMemory(int n) {
        CudaDeviceInfo d = agent.info();
        out.printf("managed_memory: %s, pageable memory access %s, concurrent managed access %s%n", agent.name(),
                d.pageableMemoryAccess() ? "yes" : "no", d.concurrentManagedAccess() ? "yes" : "no");
        out.printf("  %-34s %-44s %s%n", "memory", "expected", "result");
        boolean ok = managedRow(n, "managed (cuMemAllocManaged)");
        int expected = d.pageableMemoryAccess() ? CHILD_RAN : CHILD_FAULTED;
        String[] child = faultInChild();
        boolean faultOk = child[0] != null && Integer.parseInt(child[0]) == expected;
        out.printf("  %-34s %-44s %s%n", "plain malloc (a child process)", expected == CHILD_FAULTED
                ? "MEMORY_FAULT on the queue, JVM unharmed" : "works (pageable memory access)",
                (faultOk ? "as expected: " : "UNEXPECTED: ") + child[1]);
        ok &= faultOk;
        ok &= managedRow(n, "managed again, after the fault");
        out.println("managed_memory: " + (ok ? "the table holds" : "FAILED"));
        return ok;
    }

    private boolean managedRow(int n, String what) {
        String result;
        boolean ok;
        try (CudaBuffer x = agent.allocateManaged(4L * n)) {
            for (int i = 0; i < n; i++) {
                x.hostSegment().setAtIndex(JAVA_INT, i, i);
            }
            HsaException e = runKernel(kernels.kernel("hsa4j_twice_plus_one"), 256, n, args(new long[] {x.address()}, n));
            int wrong = 0;
            for (int i = 0; i < n && e == null; i++) {
                if (x.hostSegment().getAtIndex(JAVA_INT, i) != 2 * i + 1) {
                    wrong++;
                }
            }
            ok = e == null && wrong == 0;
            result = e != null ? "FAILED: " + e.status() + ": " + e.getMessage() : wrong == 0
                    ? "works: every element 2x + 1" : wrong + " elements WRONG";
        } catch (HsaException e) {
            ok = false;
            result = "FAILED: " + e.status() + ": " + e.getMessage();
        }
        out.printf("  %-34s %-44s %s%n", what, "works: every element 2x + 1", result);
        return ok;
    }

    /** Runs {@link #FAULT_ROW} in a child JVM (bounded: 120 s); its exit status (null if none) and its last line. */
    private static String[] faultInChild() {
        String java = System.getProperty("java.home") + "/bin/java";
        ProcessBuilder pb = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp", childClassPath(),
                CudaSeeds.class.getName(), FAULT_ROW).redirectErrorStream(true);
        try {
            Process p = pb.start();
            CompletableFuture<String> text = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    return "cannot read the child's output: " + e;
                }
            });
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new String[] {null, "the child did not finish in 120 s"};
            }
            String last = text.get(10, TimeUnit.SECONDS).strip().lines().reduce((x, y) -> y).orElse("(no output)");
            return new String[] {Integer.toString(p.exitValue()), last};
        } catch (Exception e) {
            return new String[] {null, "cannot run the child: " + e};
        }
    }

    /**
     * hsa-cuda's and hsa-runtime's classes (which need nothing else) before the JVM's class path: a
     * test launcher's class path may hold only the launcher, its classes come from a loader of its own.
     */
    private static String childClassPath() {
        StringBuilder cp = new StringBuilder();
        for (Class<?> c : List.of(CudaSeeds.class, HsaRuntime.class)) {
            try {
                cp.append(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()))
                        .append(File.pathSeparatorChar);
            } catch (Exception e) {
                // no code source to name: the JVM's class path below must hold it
            }
        }
        return cp.append(System.getProperty("java.class.path")).toString();
    }

    /**
     * The child's row: a kernel touches plain malloc memory (the JVM's native allocator, never
     * registered with CUDA). Exit status {@link #CHILD_FAULTED} when the queue reported MEMORY_FAULT
     * and the host's bytes were untouched, {@link #CHILD_RAN} when the kernel ran (pageable access).
     */
    static int faultRow(HsaRuntime rt, CudaAgent agent, PrintStream out) {
        int n = 1 << 16;
        CudaModule m = agent.load(CudaCodeObject.fromResource("org/hsa4j/cuda/kernels/hsa4j_kernels.ptx"));
        CompletableFuture<HsaException> error = new CompletableFuture<>();
        Queue q = agent.createQueue(64, QueueType.SINGLE, (e, queue) -> error.complete(e));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment x = arena.allocate(4L * n, 64);   // malloc'd by the JVM
            for (int i = 0; i < n; i++) {
                x.setAtIndex(JAVA_INT, i, i);
            }
            long ka = rt.allocate(rt.kernargPool(), 16);
            MemorySegment a = rt.cpuAgent().svm().segment(ka, 16);
            a.set(JAVA_LONG, 0, x.address());
            a.set(JAVA_INT, 8, n);
            Signal done = rt.createSignal(1);
            q.launch(m.kernel("hsa4j_twice_plus_one").kernelObject()).grid(n).workgroup(256).kernarg(ka)
                    .completion(done).dispatch();
            HsaException failed = null;
            try {
                if (!await(done)) {
                    out.println("no completion in 60 s");
                    return 1;
                }
            } catch (HsaException e) {
                failed = e;
            }
            if (failed == null) {
                out.println("works: the kernel ran on malloc memory (x[1] = " + x.getAtIndex(JAVA_INT, 1) + ")");
                return CHILD_RAN;
            }
            HsaException reported = error.getNow(null);
            boolean untouched = x.getAtIndex(JAVA_INT, n - 1) == n - 1;
            out.println(failed.status() + " (queue callback: " + (reported != null ? reported.status() : "none")
                    + ", host bytes " + (untouched ? "untouched" : "CHANGED") + "): "
                    + failed.getMessage().lines().findFirst().orElse(""));
            return failed.status() == HsaStatus.MEMORY_FAULT && reported != null
                    && reported.status() == HsaStatus.MEMORY_FAULT && untouched ? CHILD_FAULTED : 1;
        }
    }

    static long median(long[] t) {
        long[] c = t.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    static String us(long ns) {
        return String.format("%.2f us", ns / 1e3);
    }
}
