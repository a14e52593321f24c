package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.hsa4j.memory.MemoryPool;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The GPU-resident packet processor on a real device (skipped without one): dispatches, the barrier
 * bit, barrier-AND/OR on host-completed signals, idle park and doorbell wake, bounded close, and
 * refused packets. Every wait is bounded; failures say what the processor's control block showed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CudaResidentGpuTest {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);   // ms of work each: 12 failing tests still fit a 240 s run
    static GpuFixture gpu;
    static CudaResidentProgram program;
    private Queue queue;
    private final CompletableFuture<HsaException> error = new CompletableFuture<>();

    @BeforeAll
    static void open() {
        Gpu.assumeDevice();
        gpu = new GpuFixture();
        program = CudaResidentProgram.builtin(gpu.agent);
    }

    @AfterAll
    static void close() {
        if (gpu != null) {
            gpu.close();
            gpu = null;
        }
    }

    @AfterEach
    void destroy() {
        if (queue != null) {
            queue.destroy();
        }
    }

    private Queue resident(CudaResidentOptions options) {
        queue = gpu.agent.createResidentQueue(256, QueueType.SINGLE, (e, q) -> error.complete(e), program, options);
        return queue;
    }

    private CudaResidentProcessor processor() {
        return gpu.agent.residentProcessor(queue);
    }

    private MemoryPool svm() {
        return gpu.agent.svmPool();
    }

    private MemorySegment bytes(long address, long n) {
        return gpu.runtime.svm().segment(address, n);
    }

    /** A kernarg segment in the registered SVM holding {@code longs} then {@code ints}. */
    private long kernarg(long[] longs, int... ints) {
        long n = Math.max(16, 8L * longs.length + 4L * ints.length + 8);
        long a = svm().allocate(n, 16);
        MemorySegment s = bytes(a, n);
        long at = 0;
        for (long v : longs) {
            s.set(JAVA_LONG, at, v);
            at += 8;
        }
        for (int v : ints) {
            s.set(JAVA_INT, at, v);
            at += 4;
        }
        return a;
    }

    private long dispatch(String kernel, long grid, int workgroup, long kernarg, Signal completion, boolean barrier) {
        return queue.launch(program.kernelObject(kernel)).grid(grid).workgroup(workgroup).kernarg(kernarg)
                .completion(completion).barrier(barrier).dispatch().packetId();
    }

    /** What the processor showed, for failure messages. */
    private String where() {
        CudaResidentProcessor p = processor();
        return p == null ? "no processor" : "state " + ResidentLayout.stateName(p.state()) + ", launches " + p.launches()
                + ", parks " + p.parks() + ", grid live " + p.gridLive() + ", read index " + queue.loadReadIndexScacquire()
                + ", write index " + queue.loadWriteIndexScacquire() + ", queue error "
                + (error.isDone() ? error.join().getMessage() : "none");
    }

    private void awaitZero(Signal s, String what) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        long v;
        while ((v = s.waitScacquire(SignalCondition.EQ, 0, TimeUnit.MILLISECONDS.toNanos(100), WaitState.BLOCKED)) != 0) {
            if (s.failure() != null) {
                fail(what + ": its signal failed: " + s.failure().getMessage() + " (" + where() + ")");
            }
            if (System.nanoTime() - deadline > 0) {
                fail(what + ": signal still " + v + " after 10 s (" + where() + ")");
            }
        }
    }

    private void awaitCondition(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail(what + " within 10 s (" + where() + ")");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private void assertNoQueueError() {
        assertFalse(error.isDone(), () -> "queue error: " + error.join().getMessage());
    }

    /** Vector add of n floats with workgroups of wg; c has 64 sentinel elements past n. */
    private void vectorAdd(int n, int wg) {
        resident(CudaResidentOptions.DEFAULTS);
        long a = svm().allocate(4L * n, 64);
        long b = svm().allocate(4L * n, 64);
        long c = svm().allocate(4L * (n + 64), 64);
        MemorySegment sa = bytes(a, 4L * n);
        MemorySegment sb = bytes(b, 4L * n);
        MemorySegment sc = bytes(c, 4L * (n + 64));
        for (int i = 0; i < n; i++) {
            sa.setAtIndex(JAVA_FLOAT, i, i);
            sb.setAtIndex(JAVA_FLOAT, i, 0.5f * i + 1);
        }
        for (int i = 0; i < n + 64; i++) {
            sc.setAtIndex(JAVA_FLOAT, i, -7f);
        }
        Signal done = gpu.agent.createSignal(1);
        dispatch("hsa4j_r_vector_add", n, wg, kernarg(new long[] {a, b, c}), done, false);
        awaitZero(done, "vector add of " + n);
        for (int i = 0; i < n; i++) {
            float want = i + (0.5f * i + 1);
            if (sc.getAtIndex(JAVA_FLOAT, i) != want) {
                fail("c[" + i + "] = " + sc.getAtIndex(JAVA_FLOAT, i) + ", want " + want + " (" + where() + ")");
            }
        }
        for (int i = n; i < n + 64; i++) {
            assertEquals(-7f, sc.getAtIndex(JAVA_FLOAT, i), "c[" + i + "] is past the grid: untouched");
        }
        // the signal is released at completion, the read index at the processor's next header round: wait for it too
        awaitCondition(() -> queue.loadReadIndexScacquire() == 1, "the processor moves the read index past the packet");
        assertNoQueueError();
    }

    @Test
    void vectorAddOverManyWorkgroupsRunsOnEveryBlock() {
        vectorAdd((1 << 20) + 77, 256);   // 4,097 workgroups, the last partial
    }

    @Test
    void oneWorkgroupDispatchRunsWithPartialWorkgroup() {
        vectorAdd(100, 128);   // one workgroup of which 100 work-items are in the grid
    }

    @Test
    void barrierBitRunsEachStepAfterTheOneBefore() {
        resident(CudaResidentOptions.DEFAULTS);
        int steps = 8;
        long cells = svm().allocate(4L * steps, 64);
        MemorySegment sc = bytes(cells, 4L * steps);
        sc.fill((byte) 0);
        Signal done = gpu.agent.createSignal(1);
        for (int i = 0; i < steps; i++) {
            // earlier steps sleep longer: a step that started before its predecessor ended reads a 0
            long k = kernarg(new long[] {cells}, i, (steps - i) * 200_000);
            dispatch("hsa4j_r_step", 1, 1, k, i == steps - 1 ? done : gpu.agent.createSignal(1), true);
        }
        awaitZero(done, "the last step");
        for (int i = 0; i < steps; i++) {
            assertEquals(i + 1, sc.getAtIndex(JAVA_INT, i), "cells[" + i + "] (" + where() + ")");
        }
        assertNoQueueError();
    }

    @Test
    void barrierBitDispatchReadsWhatTheManyBlockDispatchBeforeItWrote() {
        resident(CudaResidentOptions.DEFAULTS);
        int n = 1 << 20;
        long a = svm().allocate(4L * n, 64);
        long c = svm().allocate(4L * n, 64);
        long d = svm().allocate(4L * n, 64);
        MemorySegment sa = bytes(a, 4L * n);
        MemorySegment sd = bytes(d, 4L * n);
        for (int i = 0; i < n; i++) {
            sa.setAtIndex(JAVA_FLOAT, i, i % 1000);
        }
        Signal done = gpu.agent.createSignal(1);
        dispatch("hsa4j_r_vector_add", n, 256, kernarg(new long[] {a, a, c}), gpu.agent.createSignal(1), false);
        dispatch("hsa4j_r_twice", n, 256, kernarg(new long[] {c, d}), done, true);
        awaitZero(done, "twice after vector add");
        for (int i = 0; i < n; i++) {
            float want = 4f * (i % 1000);
            if (sd.getAtIndex(JAVA_FLOAT, i) != want) {
                fail("d[" + i + "] = " + sd.getAtIndex(JAVA_FLOAT, i) + ", want " + want + " (" + where() + ")");
            }
        }
        assertNoQueueError();
    }

    private void barrier(PacketType type, Signal completion, Signal... deps) {
        long id = queue.reserveSlot();
        BarrierPacket b = queue.barrierPacket(id);
        b.clearBody();
        for (int i = 0; i < deps.length; i++) {
            b.depSignal(i, deps[i].handle());
        }
        b.completionSignal(completion.handle());
        b.publish(PacketHeader.of(type, true, FenceScope.SYSTEM, FenceScope.SYSTEM));
        queue.ringDoorbell(id);
    }

    @Test
    void barrierAndHoldsTheQueueUntilTheHostCompletesItsSignal() {
        resident(CudaResidentOptions.DEFAULTS.withIdleNanos(TimeUnit.MILLISECONDS.toNanos(5)));
        long cells = svm().allocate(64, 64);
        MemorySegment sc = bytes(cells, 64);
        sc.fill((byte) 0);
        Signal dep = gpu.agent.createSignal(1);
        Signal other = gpu.agent.createSignal(0);
        Signal barrierDone = gpu.agent.createSignal(1);
        Signal stepDone = gpu.agent.createSignal(1);
        barrier(PacketType.BARRIER_AND, barrierDone, other, dep);
        dispatch("hsa4j_r_step", 1, 1, kernarg(new long[] {cells}, 0, 0), stepDone, false);
        // held: neither completes while dep is 1 (also across the processor's park-while-waiting relaunches)
        assertEquals(1, stepDone.waitScacquire(SignalCondition.EQ, 0, TimeUnit.MILLISECONDS.toNanos(300), WaitState.BLOCKED),
                () -> "the dispatch behind the barrier ran before its dependency completed (" + where() + ")");
        assertEquals(1, barrierDone.loadScacquire(), "barrier completed early");
        assertEquals(0, sc.get(JAVA_INT, 0), "the step ran early");
        dep.storeScrelease(0);   // the host completes the dependency (a store: the GPU only loads it)
        awaitZero(barrierDone, "barrier-AND");
        awaitZero(stepDone, "the step behind the barrier");
        assertEquals(1, sc.get(JAVA_INT, 0));
        assertNoQueueError();
    }

    @Test
    void barrierOrCompletesWhenOneDependencyIsZero() {
        resident(CudaResidentOptions.DEFAULTS);
        Signal pending = gpu.agent.createSignal(1);
        Signal zero = gpu.agent.createSignal(0);
        Signal done = gpu.agent.createSignal(1);
        barrier(PacketType.BARRIER_OR, done, pending, zero);
        awaitZero(done, "barrier-OR");
        assertEquals(1, pending.loadScacquire());
        assertNoQueueError();
    }

    /** An empty dispatch, waited for. */
    private void runEmpty(String what) {
        Signal done = gpu.agent.createSignal(1);
        dispatch("hsa4j_r_empty", 1, 1, 0, done, false);
        awaitZero(done, what);
    }

    /** A resident queue parking after 2 ms idle, whose grid ran one packet and parked. */
    private CudaResidentProcessor parkedAfterOnePacket() {
        resident(CudaResidentOptions.DEFAULTS.withIdleNanos(TimeUnit.MILLISECONDS.toNanos(2)));
        runEmpty("first dispatch");
        CudaResidentProcessor p = processor();
        awaitCondition(() -> p.parks() >= 1 && !p.gridLive(), "the idle grid parks");
        return p;
    }

    @Test
    void idleGridParksAndTheDoorbellWakesIt() {
        CudaResidentProcessor p = parkedAfterOnePacket();
        assertEquals(ResidentLayout.STATE_PARKED, p.state());
        // what it holds: while serving, the grid; parked, no grid at all (the monitor waits on the doorbell)
        System.out.println("[resident] serving: " + p.blocks() + " blocks x " + ResidentLayout.BLOCK
                + " threads on " + gpu.agent.info().multiprocessors() + " SMs; parked after 2 ms idle: no grid ("
                + p.launches() + " launch, " + p.parks() + " park)");
        long launches = p.launches();
        runEmpty("dispatch after the park");
        assertTrue(p.launches() > launches, "the doorbell relaunched the grid (" + where() + ")");
        awaitCondition(() -> queue.loadReadIndexScacquire() == 2, "the read index passes both packets");
        assertNoQueueError();
    }

    /**
     * A packet published while the grid is parked is in the shadow ring (copied by the launch call),
     * long before the relaunched grid's first look: that look takes it from the line (a shadow hit,
     * no body round), deterministically.
     */
    @Test
    void aPacketPublishedWhileTheGridIsParkedComesFromTheShadowRing() {
        CudaResidentProcessor p = parkedAfterOnePacket();
        long hits = p.phases()[ResidentLayout.PH_SHADOW_HITS];
        long packets = p.phases()[ResidentLayout.PH_PACKETS];
        runEmpty("dispatch after the park");
        awaitCondition(() -> p.parks() >= 2 && !p.gridLive(), "the grid parks again (its phase timer is summed then)");
        long[] ph = p.phases();
        assertEquals(packets + 1, ph[ResidentLayout.PH_PACKETS], "the relaunched grid ran one packet");
        assertEquals(hits + 1, ph[ResidentLayout.PH_SHADOW_HITS], "and took it from its shadow line ("
                + ResidentLayout.phaseReport(ph) + ")");
        assertNoQueueError();
    }

    @Test
    void completedSlotsGoInvalidAndTheReadIndexPassesThemWhileTheGridRuns() {
        resident(CudaResidentOptions.DEFAULTS.withIdleNanos(TimeUnit.SECONDS.toNanos(60)));   // never parks here
        int n = 3;
        Signal[] done = new Signal[n];
        for (int i = 0; i < n; i++) {
            done[i] = gpu.agent.createSignal(1);
            dispatch("hsa4j_r_empty", 1, 1, 0, done[i], false);
        }
        for (int i = 0; i < n; i++) {
            awaitZero(done[i], "dispatch " + i);
        }
        // the processor retires slots late (INVALID, then one fence, then the read index): an idle poll does it
        awaitCondition(() -> queue.loadReadIndexScacquire() == n, "the read index passes the completed packets");
        for (int i = 0; i < n; i++) {
            int word = AqlPacket.loadHeaderWordAcquire(queue.ring(), queue.slotOffset(i));
            assertEquals(PacketType.INVALID.code(), PacketHeader.typeCode(word), "slot " + i + " is INVALID (" + where() + ")");
        }
        assertTrue(processor().gridLive(), "the same grid retired them (" + where() + ")");
        assertNoQueueError();
    }

    @Test
    void destroyStopsARunningGridWithinItsBound() {
        resident(CudaResidentOptions.DEFAULTS.withIdleNanos(TimeUnit.SECONDS.toNanos(60)));   // never parks here
        Signal s = gpu.agent.createSignal(1);
        dispatch("hsa4j_r_empty", 1, 1, 0, s, false);
        awaitZero(s, "dispatch");
        CudaResidentProcessor p = processor();
        assertTrue(p.gridLive(), "the grid still runs before the destroy (" + where() + ")");
        long t0 = System.nanoTime();
        queue.destroy();
        long took = System.nanoTime() - t0;
        queue = null;
        assertFalse(p.gridLive(), "the grid ended");
        assertEquals(ResidentLayout.STATE_STOPPED, p.state());
        assertTrue(took < CudaResidentProcessor.STOP_NANOS, "destroy took " + took / 1_000_000 + " ms");
        assertFalse(error.isDone(), () -> "no error from a clean stop: " + error.join().getMessage());
    }

    @Test
    void phaseTimerCountsEveryPacketAndSaysWhereTheTimeWent() {
        resident(CudaResidentOptions.DEFAULTS.withIdleNanos(TimeUnit.SECONDS.toNanos(60)));   // one grid, no park
        int trips = 2000;
        Signal s = gpu.agent.createSignal(1);
        long t0 = System.nanoTime();
        for (int i = 0; i < trips; i++) {
            s.storeRelaxed(1);
            dispatch("hsa4j_r_empty", 1, 1, 0, s, false);
            awaitZero(s, "round trip " + i);
        }
        long tripNanos = System.nanoTime() - t0;
        int batches = 20;
        int batch = 200;
        long t1 = System.nanoTime();
        short plain = PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.NONE);
        short last = PacketHeader.of(PacketType.KERNEL_DISPATCH, true, FenceScope.SYSTEM, FenceScope.SYSTEM);
        KernelDispatchPacket k = new KernelDispatchPacket();
        for (int b = 0; b < batches; b++) {
            s.storeRelaxed(1);
            long first = queue.addWriteIndexScacqScrel(batch);
            queue.waitForSpace(first + batch - 1);
            for (int i = 0; i < batch; i++) {   // as CudaBatchedDispatchBenchmark: one signal, on the last
                k.wrap(queue.ring(), queue.slotOffset(first + i)).workgroupSize(1, 1, 1).gridSize(1, 1, 1)
                        .privateSegmentSize(0).groupSegmentSize(0).kernelObject(program.kernelObject("hsa4j_r_empty"))
                        .kernargAddress(0).completionSignal(i == batch - 1 ? s.handle() : 0)
                        .publish(i == batch - 1 ? last : plain, 1);
            }
            queue.ringDoorbell(first + batch - 1);
            awaitZero(s, "batch " + b);
        }
        long batchNanos = System.nanoTime() - t1;
        CudaResidentProcessor p = processor();
        queue.destroy();
        queue = null;
        long[] ph = p.phases();
        System.out.printf("resident phase timer: %d round trips %.2f us each (host), %d x %d batched %.2f us/packet (host)%n  %s%n",
                trips, tripNanos / 1e3 / trips, batches, batch, batchNanos / 1e3 / (batches * batch),
                ResidentLayout.phaseReport(ph));
        assertEquals(trips + (long) batches * batch, ph[ResidentLayout.PH_PACKETS], "packets the grid counted");
        assertTrue(ph[ResidentLayout.PH_WINDOWS] >= 1 && ph[ResidentLayout.PH_WINDOWS] <= ph[ResidentLayout.PH_PACKETS],
                "windows " + ph[ResidentLayout.PH_WINDOWS]);
        assertTrue(ph[ResidentLayout.PH_CYCLES] > 0 && ph[ResidentLayout.PH_NANOS] > 0, "the grid's life was timed");
        assertFalse(error.isDone(), () -> "queue error: " + error.join().getMessage());
    }

    @Test
    void secondResidentQueueStartsBesideARunningGrid() {
        // the first grid never parks here: making the second must not wait for it (a context-wide sync would, 60 s)
        resident(CudaResidentOptions.DEFAULTS.withIdleNanos(TimeUnit.SECONDS.toNanos(60)));
        Signal s1 = gpu.agent.createSignal(1);
        dispatch("hsa4j_r_empty", 1, 1, 0, s1, false);
        awaitZero(s1, "dispatch on the first queue");
        CompletableFuture<HsaException> error2 = new CompletableFuture<>();
        long t0 = System.nanoTime();
        Queue second = gpu.agent.createResidentQueue(64, QueueType.SINGLE, (e, q) -> error2.complete(e), program,
                CudaResidentOptions.DEFAULTS);
        long took = System.nanoTime() - t0;
        try {
            assertTrue(took < TimeUnit.SECONDS.toNanos(30), "creating the second queue took " + took / 1_000_000 + " ms");
            Signal s2 = gpu.agent.createSignal(1);
            second.launch(program.kernelObject("hsa4j_r_empty")).grid(64).workgroup(64).kernarg(0).completion(s2).dispatch();
            awaitZero(s2, "dispatch on the second queue");
            Signal s3 = gpu.agent.createSignal(1);
            dispatch("hsa4j_r_empty", 1, 1, 0, s3, false);
            awaitZero(s3, "the first queue still serves");
            assertFalse(error2.isDone(), () -> "second queue error: " + error2.join().getMessage());
        } finally {
            second.destroy();
        }
        assertNoQueueError();
    }

    private void assertRefused(String what, Signal s, String messagePart) {
        HsaException e;
        try {
            e = error.get(10, TimeUnit.SECONDS);
        } catch (Exception x) {
            throw new AssertionError("no queue error for " + what + " (" + where() + ")", x);
        }
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT, e.status(), e.getMessage());
        assertTrue(e.getMessage().contains(messagePart), e.getMessage());
        awaitCondition(() -> s.failure() != null, "the refused packet's signal fails");
        awaitCondition(() -> queue.loadReadIndexScacquire() == 1, "the refused packet is consumed");
    }

    @Test
    void unknownKernelObjectIsRefusedOnTheErrorCallback() {
        resident(CudaResidentOptions.DEFAULTS);
        Signal s = gpu.agent.createSignal(1);
        queue.launch(gpu.kernels.kernel("hsa4j_empty").kernelObject()).grid(1).workgroup(1).kernarg(0).completion(s)
                .dispatch();
        assertRefused("a host-side kernel object", s, "kernel object");
    }

    @Test
    void oneWorkItemAskingForGroupMemoryIsRefused() {
        // the shape the command processor runs without a decode, but for its group segment: the decode refuses it
        resident(CudaResidentOptions.DEFAULTS);
        Signal s = gpu.agent.createSignal(1);
        queue.launch(program.kernelObject("hsa4j_r_empty")).grid(1).workgroup(1).groupSegment(64).kernarg(0)
                .completion(s).dispatch();
        assertRefused("a group segment of 64 bytes", s, "group segment of 64 bytes");
    }

    @Test
    void workgroupLargerThanTheProcessorBlockIsRefused() {
        resident(CudaResidentOptions.DEFAULTS);
        Signal s = gpu.agent.createSignal(1);
        dispatch("hsa4j_r_empty", 1024, 512, 0, s, false);
        assertRefused("workgroup 512", s, "workgroup size 512");
    }

    @Test
    void compiledProgramRunsTheCallersKernel() {
        Gpu.assumeNvrtc();
        CudaResidentProgram own = CudaResidentProgram.compile(gpu.agent, """
                __device__ void add_index(const void* kernarg, const hsa4j_item& it) {
                    int* p = *(int* const*) kernarg;
                    p[it.global_x] += (int) it.global_x;
                }
                """, "add_index");
        queue = gpu.agent.createResidentQueue(64, QueueType.SINGLE, (e, q) -> error.complete(e), own,
                CudaResidentOptions.DEFAULTS);
        int n = 1000;
        long p = svm().allocate(4L * n, 64);
        MemorySegment sp = bytes(p, 4L * n);
        for (int i = 0; i < n; i++) {
            sp.setAtIndex(JAVA_INT, i, 1);
        }
        Signal s = gpu.agent.createSignal(1);
        queue.launch(own.kernelObject("add_index")).grid(n).workgroup(64).kernarg(kernarg(new long[] {p})).completion(s)
                .dispatch();
        awaitZero(s, "add_index");
        for (int i = 0; i < n; i++) {
            assertEquals(1 + i, sp.getAtIndex(JAVA_INT, i), "p[" + i + "]");
        }
        assertNotNull(own.kernels());
        assertNoQueueError();
    }
}
