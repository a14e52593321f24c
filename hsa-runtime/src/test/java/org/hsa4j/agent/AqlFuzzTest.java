package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueState;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A seeded fuzz of the packet processors: 10,000 packets with random headers, types,
 * dimensions, sizes, fence scopes, kernel objects, kernarg addresses and signal handles go into
 * queues of two GPU agents and the CPU agent, mixed with well-formed packets so queues live long
 * enough to hold several. A queue that stops taking packets is retired and replaced.
 *
 * <p>It asserts behaviour only, never which status a bad packet earns: the JVM survives, nothing
 * hangs (every wait is bounded and the final drain of every live queue completes or fails), every
 * queue that entered ERROR had exactly one error callback and every other queue none, and a
 * healthy queue on each agent keeps completing dispatches during and after the fuzzing.
 *
 * <p>The inputs never ask for something that may legally wait forever: dependencies are signals
 * held at 0 or bad handles (a destroyed signal's handle is made fresh for each packet, see
 * {@link #destroyedSignal()}), never a signal that stays non-zero, no header carries the INVALID type
 * (that is "not yet published"), a barrier-OR always names at least one dependency, and a dispatch
 * of a real kernel stays small. The seed is printed; {@code -Dhsa4j.fuzz.seed=N} replays a run and
 * {@code -Dhsa4j.fuzz.packets=N} makes a longer one.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AqlFuzzTest {
    static final int PACKETS = Integer.getInteger("hsa4j.fuzz.packets", 10_000);
    /** Fuzzed queues alive at once, spread over the agents. */
    static final int LIVE_QUEUES = 9;
    static final int QUEUE_SIZE = 16;
    /** A healthy dispatch on every agent after this many fuzzed packets. */
    static final int HEALTH_CHECK_EVERY = 1_000;

    /** A fuzzed queue and its error callbacks. */
    record FuzzQueue(Queue queue, AtomicInteger callbacks) {
    }

    private HsaRuntime rt;
    private long noop;
    private long needsArgs;
    private long kernarg;
    private long plainMemory;
    private final List<Signal> completions = new ArrayList<>();
    private final List<Signal> zeroDeps = new ArrayList<>();
    private long failedSignal;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(2).computeUnits(2).build());
        Executable exe = rt.createExecutable()
                .define("noop", KernelDescriptor.EMPTY, wi -> { })
                .define("needs_args", KernelDescriptor.withKernarg(16), wi -> { })
                .freeze();
        noop = exe.symbol("noop").kernelObject();
        needsArgs = exe.symbol("needs_args").kernelObject();
        kernarg = rt.kernargPool().allocate(64);
        plainMemory = rt.hostMalloc(64);
        for (int i = 0; i < 8; i++) {
            completions.add(rt.createSignal(1L << 40));
            zeroDeps.add(rt.createSignal(0));
        }
        Signal failed = rt.createSignal(1);
        failed.fail(new HsaException(HsaStatus.ERROR, "failed on purpose by the fuzz test"));
        failedSignal = failed.handle();
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    @Test
    void shouldSurviveRandomPacketsWithOneCallbackPerFailedQueueAndHealthyQueuesWorking() {
        long seed = Long.getLong("hsa4j.fuzz.seed", System.nanoTime());
        System.out.println("AqlFuzzTest seed " + seed + " (replay with -Dhsa4j.fuzz.seed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        List<Agent> agents = rt.agents();
        List<Queue> healthy = new ArrayList<>();
        for (Agent agent : agents) {
            healthy.add(agent.createQueue(QUEUE_SIZE, QueueType.MULTI, null));
        }
        FuzzQueue[] live = new FuzzQueue[LIVE_QUEUES];
        List<FuzzQueue> retired = new ArrayList<>();
        for (int i = 0; i < LIVE_QUEUES; i++) {
            live[i] = newQueue(agents.get(i % agents.size()));
        }

        long started = System.nanoTime();
        for (int n = 0; n < PACKETS; n++) {
            int i = random.nextInt(LIVE_QUEUES);
            while (!submitRandom(live[i].queue(), random)) {
                retired.add(retire(live[i], seed));
                live[i] = newQueue((Agent) live[i].queue().agent());
            }
            if (n % HEALTH_CHECK_EVERY == HEALTH_CHECK_EVERY - 1) {
                assertHealthy(healthy, seed);
            }
        }
        for (FuzzQueue q : live) {
            drain(q);
        }
        double seconds = (System.nanoTime() - started) / 1e9;

        int failedQueues = 0;
        List<FuzzQueue> all = new ArrayList<>(retired);
        all.addAll(List.of(live));
        for (FuzzQueue q : all) {
            if (q.queue().state() == QueueState.ERROR || q.queue().state() == QueueState.DESTROYED) {
                failedQueues++;
                assertOneCallback(q, seed);
            } else {
                assertEquals(QueueState.ACTIVE, q.queue().state(), "seed " + seed);
                assertEquals(0, q.callbacks().get(), "error callbacks of a queue that is still active, seed " + seed);
            }
        }
        assertHealthy(healthy, seed);
        System.out.printf("AqlFuzzTest: %,d packets into %d queues (%d entered ERROR) in %.1f s%n", PACKETS,
                all.size(), failedQueues, seconds);
        assertTrue(failedQueues > 0, "the fuzzing put no queue in ERROR, seed " + seed);
    }

    private FuzzQueue newQueue(Agent agent) {
        AtomicInteger callbacks = new AtomicInteger();
        Queue q = agent.createQueue(QUEUE_SIZE, QueueType.MULTI, (e, queue) -> callbacks.incrementAndGet());
        return new FuzzQueue(q, callbacks);
    }

    /** Checks the callback of a queue that refused a packet, then destroys it (bounded). */
    private FuzzQueue retire(FuzzQueue q, long seed) {
        assertEquals(QueueState.ERROR, q.queue().state(), "a queue refused a packet, seed " + seed);
        assertOneCallback(q, seed);
        q.queue().destroy();
        return q;
    }

    private static void assertOneCallback(FuzzQueue q, long seed) {
        // the state flips before the callback runs: wait (bounded) for it, then count
        Await.until(() -> q.callbacks().get() > 0, "the error callback of " + q.queue() + ", seed " + seed);
        assertEquals(1, q.callbacks().get(), "error callbacks of " + q.queue() + ", seed " + seed);
    }

    /** Sends a barrier-AND through a still active queue and waits for it (a failure means it entered ERROR). */
    private void drain(FuzzQueue q) {
        Signal done = rt.createSignal(1);
        try {
            Submit.barrierAnd(q.queue(), done);
            Await.completion(done);
        } catch (HsaException e) {
            // the queue entered ERROR before or at this packet: its callback is checked by the caller
        }
    }

    /** A dispatch (a barrier-AND on the CPU agent) completes on every healthy queue. */
    private void assertHealthy(List<Queue> healthy, long seed) {
        for (Queue q : healthy) {
            Signal done = rt.createSignal(1);
            if (((Agent) q.agent()).hasFeature(AgentFeature.KERNEL_DISPATCH)) {
                Submit.kernel(q, noop).grid(300).workgroup(64).completion(done).submit();
            } else {
                Submit.barrierAnd(q, done, zeroDeps.get(0).handle());
            }
            Await.completion(done);
            assertEquals(QueueState.ACTIVE, q.state(), "healthy queue " + q + ", seed " + seed);
        }
    }

    /** Writes one random packet into {@code q}; false when the queue no longer takes packets. */
    private boolean submitRandom(Queue q, SplittableRandom random) {
        long id;
        try {
            id = q.reserveSlot();
        } catch (HsaException e) {
            assertEquals(HsaStatus.INVALID_QUEUE, e.status(), e.getMessage());
            return false;
        }
        MemorySegment ring = q.ring();
        long off = q.slotOffset(id);
        int word = switch (random.nextInt(10)) {
            case 0 -> randomBytes(ring, off, random);
            case 1, 2 -> randomDispatch(ring, off, random);
            case 3, 4 -> randomBarrier(ring, off, random);
            default -> goodPacket(ring, off, (Agent) q.agent(), random);
        };
        q.agent().svm().atomicStoreInt(q.packetAddress(id), word, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        q.ringDoorbell(id);
        return true;
    }

    /** Random body bytes and a random header word of any type but INVALID. */
    private static int randomBytes(MemorySegment ring, long off, SplittableRandom random) {
        for (long b = 8; b < AqlPacket.SIZE; b += 8) {
            ring.set(ValueLayout.JAVA_LONG, off + b, random.nextLong());
        }
        ring.set(ValueLayout.JAVA_INT, off + 4, random.nextInt());
        int word = random.nextInt();
        if (PacketHeader.typeCode(word) == PacketType.INVALID.code()) {
            word ^= 1;
        }
        return word;
    }

    /** A kernel dispatch whose every field may be bad. */
    private int randomDispatch(MemorySegment ring, long off, SplittableRandom random) {
        clearBody(ring, off);
        long kernelObject = switch (random.nextInt(8)) {
            case 0, 1, 2 -> noop;
            case 3 -> needsArgs;
            case 4 -> 0;
            case 5 -> plainMemory;
            case 6 -> completions.get(0).handle();
            default -> random.nextLong();
        };
        boolean real = kernelObject == noop || kernelObject == needsArgs;
        for (int d = 0; d < 3; d++) {
            ring.set(ValueLayout.JAVA_SHORT, off + KernelDispatchPacket.WORKGROUP_SIZE_X + 2L * d,
                    (short) pick(random, 0, 1, 1 + random.nextInt(16), 64, 256, 257, 0xFFFF));
            ring.set(ValueLayout.JAVA_INT, off + KernelDispatchPacket.GRID_SIZE_X + 4L * d,
                    real ? pick(random, 0, 1, 1 + random.nextInt(64)) : random.nextInt());
        }
        ring.set(ValueLayout.JAVA_INT, off + KernelDispatchPacket.PRIVATE_SEGMENT_SIZE,
                pick(random, 0, 0, 16, random.nextInt()));
        ring.set(ValueLayout.JAVA_INT, off + KernelDispatchPacket.GROUP_SEGMENT_SIZE,
                pick(random, 0, 0, 1024, random.nextInt()));
        ring.set(ValueLayout.JAVA_LONG, off + KernelDispatchPacket.KERNEL_OBJECT, kernelObject);
        ring.set(ValueLayout.JAVA_LONG, off + KernelDispatchPacket.KERNARG_ADDRESS,
                pickLong(random, 0, kernarg, kernarg + 56, plainMemory, random.nextLong()));
        ring.set(ValueLayout.JAVA_LONG, off + AqlPacket.COMPLETION_SIGNAL, randomSignal(random));
        int setup = pick(random, 1, 2, 3, 0, random.nextInt(0x10000));
        return PacketHeader.word(randomHeader(PacketType.KERNEL_DISPATCH, random), (short) setup);
    }

    /** A barrier-AND or barrier-OR whose dependencies are 0-valued signals, empty slots or bad handles. */
    private int randomBarrier(MemorySegment ring, long off, SplittableRandom random) {
        clearBody(ring, off);
        boolean and = random.nextBoolean();
        boolean any = false;
        for (int i = 0; i < BarrierPacket.DEP_SIGNAL_COUNT; i++) {
            long dep = switch (random.nextInt(12)) {
                case 0, 1, 2, 3, 4, 5 -> 0;
                case 6, 7, 8 -> zeroDeps.get(random.nextInt(zeroDeps.size())).handle();
                case 9 -> failedSignal;
                case 10 -> destroyedSignal();
                default -> pickLong(random, random.nextLong(), plainMemory, noop);
            };
            any |= dep != 0;
            ring.set(ValueLayout.JAVA_LONG, off + BarrierPacket.DEP_SIGNAL0 + 8L * i, dep);
        }
        if (!and && !any) {
            // a barrier-OR with no dependency at all may wait forever: not a fault to look for here
            ring.set(ValueLayout.JAVA_LONG, off + BarrierPacket.DEP_SIGNAL0, zeroDeps.get(0).handle());
        }
        ring.set(ValueLayout.JAVA_LONG, off + AqlPacket.COMPLETION_SIGNAL, randomSignal(random));
        return PacketHeader.word(randomHeader(and ? PacketType.BARRIER_AND : PacketType.BARRIER_OR, random), (short) 0);
    }

    /** A packet the agent runs: a small dispatch of a real kernel, or a barrier on an agent without kernels. */
    private int goodPacket(MemorySegment ring, long off, Agent agent, SplittableRandom random) {
        clearBody(ring, off);
        Signal done = completions.get(random.nextInt(completions.size()));
        ring.set(ValueLayout.JAVA_LONG, off + AqlPacket.COMPLETION_SIGNAL, done.handle());
        if (!agent.hasFeature(AgentFeature.KERNEL_DISPATCH)) {
            ring.set(ValueLayout.JAVA_LONG, off + BarrierPacket.DEP_SIGNAL0, zeroDeps.get(1).handle());
            return PacketHeader.word(PacketHeader.of(PacketType.BARRIER_AND, random.nextBoolean(),
                    FenceScope.SYSTEM, FenceScope.SYSTEM), (short) 0);
        }
        ring.set(ValueLayout.JAVA_SHORT, off + KernelDispatchPacket.WORKGROUP_SIZE_X, (short) (1 + random.nextInt(64)));
        ring.set(ValueLayout.JAVA_SHORT, off + KernelDispatchPacket.WORKGROUP_SIZE_Y, (short) 1);
        ring.set(ValueLayout.JAVA_SHORT, off + KernelDispatchPacket.WORKGROUP_SIZE_Z, (short) 1);
        ring.set(ValueLayout.JAVA_INT, off + KernelDispatchPacket.GRID_SIZE_X, 1 + random.nextInt(256));
        ring.set(ValueLayout.JAVA_INT, off + KernelDispatchPacket.GRID_SIZE_Y, 1);
        ring.set(ValueLayout.JAVA_INT, off + KernelDispatchPacket.GRID_SIZE_Z, 1);
        ring.set(ValueLayout.JAVA_LONG, off + KernelDispatchPacket.KERNEL_OBJECT, noop);
        return PacketHeader.word(PacketHeader.of(PacketType.KERNEL_DISPATCH, random.nextBoolean(),
                FenceScope.SYSTEM, FenceScope.SYSTEM), (short) 1);
    }

    /** A header of {@code type} with a random barrier bit and random (also reserved) fence scopes. */
    private static short randomHeader(PacketType type, SplittableRandom random) {
        int scopes = random.nextInt(4) == 0 ? random.nextInt(16) : (2 << 2) | 2;
        return (short) (type.code() | (random.nextBoolean() ? 1 << PacketHeader.BARRIER_SHIFT : 0)
                | scopes << PacketHeader.ACQUIRE_FENCE_SCOPE_SHIFT);
    }

    /** A completion signal handle: none, a live signal, a failed or destroyed one, or not a signal. */
    private long randomSignal(SplittableRandom random) {
        return switch (random.nextInt(10)) {
            case 0, 1 -> 0;
            case 2, 3, 4, 5, 6 -> completions.get(random.nextInt(completions.size())).handle();
            case 7 -> failedSignal;
            case 8 -> destroyedSignal();
            default -> pickLong(random, random.nextLong(), plainMemory, noop);
        };
    }

    /**
     * The handle of a signal destroyed just now. A handle destroyed once at the start would not stay
     * dead: the runtime reuses a freed slot once {@link org.hsa4j.signal.SignalManager#REUSE_DISTANCE}
     * others were freed after it, and every retired queue frees its doorbell, so within one run the
     * old handle came to name a live doorbell, and a barrier depending on it waited (legally) forever.
     */
    private long destroyedSignal() {
        Signal destroyed = rt.createSignal(0);
        long handle = destroyed.handle();
        destroyed.destroy();
        return handle;
    }

    private static void clearBody(MemorySegment ring, long off) {
        ring.asSlice(off + 4, AqlPacket.SIZE - 4).fill((byte) 0);
    }

    private static int pick(SplittableRandom random, int... values) {
        return values[random.nextInt(values.length)];
    }

    private static long pickLong(SplittableRandom random, long... values) {
        return values[random.nextInt(values.length)];
    }
}
