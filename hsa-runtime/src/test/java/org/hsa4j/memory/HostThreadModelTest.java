package org.hsa4j.memory;

import static org.hsa4j.memory.KernelLauncher.arg;
import static org.hsa4j.memory.KernelLauncher.await;
import static org.hsa4j.memory.KernelLauncher.launch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fidelity mode's host threads (issue 21 part 1): a host thread's plain stores wait in its store
 * buffer until it releases at AGENT or SYSTEM scope, and its plain loads are served from its own
 * copy of a line until it acquires. Each test orders host and kernel with relaxed operations only
 * (or a kernel that reads after the host's step), so the outcome depends on the operation under test.
 */
@Timeout(60)
class HostThreadModelTest {
    private static final long PATIENCE_NANOS = 20_000_000_000L;
    private static final int OLD = 0;
    private static final int NEW = 42;
    /** Lines of a host thread's store buffer (the coherence package's HostStoreBuffer.LINES, not visible here). */
    private static final int BUFFER_LINES = 64;

    private HsaRuntime rt;
    private Queue queue;

    @AfterEach
    void close() {
        if (rt != null) {
            rt.close();
        }
    }

    private void start(boolean fidelity) {
        rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(1).computeUnits(1).fidelity(fidelity).build());
        queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
    }

    /** A kernel that waits (scacquire) until {@code ring} is non-zero, then copies the int at arg 0 to arg 1. */
    private DispatchCompletion readerWaitingFor(Signal ring, long data, long out) {
        return launch(rt, queue, wi -> {
            long deadline = System.nanoTime() + PATIENCE_NANOS;
            while (ring.waitScacquire(SignalCondition.NE, 0, 1_000_000L, WaitState.BLOCKED) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the kernel never saw the ring");
                }
            }
            wi.svm().setInt(arg(wi, 1), wi.svm().getInt(arg(wi, 0)));
        }, 1, 1, data, out);
    }

    /** Host: writes {@code NEW} after the kernel started, rings with {@code order}; returns what the kernel read. */
    private int kernelReadAfterRing(MemoryOrder order) {
        long data = rt.hostMalloc(64);
        long out = rt.hostMalloc(64);
        Signal ring = rt.createSignal(0);
        rt.svm().setInt(data, OLD);
        DispatchCompletion done = readerWaitingFor(ring, data, out);
        rt.svm().setInt(data, NEW);
        ring.store(1, order);
        await(done);
        return rt.svm().getInt(out);
    }

    @Test
    void shouldKeepHostStoreFromKernelWhenRingIsRelaxed() {
        start(true);
        assertEquals(OLD, kernelReadAfterRing(MemoryOrder.RELAXED), "a relaxed ring published the host's store");
    }

    @Test
    void shouldPublishHostStoreWhenRingIsScrelease() {
        start(true);
        assertEquals(NEW, kernelReadAfterRing(MemoryOrder.RELEASE));
    }

    @Test
    void shouldPublishHostStoreWithSystemReleaseFenceBeforeRelaxedRing() {
        start(true);
        long data = rt.hostMalloc(64);
        long out = rt.hostMalloc(64);
        Signal ring = rt.createSignal(0);
        rt.svm().setInt(data, OLD);
        DispatchCompletion done = readerWaitingFor(ring, data, out);
        rt.svm().setInt(data, NEW);
        Svm.fence(MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        ring.storeRelaxed(1);
        await(done);
        assertEquals(NEW, rt.svm().getInt(out));
    }

    @Test
    void shouldKeepHostStoreWithWorkgroupReleaseFence() {
        start(true);
        long data = rt.hostMalloc(64);
        long out = rt.hostMalloc(64);
        Signal ring = rt.createSignal(0);
        rt.svm().setInt(data, OLD);
        DispatchCompletion done = readerWaitingFor(ring, data, out);
        rt.svm().setInt(data, NEW);
        Svm.fence(MemoryOrder.RELEASE, MemoryScope.WORKGROUP);
        ring.storeRelaxed(1);
        await(done);
        assertEquals(OLD, rt.svm().getInt(out), "a workgroup-scope fence published the host's store");
    }

    @Test
    void shouldPublishHostStoreInNormalModeWithoutRelease() {
        start(false);
        assertEquals(NEW, kernelReadAfterRing(MemoryOrder.RELAXED), "normal mode changed behaviour");
    }

    /** A kernel writes NEW to data, then 1 to flag with a system release; the host polls flag with {@code order}, then reads data. */
    private int hostReadAfterFlag(MemoryOrder order, boolean fenceAfter) {
        long data = rt.hostMalloc(64);
        long flag = rt.hostMalloc(64);
        rt.svm().setInt(data, OLD);
        DispatchCompletion done = launch(rt, queue, wi -> {
            wi.svm().setInt(arg(wi, 0), NEW);
            wi.svm().atomicStoreInt(arg(wi, 1), 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        }, 1, 1, data, flag);
        long deadline = System.nanoTime() + PATIENCE_NANOS;
        while (rt.svm().atomicLoadInt(flag, order, MemoryScope.SYSTEM) == 0) {
            if (System.nanoTime() - deadline > 0) {
                fail("the host never saw the kernel's flag");
            }
            Thread.onSpinWait();
        }
        if (fenceAfter) {
            Svm.fence(MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
        }
        int seen = rt.svm().getInt(data);
        await(done);
        return seen;
    }

    @Test
    void shouldServeHostLoadFromItsOwnStaleCopyAfterRelaxedFlagLoad() {
        start(true);
        assertEquals(OLD, hostReadAfterFlag(MemoryOrder.RELAXED, false), "a relaxed flag load acquired");
    }

    @Test
    void shouldServeHostLoadFreshAfterAcquireFlagLoad() {
        start(true);
        assertEquals(NEW, hostReadAfterFlag(MemoryOrder.ACQUIRE, false));
    }

    @Test
    void shouldServeHostLoadFreshAfterRelaxedFlagLoadAndSystemAcquireFence() {
        start(true);
        assertEquals(NEW, hostReadAfterFlag(MemoryOrder.RELAXED, true));
    }

    @Test
    void shouldReadHostsOwnUnreleasedStore() {
        start(true);
        long data = rt.hostMalloc(64);
        rt.svm().setInt(data, NEW);
        Svm.fence(MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
        assertEquals(NEW, rt.svm().getInt(data), "an acquire dropped the thread's own store");
    }

    @Test
    void shouldWriteOldestLineHomeWhenBufferIsFull() throws Exception {
        start(true);
        long lines = BUFFER_LINES + 1;
        long data = rt.hostMalloc(64 * lines);
        for (long i = 0; i < lines; i++) {
            rt.svm().setInt(data + 64 * i, NEW);
        }
        int[] seen = new int[2];
        Thread other = Thread.ofPlatform().start(() -> {
            seen[0] = rt.svm().getInt(data);
            seen[1] = rt.svm().getInt(data + 64 * (lines - 1));
        });
        other.join(PATIENCE_NANOS / 1_000_000);
        assertEquals(NEW, seen[0], "the oldest line was not written home when the buffer filled");
        assertEquals(OLD, seen[1], "the newest line left the buffer without a release");
    }

    @Test
    void shouldWriteEndedThreadsStoresHomeAtNextRelease() throws Exception {
        start(true);
        long data = rt.hostMalloc(64);
        long out = rt.hostMalloc(64);
        Thread writer = Thread.ofPlatform().start(() -> rt.svm().setInt(data, NEW));
        writer.join(PATIENCE_NANOS / 1_000_000);
        await(launch(rt, queue, wi -> wi.svm().setInt(arg(wi, 1), wi.svm().getInt(arg(wi, 0))), 1, 1, data, out));
        assertEquals(NEW, rt.svm().getInt(out), "an ended thread's store was lost");
    }

    @Test
    void shouldWriteHostStoresToRegisteredMemoryBeforeDeregister() {
        start(true);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment own = arena.allocate(64, 64);
            long address = rt.memoryRegister(own);
            rt.svm().setInt(address, NEW);
            rt.memoryDeregister(address);
            assertEquals(NEW, own.get(ValueLayout.JAVA_INT, 0), "the host's store never reached the application's memory");
        }
    }

    @Test
    void shouldNeverWriteFreedAllocationFromBuffer() {
        start(true);
        long data = rt.hostMalloc(64);
        rt.svm().setInt(data, NEW);
        rt.free(data);
        Svm.fence(MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        long again = rt.hostMalloc(64);
        assertNotEquals(NEW, rt.svm().segment(again, 4).get(ValueLayout.JAVA_INT, 0),
                "a buffered store of a freed allocation reached the next allocation");
    }

    @Test
    void shouldKeepPlainStoresAndRawSliceOfOneHostThreadInProgramOrder() {
        start(true);
        long data = rt.hostMalloc(64);
        rt.svm().setInt(data, NEW);
        assertEquals(NEW, rt.svm().segment(data, 4).get(ValueLayout.JAVA_INT, 0), "the slice missed the thread's store");
        rt.svm().segment(data, 4).set(ValueLayout.JAVA_INT, 0, NEW + 1);
        assertEquals(NEW + 1, rt.svm().getInt(data), "a plain load missed the thread's write through the slice");
    }
}
