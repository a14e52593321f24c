package org.hsa4j.examples;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import joptsimple.OptionException;
import joptsimple.OptionParser;
import joptsimple.OptionSet;
import joptsimple.OptionSpec;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.AgentFeature;
import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.packet.AgentDispatchPacket;
import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;

/**
 * {@code ./hsa4j soak --minutes N}: a long mixed load that must lose nothing.
 *
 * <p>Several host threads share two queues on each of two GPU agents and two on the CPU agent and
 * submit random mixes of kernel dispatches (GPU queues), agent dispatches (CPU queues) and
 * barrier-AND / barrier-OR packets (any queue), some with the barrier bit. A thread works in
 * rounds of {@value #ROUND} packets, each with its own completion signal; a barrier's
 * dependencies are completion signals of packets the same thread submitted earlier in the round,
 * often on another queue or agent. That keeps every dependency satisfiable: a packet only ever
 * waits for packets reserved before it (its dependencies, and those ahead of it in its queue), so
 * the waits cannot form a cycle whatever the threads interleave. At the end of a round the thread
 * waits, bounded by {@link #PACKET_WAIT}, for every signal to reach 0, then reuses them.
 *
 * <p>A packet whose signal does not reach 0 in time is <em>lost</em>; one whose signal fails is
 * <em>failed</em>; a thread that sees either stops, since its signals may still be in use. The
 * kernel and the agent dispatch handler count their runs, which must equal the packets of their
 * kind. Heap (used after a GC, and committed), off-heap (the runtime's reserved bytes and the JDK's
 * direct memory), live signals, the JVM's own non-heap memory and the process's resident set are
 * printed before and after (the resident set also with each progress line, so a leak shows as
 * growth that does not level off). The exit status is 0 only when nothing was lost or failed, the
 * run counts match and every thread finished.
 */
final class Soak {
    /** Packets per thread and round (one completion signal each). */
    static final int ROUND = 48;
    /** How long a round waits for one packet's completion before calling it lost. */
    static final Duration PACKET_WAIT = Duration.ofSeconds(60);
    /** The agent dispatch function the CPU agent's handler serves. */
    static final int AGENT_FUNCTION = 7;
    static final int QUEUE_SIZE = 64;
    static final int QUEUES_PER_AGENT = 2;

    private final PrintStream out;
    private final LongAdder dispatches = new LongAdder();
    private final LongAdder barrierAnds = new LongAdder();
    private final LongAdder barrierOrs = new LongAdder();
    private final LongAdder agentDispatches = new LongAdder();
    private final LongAdder completions = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder lost = new LongAdder();
    private final LongAdder kernelsRun = new LongAdder();
    private final LongAdder handlersRun = new LongAdder();
    private final AtomicLong queueErrors = new AtomicLong();

    private Soak(PrintStream out) {
        this.out = out;
    }

