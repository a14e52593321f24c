package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

import org.hsa4j.packet.AgentDispatchPacket;
import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;

/** The CUDA agent consuming user-mode AQL queues (part 4) and its memory, on a GPU. */
class CudaQueueTest extends GpuQueueTest {
    @Test
    void aHostSegmentKeptPastItsBufferThrowsInsteadOfTouchingFreedMemory() {
        CudaBuffer pinned = gpu.agent.allocatePinned(4096);
        MemorySegment kept = pinned.hostSegment();
        kept.set(JAVA_INT, 0, 7);
        pinned.close();
        assertThrows(IllegalStateException.class, () -> kept.get(JAVA_INT, 0));
        assertEquals(HsaStatus.INVALID_ALLOCATION, assertThrows(HsaException.class, pinned::hostSegment).status());
    }

    @Test
    void vectorAddRunsThroughTheQueueAndDecrementsTheCompletionSignal() {
        int n = 1000;
        try (CudaBuffer a = gpu.agent.allocatePinned(4L * n); CudaBuffer b = gpu.agent.allocatePinned(4L * n);
             CudaBuffer c = gpu.agent.allocatePinned(4L * n)) {
            for (int i = 0; i < n; i++) {
                a.hostSegment().setAtIndex(JAVA_FLOAT, i, i);
                b.hostSegment().setAtIndex(JAVA_FLOAT, i, 2 * i);
            }
            Signal done = gpu.runtime.createSignal(1);
            GpuFixture.dispatch(queue, gpu.kernels.kernel("hsa4j_vector_add"), 256, n,
                    gpu.kernarg(new long[] {a.address(), b.address(), c.address()}, n), done, false);
            GpuFixture.awaitZero(done);
            for (int i = 0; i < n; i++) {
                assertEquals(3f * i, c.hostSegment().getAtIndex(JAVA_FLOAT, i), "c[" + i + "]");
            }
        }
    }

    @Test
    void aPartialLastWorkgroupRunsOnlyTheWorkItemsInTheGrid() {
        int n = 1000;
        try (CudaBuffer out = gpu.agent.allocatePinned(4L * 1024)) {
            out.hostSegment().fill((byte) 0xFF);
            Signal done = gpu.runtime.createSignal(1);
            GpuFixture.dispatch(queue, gpu.kernels.kernel("hsa4j_mark"), 256, n,
                    gpu.kernarg(new long[] {out.address()}, n), done, false);
            GpuFixture.awaitZero(done);
            assertEquals(1024, out.hostSegment().getAtIndex(JAVA_INT, 0), "4 blocks of 256");
            assertEquals(1024, out.hostSegment().getAtIndex(JAVA_INT, n - 1));
            assertEquals(-1, out.hostSegment().getAtIndex(JAVA_INT, n), "past the grid");
        }
    }

