package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.KernelDescriptor;
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
import org.hsa4j.signal.SignalDescriptor;
import org.hsa4j.signal.SignalManager;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A bad packet of every kind: the queue's error callback gets its status once, the packet's
 * completion signal fails with that status instead of hanging, later packets of the queue fail
 * too, and another queue of the same agent, another agent and the CPU agent keep working.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PacketErrorTest {
    static final int WORKGROUP_MAX = 256;
    static final int GROUP_MAX = 4096;
    static final int PRIVATE_MAX = 512;

    /** The runtime and the kernels a bad packet may name. */
    record Fixture(HsaRuntime rt, Executable exe) {
        long kernel(String name) {
            return exe.symbol(name).kernelObject();
        }
    }

    /** Submits one bad packet on {@code q} with completion signal {@code done}. */
    @FunctionalInterface
    interface BadPacket {
        void submit(Fixture f, Queue q, Signal done);
    }

    private HsaRuntime rt;
    private Fixture fixture;
    private final List<HsaException> errors = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(2).computeUnits(2).workgroupMaxSize(WORKGROUP_MAX)
                .groupSegmentMax(GROUP_MAX).privateSegmentMax(PRIVATE_MAX).build());
        Executable exe = rt.createExecutable()
                .define("noop", KernelDescriptor.EMPTY, wi -> { })
                .define("needs_args", KernelDescriptor.withKernarg(16), wi -> { })
                .define("needs_group", KernelDescriptor.EMPTY.group(1024), wi -> { })
                .define("throws_once", KernelDescriptor.EMPTY, wi -> {
                    if (wi.flatGlobalId() == 37) {
                        throw new IllegalStateException("work-item 37 gave up");
                    }
                })
                .freeze();
        fixture = new Fixture(rt, exe);
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    private static Arguments bad(String name, HsaStatus status, BadPacket packet) {
        return Arguments.of(Named.of(name, packet), status);
    }

    static Stream<Arguments> badPackets() {
        return Stream.of(
                bad("unknown packet type 7", HsaStatus.INVALID_PACKET_FORMAT,
                        (f, q, done) -> Submit.raw(q, 7, done)),
                bad("vendor-specific packet", HsaStatus.INVALID_PACKET_FORMAT,
                        (f, q, done) -> Submit.raw(q, PacketType.VENDOR_SPECIFIC.code(), done)),
                bad("dimensions 0", HsaStatus.INCOMPATIBLE_ARGUMENTS,
                        (f, q, done) -> Submit.kernel(q, f.kernel("noop")).grid(0, 1, 1, 1).completion(done).submit()),
                bad("zero grid", HsaStatus.INCOMPATIBLE_ARGUMENTS,
                        (f, q, done) -> Submit.kernel(q, f.kernel("noop")).grid(0).completion(done).submit()),
                bad("zero grid in y", HsaStatus.INCOMPATIBLE_ARGUMENTS,
                        (f, q, done) -> Submit.kernel(q, f.kernel("noop")).grid(4, 0).completion(done).submit()),
                bad("zero workgroup", HsaStatus.INVALID_ARGUMENT,
                        (f, q, done) -> Submit.kernel(q, f.kernel("noop")).grid(64).workgroup(0).completion(done)
                                .submit()),
                bad("workgroup above the max dimension", HsaStatus.INVALID_ARGUMENT,
                        (f, q, done) -> Submit.kernel(q, f.kernel("noop")).grid(1024).workgroup(WORKGROUP_MAX + 1)
                                .completion(done).submit()),
                bad("workgroup above the max size", HsaStatus.INVALID_ARGUMENT,
                        (f, q, done) -> Submit.kernel(q, f.kernel("noop")).grid(64, 64).workgroup(32, 16)
                                .completion(done).submit()),
                bad("unused grid dimension not 1", HsaStatus.INCOMPATIBLE_ARGUMENTS,
                        (f, q, done) -> Submit.kernel(q, f.kernel("noop")).grid(1, 64, 2, 1).workgroup(64)
                                .completion(done).submit()),
                bad("unused workgroup dimension not 1", HsaStatus.INCOMPATIBLE_ARGUMENTS,
                        (f, q, done) -> Submit.kernel(q, f.kernel("noop")).grid(64, 4).workgroup(8, 2, 2)
                                .completion(done).submit()),
                bad("unknown kernel object", HsaStatus.INVALID_CODE_OBJECT,
                        (f, q, done) -> Submit.kernel(q, 0x1234_5678L).completion(done).submit()),
                bad("null kernel object", HsaStatus.INVALID_CODE_OBJECT,
                        (f, q, done) -> Submit.kernel(q, 0).completion(done).submit()),
                bad("kernel object that is plain memory", HsaStatus.INVALID_CODE_OBJECT,
                        (f, q, done) -> Submit.kernel(q, f.rt().hostMalloc(64)).completion(done).submit()),
                bad("kernarg address outside memory", HsaStatus.MEMORY_FAULT,
                        (f, q, done) -> Submit.kernel(q, f.kernel("needs_args")).kernarg(0xDEAD_0000L).completion(done)
                                .submit()),
                bad("null kernarg address", HsaStatus.MEMORY_FAULT,
                        (f, q, done) -> Submit.kernel(q, f.kernel("needs_args")).completion(done).submit()),
                bad("kernarg smaller than the kernel's", HsaStatus.MEMORY_FAULT,
                        (f, q, done) -> Submit.kernel(q, f.kernel("needs_args"))
                                .kernarg(f.rt().kernargPool().allocate(8)).completion(done).submit()),
                bad("kernarg the agent may not access", HsaStatus.MEMORY_FAULT,
                        (f, q, done) -> Submit.kernel(q, f.kernel("needs_args")).kernarg(f.rt().systemMalloc(16))
                                .completion(done).submit()),
                bad("group segment over the agent limit", HsaStatus.INVALID_ALLOCATION,
                        (f, q, done) -> Submit.kernel(q, f.kernel("noop")).groupSegment(GROUP_MAX + 1)
                                .completion(done).submit()),
                bad("group segment below the kernel's", HsaStatus.INCOMPATIBLE_ARGUMENTS,
                        (f, q, done) -> Submit.kernel(q, f.kernel("needs_group")).groupSegment(512)
                                .completion(done).submit()),
                bad("private segment over the agent limit", HsaStatus.INVALID_ALLOCATION,
                        (f, q, done) -> Submit.kernel(q, f.kernel("noop")).privateSegment(PRIVATE_MAX + 1)
                                .completion(done).submit()),
                bad("reserved acquire fence scope 3", HsaStatus.INVALID_PACKET_FORMAT,
                        (f, q, done) -> Submit.kernel(q, f.kernel("noop"))
                                .headerBits(3 << PacketHeader.ACQUIRE_FENCE_SCOPE_SHIFT).completion(done).submit()),
                bad("reserved release fence scope 3", HsaStatus.INVALID_PACKET_FORMAT,
                        (f, q, done) -> Submit.kernel(q, f.kernel("noop"))
                                .headerBits(3 << PacketHeader.RELEASE_FENCE_SCOPE_SHIFT).completion(done).submit()),
                bad("kernel that throws in one work-item", HsaStatus.EXCEPTION,
                        (f, q, done) -> Submit.kernel(q, f.kernel("throws_once")).grid(100).workgroup(10)
                                .completion(done).submit()));
    }

    /** Holds the head of {@code q} until the bad packet and one behind it are published, then lets go. */
    private Signal submitBehindGate(Queue q, BadPacket bad, Signal badDone) {
        Signal gate = rt.createSignal(1);
        Signal head = rt.createSignal(1);
        Signal later = rt.createSignal(1);
        Submit.barrierAnd(q, head, gate.handle());
        bad.submit(fixture, q, badDone);
        Submit.kernel(q, fixture.kernel("noop")).barrier(true).completion(later).submit();
        gate.storeScrelease(0);
        Await.completion(head);
        return later;
    }

    private Queue gpuQueue(Agent gpu) {
        return gpu.createQueue(16, QueueType.MULTI, (e, queue) -> errors.add(e));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badPackets")
    void shouldFailABadPacketAndItsQueueOnly(BadPacket bad, HsaStatus expected) {
        Queue q = gpuQueue(rt.gpuAgent());
        Signal badDone = rt.createSignal(1);
        Signal later = submitBehindGate(q, bad, badDone);

        HsaException e = assertThrows(HsaException.class, () -> Await.completion(badDone));
        assertEquals(expected, e.status(), e.getMessage());
        HsaException laterFailure = assertThrows(HsaException.class, () -> Await.completion(later));
        assertEquals(expected, laterFailure.status(), laterFailure.getMessage());
        assertEquals(1, errors.size(), "error callbacks: " + errors);
        assertEquals(expected, errors.get(0).status());
        assertEquals(QueueState.ERROR, q.state());
        assertEquals(HsaStatus.INVALID_QUEUE, assertThrows(HsaException.class, q::reserveSlot).status());

        assertOthersKeepWorking();
        assertEquals(1, errors.size(), "the callback ran again: " + errors);
    }

    private void assertOthersKeepWorking() {
        for (Agent gpu : rt.gpuAgents()) {
            Queue other = gpu.createQueue(16, QueueType.MULTI, null);
            Signal done = rt.createSignal(1);
            Submit.kernel(other, fixture.kernel("noop")).grid(300).workgroup(64).completion(done).submit();
            Await.completion(done);
        }
        Signal cpuDone = rt.createSignal(1);
        Submit.barrierAnd(rt.cpuAgent().createQueue(16, QueueType.MULTI, null), cpuDone);
        Await.completion(cpuDone);
    }

    @Test
    void shouldReportACompletionHandleThatIsNotASignalAsInvalidSignal() {
        Queue q = gpuQueue(rt.gpuAgent());
        Signal later = submitBehindGate(q, (f, queue, unused) -> Submit.kernel(queue, f.kernel("noop"))
                .completionHandle(rt.hostMalloc(64)).submit(), null);
        HsaException laterFailure = assertThrows(HsaException.class, () -> Await.completion(later));
        assertEquals(HsaStatus.INVALID_SIGNAL, laterFailure.status());
        assertEquals(1, errors.size());
        assertEquals(HsaStatus.INVALID_SIGNAL, errors.get(0).status());
        assertOthersKeepWorking();
    }

    @Test
    void shouldReportACompletionHandleOnePastASignalBlockAsInvalidSignal() {
        Queue q = gpuQueue(rt.gpuAgent());
        long signalBlock = rt.pointerInfo(rt.createSignal(0).handle()).base();
        long pastTheBlock = signalBlock + SignalManager.SIGNALS_PER_BLOCK * SignalDescriptor.SIZE;
        Signal later = submitBehindGate(q, (f, queue, unused) -> Submit.kernel(queue, f.kernel("noop"))
                .completionHandle(pastTheBlock).submit(), null);
        HsaException laterFailure = assertThrows(HsaException.class, () -> Await.completion(later));
        assertEquals(HsaStatus.INVALID_SIGNAL, laterFailure.status());
        assertEquals(1, errors.size());
        assertEquals(HsaStatus.INVALID_SIGNAL, errors.get(0).status());
        assertOthersKeepWorking();
    }

    @Test
    void shouldNameTheKernelThatThrew() {
        Queue q = gpuQueue(rt.gpuAgent());
        Signal done = rt.createSignal(1);
        Submit.kernel(q, fixture.kernel("throws_once")).grid(100).workgroup(10).completion(done).submit();
        HsaException e = assertThrows(HsaException.class, () -> Await.completion(done));
        assertEquals(HsaStatus.EXCEPTION, e.status());
        assertTrue(e.getMessage().contains("throws_once"), e.getMessage());
        assertTrue(errors.get(0).getMessage().contains("throws_once"), errors.get(0).getMessage());
        assertTrue(errors.get(0).getMessage().contains("work-item 37 gave up"), errors.get(0).getMessage());
    }

    @Test
    void shouldReportEachFailingQueueToItsOwnCallback() {
        Queue first = gpuQueue(rt.gpuAgent());
        Queue second = gpuQueue(rt.gpuAgents().get(1));
        Signal a = rt.createSignal(1);
        Signal b = rt.createSignal(1);
        Submit.raw(first, 7, a);
        Submit.raw(second, PacketType.VENDOR_SPECIFIC.code(), b);
        assertThrows(HsaException.class, () -> Await.completion(a));
        assertThrows(HsaException.class, () -> Await.completion(b));
        assertEquals(2, errors.size());
        assertOthersKeepWorking();
    }
}