    /** Runs {@code soak [--minutes M | --seconds S] [--threads N] [--seed S]}; the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        OptionParser parser = new OptionParser();
        OptionSpec<Double> minutes = parser.accepts("minutes", "how long to run, in minutes").withRequiredArg()
                .ofType(Double.class);
        OptionSpec<Double> secondsOpt = parser.accepts("seconds", "how long to run, in seconds").withRequiredArg()
                .ofType(Double.class);
        OptionSpec<Integer> threadsOpt = parser.accepts("threads", "host threads writing packets").withRequiredArg()
                .ofType(Integer.class).defaultsTo(4);
        OptionSpec<Long> seedOpt = parser.accepts("seed", "seed of the packet mix (default: the clock)")
                .withRequiredArg().ofType(Long.class);
        double seconds;
        int threads;
        long seed;
        try {
            OptionSet o = parser.parse(Arrays.copyOfRange(args, 1, args.length));
            if (o.has(minutes) && o.has(secondsOpt)) {
                throw new IllegalArgumentException("give --minutes or --seconds, not both");
            }
            if (!o.nonOptionArguments().isEmpty()) {
                throw new IllegalArgumentException("unexpected argument " + o.nonOptionArguments().get(0));
            }
            seconds = o.has(minutes) ? 60 * o.valueOf(minutes) : o.has(secondsOpt) ? o.valueOf(secondsOpt) : 60;
            threads = o.valueOf(threadsOpt);
            seed = o.has(seedOpt) ? o.valueOf(seedOpt) : System.nanoTime();
            if (!(seconds > 0) || threads < 1) {
                throw new IllegalArgumentException("the duration and --threads must be positive");
            }
        } catch (OptionException | IllegalArgumentException e) {
            err.println("soak: " + e.getMessage());
            err.println("usage: hsa4j soak [--minutes M | --seconds S] [--threads N] [--seed S]");
            return 2;
        }
        try {
            return new Soak(out).soak(Duration.ofMillis((long) (seconds * 1000)), threads, seed);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("soak: interrupted");
            return 1;
        }
    }

    private int soak(Duration duration, int threadCount, long seed) throws InterruptedException {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(2).build())) {
            Executable exe = rt.createExecutable()
                    .define("count", KernelDescriptor.EMPTY, wi -> {
                        if (wi.flatGlobalId() == 0) {
                            kernelsRun.increment();
                        }
                    })
                    .freeze();
            long kernel = exe.symbol("count").kernelObject();
            rt.cpuAgent().registerAgentDispatchHandler(AGENT_FUNCTION, request -> handlersRun.increment());
            List<Queue> gpuQueues = new ArrayList<>();
            List<Queue> cpuQueues = new ArrayList<>();
            for (Agent agent : rt.agents()) {
                for (int i = 0; i < QUEUES_PER_AGENT; i++) {
                    Queue q = agent.createQueue(QUEUE_SIZE, QueueType.MULTI, (e, queue) -> {
                        queueErrors.incrementAndGet();
                        out.println("soak: queue error: " + e.getMessage());
                    });
                    (agent.hasFeature(AgentFeature.KERNEL_DISPATCH) ? gpuQueues : cpuQueues).add(q);
                }
            }
            out.printf("soak: %d agents (%d GPU), %d queues, %d host threads, %.1f s, seed %d%n", rt.agents().size(),
                    rt.gpuAgents().size(), gpuQueues.size() + cpuQueues.size(), threadCount, duration.toMillis() / 1e3,
                    seed);
            out.println("soak: before: " + memory(rt));

            long deadline = System.nanoTime() + duration.toNanos();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < threadCount; t++) {
                Producer p = new Producer(rt, kernel, gpuQueues, cpuQueues, new SplittableRandom(seed + t), deadline);
                threads.add(Thread.ofPlatform().name("soak-" + t).start(p));
            }
            long report = Math.max(duration.toNanos() / 10, TimeUnit.SECONDS.toNanos(1));
            long nextReport = System.nanoTime() + report;
            long started = System.nanoTime();
            boolean finished = true;
            for (Thread thread : threads) {
                // each thread stops at the deadline and then waits at most PACKET_WAIT per packet of its round
                long limit = deadline + PACKET_WAIT.toNanos() * (ROUND + 1);
                while (thread.isAlive() && System.nanoTime() - limit < 0) {
                    thread.join(Duration.ofMillis(Math.max(1, TimeUnit.NANOSECONDS.toMillis(
                            Math.min(limit, nextReport) - System.nanoTime()))));
                    if (System.nanoTime() - nextReport >= 0) {
                        out.printf("soak: %5.0f s: %s; process RSS %s%n", (System.nanoTime() - started) / 1e9, counts(),
                                residentSetSize());
                        nextReport += report;
                    }
                }
                finished &= !thread.isAlive();
            }
            out.printf("soak: done after %.1f s: %s%n", (System.nanoTime() - started) / 1e9, counts());
            out.printf("soak: dispatch %,d, barrier-AND %,d, barrier-OR %,d, agent dispatch %,d; kernels run %,d, "
                    + "handlers run %,d, queue errors %d%n", dispatches.sum(), barrierAnds.sum(), barrierOrs.sum(),
                    agentDispatches.sum(), kernelsRun.sum(), handlersRun.sum(), queueErrors.get());
            out.println("soak: after:  " + memory(rt));
            boolean ok = finished && lost.sum() == 0 && failed.sum() == 0 && queueErrors.get() == 0
                    && kernelsRun.sum() == dispatches.sum() && handlersRun.sum() == agentDispatches.sum()
                    && completions.sum() == packets();
            out.println(ok ? "soak: PASS" : "soak: FAIL" + (finished ? "" : " (a host thread did not finish)"));
            return ok ? 0 : 1;
        }
    }

    private long packets() {
        return dispatches.sum() + barrierAnds.sum() + barrierOrs.sum() + agentDispatches.sum();
    }

    private String counts() {
        return String.format("packets %,d, completions %,d, lost %d, failed %d", packets(), completions.sum(),
                lost.sum(), failed.sum());
    }

    /** Heap used after a GC, the runtime's off-heap reservation, the JDK's direct memory and the live signals. */
    private static String memory(HsaRuntime rt) {
        System.gc();
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        MemoryUsage nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage();
        long direct = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            direct += pool.getMemoryUsed();
        }
        return String.format("heap %.1f MiB (%.1f MiB committed), off-heap %.1f MiB reserved by the runtime, "
                + "%.1f MiB direct, %d live signals; JVM non-heap (code, metaspace) %.1f MiB, process RSS %s",
                heap.getUsed() / 1048576.0, heap.getCommitted() / 1048576.0, rt.memory().reservedBytes() / 1048576.0,
                direct / 1048576.0, rt.signals().liveSignals(), nonHeap.getUsed() / 1048576.0, residentSetSize());
    }

    /** The process's resident set size from /proc/self/status, or "unknown" where there is none. */
    private static String residentSetSize() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return String.format("%.1f MiB", Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: say so below
        }
        return "unknown";
    }

    /** One host thread: rounds of random packets until the deadline. */
    private final class Producer implements Runnable {
        private final List<Queue> gpuQueues;
        private final List<Queue> cpuQueues;
        private final List<Queue> allQueues = new ArrayList<>();
        private final SplittableRandom random;
        private final long deadline;
        private final long kernel;
        private final Signal[] done = new Signal[ROUND];

        Producer(HsaRuntime rt, long kernel, List<Queue> gpuQueues, List<Queue> cpuQueues, SplittableRandom random,
                 long deadline) {
            this.kernel = kernel;
            this.gpuQueues = gpuQueues;
            this.cpuQueues = cpuQueues;
            allQueues.addAll(gpuQueues);
            allQueues.addAll(cpuQueues);
            this.random = random;
            this.deadline = deadline;
            for (int i = 0; i < ROUND; i++) {
                done[i] = rt.createSignal(1);
            }
        }

        @Override
        public void run() {
            try {
                while (System.nanoTime() - deadline < 0) {
                    for (int i = 0; i < ROUND; i++) {
                        submit(i);
                    }
                    if (!awaitRound()) {
                        return;
                    }
                }
                for (Signal s : done) {
                    s.destroy();
                }
            } catch (HsaException e) {
                failed.increment();
                out.println("soak: " + Thread.currentThread().getName() + " stopped: " + e);
            }
        }

        /** Submits packet {@code i} of the round with completion signal {@code done[i]}. */
        private void submit(int i) {
            int kind = random.nextInt(10);
            if (kind < 2 && i > 0) {
                barrier(i, kind == 0);
            } else if (kind < 4) {
                agentDispatch(cpuQueues.get(random.nextInt(cpuQueues.size())), i);
            } else {
                dispatch(gpuQueues.get(random.nextInt(gpuQueues.size())), i);
            }
        }

        private short header(PacketType type) {
            return PacketHeader.of(type, random.nextInt(8) == 0, FenceScope.SYSTEM, FenceScope.SYSTEM);
        }

        private void dispatch(Queue q, int i) {
            int grid = 1 + random.nextInt(512);
            q.launch(kernel).grid(grid).workgroup(64).barrier(random.nextInt(8) == 0).completion(done[i]).dispatch();
            dispatches.increment();
        }

        private void agentDispatch(Queue q, int i) {
            long id = q.reserveSlot();
            AgentDispatchPacket p = q.agentDispatchPacket(id);
            p.clearBody();
            p.arg(0, i).completionSignal(done[i].handle());
            p.publish(header(PacketType.AGENT_DISPATCH), AGENT_FUNCTION);
            q.ringDoorbell(id);
            agentDispatches.increment();
        }

        /** A barrier-AND or barrier-OR on any queue over one to five signals of earlier packets of this round. */
        private void barrier(int i, boolean and) {
            Queue q = allQueues.get(random.nextInt(allQueues.size()));
            long id = q.reserveSlot();
            BarrierPacket p = q.barrierPacket(id);
            p.clearBody();
            int deps = 1 + random.nextInt(BarrierPacket.DEP_SIGNAL_COUNT);
            for (int d = 0; d < deps; d++) {
                // empty slots may sit between dependencies
                int slot = random.nextInt(BarrierPacket.DEP_SIGNAL_COUNT);
                p.depSignal(slot, done[random.nextInt(i)].handle());
            }
            p.completionSignal(done[i].handle());
            p.publish(header(and ? PacketType.BARRIER_AND : PacketType.BARRIER_OR));
            q.ringDoorbell(id);
            (and ? barrierAnds : barrierOrs).increment();
        }

        /** Waits for every packet of the round, then resets the signals; false when one was lost. */
        private boolean awaitRound() {
            for (int i = 0; i < ROUND; i++) {
                long waitDeadline = System.nanoTime() + PACKET_WAIT.toNanos();
                long v;
                while ((v = done[i].waitScacquire(SignalCondition.EQ, 0, Math.max(0, waitDeadline - System.nanoTime()),
                        WaitState.BLOCKED)) != 0 && System.nanoTime() - waitDeadline < 0) {
                    Thread.onSpinWait();
                }
                if (v != 0) {
                    long missing = 0;
                    for (int j = i; j < ROUND; j++) {
                        missing += done[j].loadScacquire() != 0 ? 1 : 0;
                    }
                    lost.add(missing);
                    completions.add(ROUND - i - missing);
                    out.println("soak: " + Thread.currentThread().getName() + ": packet " + i + " of its round did "
                            + "not complete within " + PACKET_WAIT.toSeconds() + " s (signal at " + v + "); "
                            + missing + " of the round's packets lost");
                    return false;
                }
                completions.increment();
            }
            for (Signal s : done) {
                s.storeRelaxed(1);
            }
            return true;
        }
    }
}
