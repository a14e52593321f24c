package org.hsa4j.cuda.litmus;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.cuda.CudaAgent;
import org.hsa4j.cuda.CudaBuffer;
import org.hsa4j.cuda.CudaCodeObject;
import org.hsa4j.cuda.CudaKernel;
import org.hsa4j.cuda.CudaStream;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Runs litmus tests round by round, with roles on GPU threads ({@code hsa4j_litmus}, one persistent
 * kernel per run) and host threads sharing pinned memory ({@link LitmusLayout}).
 *
 * <p>A round: the conductor (the calling thread) zeroes the locations, then stores the round number
 * into GO (volatile); every role, GPU or host, polls GO, idles a random time (a different draw per
 * role and round, so the roles' windows slide across each other), runs its ops, writes its
 * registers and counts itself done (the GPU with a system fence and a system atomic add to DONE,
 * host threads on an AtomicInteger). Once all are done the conductor reads registers and final
 * values and counts the outcome. A host-GPU round costs about two PCIe round trips (a few
 * microseconds), so a host-GPU test runs one instance per round; an all-GPU test runs many
 * instances per round, each role of an instance in a different block. Optional stress: blocks
 * beyond the roles' read-modify-write a scratch buffer in device memory until STOP, as GPU litmus
 * testing does to provoke weak behaviours. Every wait is bounded: a GPU thread that waits too long
 * for GO sets FAILED and returns, and the conductor gives up after {@link #WAIT_NANOS}.
 */
final class LitmusRunner implements AutoCloseable {
    static final int THREADS_PER_BLOCK = 64;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(20);
    /** Polls of GO a GPU thread makes before it gives up (each is a PCIe read of about a microsecond). */
    private static final long GPU_SPIN_LIMIT = 20_000_000L;
    /**
     * Longest random delay of a host role, ns. A host thread sees GO about a microsecond before a
     * GPU thread does (a PCIe read), so host roles draw from a wider range than GPU roles, which
     * lets the two sides' windows slide across each other in both directions.
     */
    private static final int MAX_HOST_DELAY_NANOS = 4_000;
    /** Spins of a waiting role before it starts yielding: about 10-50 us, several PCIe round trips. */
    private static final int SPINS_BEFORE_YIELD = 1_000;
    /** Longest random delay of a GPU role, ns ({@code __nanosleep}). */
    private static final int MAX_GPU_DELAY_NANOS = 1_000;
    private static final VarHandle INT = JAVA_INT.varHandle();

    private final CudaAgent agent;
    private final CudaKernel kernel;
    private final Arena arena = Arena.ofShared();
    private final List<AutoCloseable> buffers = new ArrayList<>();
    private final int maxInstances;
    private final MemorySegment ctrl;
    private final MemorySegment locs;
    private final MemorySegment regs;
    private final MemorySegment params;
    private final long ctrlDevice;
    private final long locsDevice;
    private final long regsDevice;
    private final long paramsDevice;
    private final long scratchDevice;
    private final int scratchInts;

    private LitmusRunner(CudaAgent agent, int maxInstances, long scratchBytes) {
        this.agent = agent;
        this.maxInstances = maxInstances;
        if (agent == null) {
            kernel = null;
            ctrl = arena.allocate(LitmusLayout.CONTROL_BYTES, 128);
            locs = arena.allocate(maxInstances * LitmusLayout.INSTANCE_BYTES, 128);
            regs = arena.allocate(maxInstances * LitmusLayout.REGISTER_BYTES, 128);
            params = arena.allocate(LitmusLayout.PARAM_BYTES, 128);
            ctrlDevice = locsDevice = regsDevice = paramsDevice = scratchDevice = 0;
            scratchInts = 0;
            return;
        }
        kernel = agent.load(CudaCodeObject.fromResource("org/hsa4j/cuda/kernels/hsa4j_litmus.ptx")).kernel("hsa4j_litmus");
        CudaBuffer c = pinned(LitmusLayout.CONTROL_BYTES);
        CudaBuffer l = pinned(maxInstances * LitmusLayout.INSTANCE_BYTES);
        CudaBuffer r = pinned(maxInstances * LitmusLayout.REGISTER_BYTES);
        CudaBuffer p = pinned(LitmusLayout.PARAM_BYTES);
        ctrl = c.hostSegment();
        locs = l.hostSegment();
        regs = r.hostSegment();
        params = p.hostSegment();
        ctrlDevice = c.address();
        locsDevice = l.address();
        regsDevice = r.address();
        paramsDevice = p.address();
        if (scratchBytes > 0) {
            CudaBuffer s = agent.allocateDevice(scratchBytes);
            buffers.add(s);
            scratchDevice = s.address();
            scratchInts = (int) Math.min(Integer.MAX_VALUE, scratchBytes / Integer.BYTES);
        } else {
            scratchDevice = 0;
            scratchInts = 0;
        }
    }

    private CudaBuffer pinned(long bytes) {
        CudaBuffer b = agent.allocatePinned(bytes);
        buffers.add(b);
        return b;
    }

    /** A runner whose roles are all host threads (no GPU): checks the harness anywhere. */
    static LitmusRunner onHost() {
        return new LitmusRunner(null, 1, 0);
    }

    /** A runner on {@code agent}, for up to {@code maxInstances} instances per round, with {@code scratchBytes} of stress memory. */
    static LitmusRunner onGpu(CudaAgent agent, int maxInstances, long scratchBytes) {
        return new LitmusRunner(agent, maxInstances, scratchBytes);
    }

    /**
     * Runs {@code test} with roles placed by {@code placement} for {@code rounds} rounds of
     * {@code instances} instances (1 when any role is on the host), with {@code stressBlocks}
     * blocks of stress beside the GPU roles.
     *
     * @throws HsaException INVALID_ARGUMENT for a placement this runner cannot serve, ERROR when a round did not finish in time
     */
    LitmusResult run(LitmusTest test, Placement placement, int rounds, int instances, int stressBlocks, long seed) {
        int roles = test.roles().size();
        if (placement.code().length() != roles) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, placement + " does not place the " + roles + " roles of " + test.name());
        }
        List<Integer> gpuRoles = placement.gpuRoles();
        List<Integer> hostRoles = placement.hostRoles();
        if (agent == null && !gpuRoles.isEmpty()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "no GPU for placement " + placement.code());
        }
        int perRound = hostRoles.isEmpty() ? Math.min(instances, maxInstances) : 1;
        writeParams(test, gpuRoles, new SplittableRandom(seed));
        int[] registerRole = new int[LitmusLayout.REGISTERS];
        for (int role = 0; role < roles; role++) {
            for (LitmusOp op : test.roles().get(role)) {
                if (op.kind() == LitmusOp.Kind.LOAD) {
                    registerRole[op.register()] = role;
                }
            }
        }
        for (long off = 0; off < LitmusLayout.CONTROL_BYTES; off += Integer.BYTES) {
            INT.setVolatile(ctrl, off, 0);
        }
        AtomicInteger hostDone = new AtomicInteger();
        AtomicReference<Throwable> hostFailure = new AtomicReference<>();
        List<Thread> hostThreads = new ArrayList<>();
        for (int role : hostRoles) {
            hostThreads.add(startHostRole(test, role, rounds, new SplittableRandom(seed * 31 + role), hostDone, hostFailure));
        }
        TreeMap<String, Long> outcomes = new TreeMap<>();
        long weak = 0;
        long start = System.nanoTime();
        CudaStream stream = gpuRoles.isEmpty() ? null : CudaStream.open(agent);
        try {
            if (stream != null) {
                int roleThreads = gpuRoles.size() * perRound;
                int blocks = (roleThreads + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK + (scratchInts > 0 ? stressBlocks : 0);
                stream.launch(kernel, blocks, THREADS_PER_BLOCK, kernarg(gpuRoles.size(), rounds, perRound));
            }
            int[] regValues = new int[LitmusLayout.REGISTERS];
            int[] finals = new int[LitmusLayout.LOCATIONS];
            int gpuThreads = gpuRoles.size() * perRound;
            for (int r = 1; r <= rounds; r++) {
                for (int i = 0; i < perRound; i++) {
                    for (int l = 0; l < LitmusLayout.LOCATIONS; l++) {
                        locs.set(JAVA_INT, LitmusLayout.location(i, l), 0);
                    }
                }
                INT.setVolatile(ctrl, LitmusLayout.GO, r);
                awaitRound(r, (long) r * gpuThreads, r * hostRoles.size(), hostDone, hostFailure);
                for (int i = 0; i < perRound; i++) {
                    for (int reg : test.registers()) {
                        regValues[reg] = (int) INT.getVolatile(regs, LitmusLayout.register(i, registerRole[reg], reg));
                    }
                    for (int l = 0; l < LitmusLayout.LOCATIONS; l++) {
                        finals[l] = (int) INT.getVolatile(locs, LitmusLayout.location(i, l));
                    }
                    outcomes.merge(test.outcome(regValues, finals), 1L, Long::sum);
                    if (test.weak().test(regValues, finals)) {
                        weak++;
                    }
                }
            }
        } finally {
            INT.setVolatile(ctrl, LitmusLayout.STOP, 1);
            INT.setVolatile(ctrl, LitmusLayout.GO, Integer.MAX_VALUE); // releases any role still waiting
            for (Thread t : hostThreads) {
                t.interrupt();
                joinBounded(t);
            }
            if (stream != null) {
                stream.synchronize();
                stream.close();
            }
        }
        return new LitmusResult(test, placement, stressBlocks > 0 && scratchInts > 0 && stream != null,
                (long) rounds * perRound, outcomes, weak, System.nanoTime() - start);
    }

    private void writeParams(LitmusTest test, List<Integer> gpuRoles, SplittableRandom random) {
        params.fill((byte) 0);
        for (int role = 0; role < test.roles().size(); role++) {
            List<LitmusOp> ops = test.roles().get(role);
            for (int i = 0; i < ops.size(); i++) {
                params.set(JAVA_INT, LitmusLayout.PARAM_PROG + ((long) role * LitmusLayout.OPS + i) * Integer.BYTES,
                        ops.get(i).encode());
            }
        }
        for (int k = 0; k < gpuRoles.size(); k++) {
            params.set(JAVA_INT, LitmusLayout.PARAM_ROLES + (long) k * Integer.BYTES, gpuRoles.get(k));
        }
        for (int row = 0; row < LitmusLayout.DELAY_ROWS; row++) {
            for (int role = 0; role < LitmusLayout.ROLES; role++) {
                params.set(JAVA_INT, LitmusLayout.PARAM_DELAYS + ((long) row * LitmusLayout.ROLES + role) * Integer.BYTES,
                        random.nextInt(MAX_GPU_DELAY_NANOS + 1));
            }
        }
        VarHandle.fullFence();
    }

    /** The kernel's parameters as C lays them out (see hsa4j_litmus in hsa4j_litmus.cu). */
    private MemorySegment kernarg(int gpuRoles, int rounds, int instances) {
        MemorySegment k = arena.allocate(104, 8);
        k.set(JAVA_LONG, 0, paramsDevice + LitmusLayout.PARAM_PROG);
        k.set(JAVA_LONG, 8, paramsDevice + LitmusLayout.PARAM_ROLES);
        k.set(JAVA_INT, 16, gpuRoles);
        k.set(JAVA_LONG, 24, locsDevice);
        k.set(JAVA_INT, 32, LitmusLayout.STRIDE_INTS);
        k.set(JAVA_LONG, 40, regsDevice);
        k.set(JAVA_LONG, 48, ctrlDevice);
        k.set(JAVA_LONG, 56, paramsDevice + LitmusLayout.PARAM_DELAYS);
        k.set(JAVA_INT, 64, LitmusLayout.DELAY_ROWS);
        k.set(JAVA_INT, 68, rounds);
        k.set(JAVA_INT, 72, instances);
        k.set(JAVA_LONG, 80, scratchDevice);
        k.set(JAVA_INT, 88, scratchInts);
        k.set(JAVA_LONG, 96, GPU_SPIN_LIMIT);
        return k;
    }

    private Thread startHostRole(LitmusTest test, int role, int rounds, SplittableRandom random, AtomicInteger done,
                                 AtomicReference<Throwable> failure) {
        List<LitmusOp> ops = test.roles().get(role);
        int[] delays = new int[LitmusLayout.DELAY_ROWS];
        for (int i = 0; i < delays.length; i++) {
            delays[i] = random.nextInt(MAX_HOST_DELAY_NANOS + 1);
        }
        Thread t = new Thread(() -> {
            int[] mine = new int[LitmusLayout.REGISTERS];
            try {
                for (int r = 1; r <= rounds; r++) {
                    long deadline = System.nanoTime() + WAIT_NANOS;
                    for (int spins = 0; (int) INT.getVolatile(ctrl, LitmusLayout.GO) < r; spins++) {
                        if (System.nanoTime() - deadline > 0 || Thread.currentThread().isInterrupted()) {
                            throw new IllegalStateException("host role " + role + " waited too long for round " + r);
                        }
                        pause(spins);
                    }
                    long until = System.nanoTime() + delays[r % delays.length];
                    while (System.nanoTime() - until < 0) {
                        Thread.onSpinWait();
                    }
                    HostRole.run(ops, locs, mine);
                    for (int reg = 0; reg < LitmusLayout.REGISTERS; reg++) {
                        regs.set(JAVA_INT, LitmusLayout.register(0, role, reg), mine[reg]);
                    }
                    done.incrementAndGet();
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }, "litmus-host-role-" + role);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void awaitRound(int round, long gpuDone, int hostDoneExpected, AtomicInteger hostDone,
                            AtomicReference<Throwable> hostFailure) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        for (int spins = 0; (int) INT.getVolatile(ctrl, LitmusLayout.DONE) != (int) gpuDone
                || hostDone.get() != hostDoneExpected; spins++) {
            int failed = (int) INT.getVolatile(ctrl, LitmusLayout.FAILED);
            Throwable h = hostFailure.get();
            if (failed != 0 || h != null || System.nanoTime() - deadline > 0) {
                throw new HsaException(HsaStatus.ERROR, "litmus round " + round + " did not finish: "
                        + (failed != 0 ? "a GPU role gave up in round " + failed : h != null ? h.getMessage() : "timed out"));
            }
            pause(spins);
        }
    }

    /**
     * One step of a wait between roles: a spin while the other side is probably running, then
     * yields, so that where threads outnumber cores the thread being waited for gets one. No
     * parking: a litmus round is only meaningful while every role is on a core.
     */
    private static void pause(int spins) {
        if (spins < SPINS_BEFORE_YIELD) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    private static void joinBounded(Thread t) {
        try {
            t.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        for (AutoCloseable b : buffers) {
            try {
                b.close();
            } catch (Exception e) {
                // best effort: the agent frees what is left when it closes
            }
        }
        arena.close();
    }
}