    @Test
    void twoHundredFiftySixEmptyDispatchesBehindOneDoorbellAllComplete() {
        Signal done = gpu.runtime.createSignal(256);
        CudaKernel empty = gpu.kernels.kernel("hsa4j_empty");
        long first = queue.reserveSlots(256);
        for (int i = 0; i < 256; i++) {
            var p = queue.kernelDispatchPacket(first + i);
            p.clearBody();
            p.workgroupSize(64, 1, 1).gridSize(64, 1, 1).kernelObject(empty.kernelObject()).completionSignal(done.handle());
            p.publish(PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.NONE, FenceScope.SYSTEM), 1);
        }
        queue.ringDoorbell(first + 255);
        GpuFixture.awaitZero(done);
        assertEquals(first + 256, queue.loadReadIndexScacquire());
    }

    @Test
    void aBarrierAndWaitsForASignalTheHostCompletes() {
        Signal dep = gpu.runtime.createSignal(1);
        Signal done = gpu.runtime.createSignal(1);
        long id = queue.reserveSlot();
        BarrierPacket p = queue.barrierPacket(id);
        p.clearBody();
        p.depSignal(0, dep.handle()).completionSignal(done.handle());
        p.publish(PacketHeader.of(PacketType.BARRIER_AND, true, FenceScope.SYSTEM, FenceScope.SYSTEM));
        queue.ringDoorbell(id);
        assertEquals(1, done.loadScacquire(), "nothing completed the dependency yet");
        dep.storeScrelease(0);
        GpuFixture.awaitZero(done);
    }

    @Test
    void aBarrierOrCompletesWhenOneDependencyIsDone() {
        Signal never = gpu.runtime.createSignal(1);
        Signal ready = gpu.runtime.createSignal(0);
        Signal done = gpu.runtime.createSignal(1);
        long id = queue.reserveSlot();
        BarrierPacket p = queue.barrierPacket(id);
        p.clearBody();
        p.depSignal(0, never.handle()).depSignal(3, ready.handle()).completionSignal(done.handle());
        p.publish(PacketHeader.of(PacketType.BARRIER_OR, false, FenceScope.NONE, FenceScope.NONE));
        queue.ringDoorbell(id);
        GpuFixture.awaitZero(done);
    }

    @Test
    void aKernelBehindABarrierBitRunsAfterTheBarrierCompletes() {
        Signal dep = gpu.runtime.createSignal(1);
        Signal done = gpu.runtime.createSignal(1);
        try (CudaBuffer out = gpu.agent.allocatePinned(4L * 64)) {
            out.hostSegment().fill((byte) 0);
            long id = queue.reserveSlot();
            BarrierPacket b = queue.barrierPacket(id);
            b.clearBody();
            b.depSignal(0, dep.handle());
            b.publish(PacketHeader.of(PacketType.BARRIER_AND, false, FenceScope.SYSTEM, FenceScope.SYSTEM));
            GpuFixture.dispatch(queue, gpu.kernels.kernel("hsa4j_mark"), 64, 64,
                    gpu.kernarg(new long[] {out.address()}, 64), done, true);
            assertEquals(0, out.hostSegment().getAtIndex(JAVA_INT, 0), "the kernel waits for the barrier");
            dep.storeScrelease(0);
            GpuFixture.awaitZero(done);
            assertEquals(64, out.hostSegment().getAtIndex(JAVA_INT, 0));
        }
    }

    @Test
    void anAgentDispatchPacketIsRefusedOnTheErrorCallback() throws Exception {
        Signal done = gpu.runtime.createSignal(1);
        long id = queue.reserveSlot();
        AgentDispatchPacket p = queue.agentDispatchPacket(id);
        p.clearBody();
        p.completionSignal(done.handle());
        p.publish(PacketHeader.of(PacketType.AGENT_DISPATCH, false, FenceScope.NONE, FenceScope.NONE), (short) 1);
        queue.ringDoorbell(id);
        HsaException e = error.get(60, TimeUnit.SECONDS);
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT, e.status());
        assertTrue(e.getMessage().contains("does not run agent dispatch packets"), e.getMessage());
        HsaException failed = assertThrows(HsaException.class, () -> GpuFixture.awaitZero(done));
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT, failed.status());
    }

    @Test
    void anInvalidPacketIsRejectedWithItsStatusAndTheSignalFails() throws Exception {
        Signal done = gpu.runtime.createSignal(1);
        GpuFixture.dispatch(queue, gpu.kernels.kernel("hsa4j_vector_add"), 2048, 4096, 0, done, false);
        HsaException failed = assertThrows(HsaException.class, () -> GpuFixture.awaitZero(done));
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT, failed.status());
        assertTrue(error.isDone(), "the error callback ran before the signal failed");
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT, error.get().status());
    }

    @Test
    void sync1WayCountsEverySystemScopeAtomicExactly() {
        try (CudaBuffer counter = gpu.agent.allocatePinned(64)) {
            MemorySegment host = counter.hostSegment();
            host.set(JAVA_INT, 0, 0);
            Signal done = gpu.runtime.createSignal(1);
            long t0 = System.nanoTime();
            GpuFixture.dispatch(queue, gpu.kernels.kernel("hsa4j_count"), 256, 1024 * 256,
                    gpu.kernarg(new long[] {counter.address()}, 4), done, false);
            GpuFixture.awaitZero(done);
            long ns = System.nanoTime() - t0;
            assertEquals(1024 * 256 * 4, (int) JAVA_INT.varHandle().getVolatile(host, 0L));
            System.out.printf("[hsa-cuda] sync_1way through the AQL queue: 1048576 system-scope atomics, %.2f ms, %.1f M/s%n",
                    ns / 1e6, 1048576 / (ns / 1e3));
        }
    }

    @Test
    void aKernelAndTheHostPingPongThroughPinnedMemory() {
        int rounds = 10_000;
        try (CudaBuffer flag = gpu.agent.allocatePinned(64)) {
            MemorySegment host = flag.hostSegment();
            VarHandle vh = JAVA_INT.varHandle();
            vh.setVolatile(host, 0L, 0);
            Signal done = gpu.runtime.createSignal(1);
            long ka = gpu.runtime.allocate(gpu.runtime.kernargPool(), 32);
            MemorySegment args = gpu.runtime.cpuAgent().svm().segment(ka, 32);
            args.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, flag.address());
            args.set(JAVA_INT, 8, rounds);
            args.set(java.lang.foreign.ValueLayout.JAVA_LONG, 16, 20_000_000L);
            GpuFixture.dispatch(queue, gpu.kernels.kernel("hsa4j_pingpong"), 1, 1, ka, done, false);
            long t0 = System.nanoTime();
            for (int k = 0; k < rounds; k++) {
                vh.setVolatile(host, 0L, 2 * k + 1);
                long deadline = System.nanoTime() + GpuFixture.WAIT_NANOS;
                int v;
                while ((v = (int) vh.getVolatile(host, 0L)) != 2 * k + 2) {
                    assertTrue(v != -1 && System.nanoTime() - deadline < 0, "pingpong stuck at round " + k + ": " + v);
                    Thread.onSpinWait();
                }
            }
            long ns = System.nanoTime() - t0;
            GpuFixture.awaitZero(done);
            System.out.printf("[hsa-cuda] pingpong through the AQL queue: %d rounds, mean round trip %.2f us%n",
                    rounds, ns / 1e3 / rounds);
        }
    }

    @Test
    void deviceMemoryRoundTripsThroughCopiesAndIsNotHostVisible() {
        try (CudaBuffer d = gpu.agent.allocateDevice(4096); var arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment src = arena.allocate(4096);
            for (int i = 0; i < 1024; i++) {
                src.setAtIndex(JAVA_INT, i, i * 7);
            }
            d.copyFromHost(src, 0);
            MemorySegment dst = arena.allocate(4096);
            d.copyToHost(dst, 0);
            assertEquals(-1, src.mismatch(dst));
            assertEquals(HsaStatus.MEMORY_APERTURE_VIOLATION,
                    assertThrows(HsaException.class, d::hostSegment).status());
        }
    }

    @Test
    void managedMemoryIsWrittenByAKernelAndReadByTheHostAtTheSameAddress() {
        try (CudaBuffer m = gpu.agent.allocateManaged(4L * 256)) {
            m.hostSegment().fill((byte) 0);
            Signal done = gpu.runtime.createSignal(1);
            GpuFixture.dispatch(queue, gpu.kernels.kernel("hsa4j_mark"), 256, 256,
                    gpu.kernarg(new long[] {m.address()}, 256), done, false);
            GpuFixture.awaitZero(done);
            assertEquals(256, m.hostSegment().getAtIndex(JAVA_INT, 255));
        }
    }

    @Test
    void managedMemoryBeyondWhatTheCardHasFreeIsRefused() {
        HsaException e = assertThrows(HsaException.class,
                () -> gpu.agent.allocateManaged(2 * gpu.agent.info().totalMemory()));
        assertEquals(HsaStatus.OUT_OF_RESOURCES, e.status());
    }
}
