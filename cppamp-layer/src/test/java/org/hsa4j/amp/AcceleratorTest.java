package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Item 4: accelerators and views (one in-order AQL queue each), waits, flush, markers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AcceleratorTest {
    private static AmpFixture fx;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start(2);
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static int packetType(Queue q, long index) {
        return PacketHeader.typeCode(q.ring().get(ValueLayout.JAVA_SHORT, q.slotOffset(index)));
    }

    @Test
    void shouldListOneAcceleratorPerGpuAgent() {
        List<Accelerator> accs = fx.amp.accelerators();
        assertEquals(2, accs.size());
        assertSame(fx.runtime.gpuAgents().get(0), accs.get(0).agent());
        assertSame(fx.runtime.gpuAgents().get(1), accs.get(1).agent());
        assertSame(accs.get(0), fx.amp.defaultAccelerator());
    }

    @Test
    void shouldRunKernelsOnTheSecondAccelerator() {
        IntArrayView out = fx.ints(10);
        fx.amp.accelerators().get(1).defaultView().parallelForEach(new Extent(10), idx -> out.set(idx.get(0), 4)).get();
        assertEquals(4, out.get(9));
    }

    @Test
    void shouldKeepOneDefaultView() {
        AcceleratorView v = fx.accelerator.defaultView();
        assertSame(v, fx.accelerator.defaultView());
        assertSame(v, fx.amp.defaultView());
        assertTrue(v.isDefault());
        v.close();
        v.parallelForEach(new Extent(1), idx -> { }).get();
    }

    @Test
    void shouldGiveEachCreatedViewItsOwnQueue() {
        AcceleratorView a = fx.accelerator.createView();
        AcceleratorView b = fx.accelerator.createView();
        try {
            assertNotSame(a.queue(), b.queue());
            assertNotSame(a.queue(), fx.accelerator.defaultView().queue());
            assertFalse(a.isDefault());
        } finally {
            a.close();
            b.close();
        }
    }

    @Test
    void shouldRunViewsIndependentlyOfEachOther() {
        AcceleratorView a = fx.accelerator.createView();
        AcceleratorView b = fx.accelerator.createView();
        try {
            Gate gate = new Gate(fx);
            CompletionFuture held = a.parallelForEach(new Extent(1), gate.kernel());
            b.parallelForEach(new Extent(100), idx -> { }).get();
            assertFalse(held.isReady());
            gate.open();
            held.get();
        } finally {
            a.close();
            b.close();
        }
    }

    @Test
    void shouldRunAViewsWorkInOrder() {
        AcceleratorView v = fx.accelerator.createView();
        try {
            Gate gate = new Gate(fx);
            IntArrayView x = fx.ints(2);
            IndexKernel wait = gate.kernel();
            CompletionFuture first = v.parallelForEach(new Extent(1), idx -> {
                wait.run(idx);
                x.set(0, 1);
            });
            CompletionFuture second = v.parallelForEach(new Extent(1), idx -> x.set(1, x.get(0) + 1));
            assertFalse(second.isReady());
            gate.open();
            second.get();
            assertTrue(first.isReady());
            assertEquals(2, x.get(1));
        } finally {
            v.close();
        }
    }

    @Test
    void shouldWaitForEverythingQueuedOnTheView() {
        for (WaitState mode : WaitState.values()) {
            AcceleratorView v = fx.accelerator.createView();
            try {
                List<CompletionFuture> fs = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    fs.add(v.parallelForEach(new Extent(1000), idx -> { }));
                }
                v.wait(mode);
                assertTrue(fs.stream().allMatch(CompletionFuture::isReady), mode.toString());
            } finally {
                v.close();
            }
        }
    }

    @Test
    void shouldFlushWithoutDisturbingQueuedWork() {
        AcceleratorView v = fx.accelerator.createView();
        try {
            v.flush();
            CompletionFuture f = v.parallelForEach(new Extent(10), idx -> { });
            v.flush();
            f.get();
        } finally {
            v.close();
        }
    }

    @Test
    void shouldCompleteAMarkerOnlyAfterEarlierWorkWithABarrierAndPacket() {
        AcceleratorView v = fx.accelerator.createView();
        try {
            Gate gate = new Gate(fx);
            CompletionFuture held = v.parallelForEach(new Extent(1), gate.kernel());
            long index = v.queue().loadWriteIndexScacquire();
            CompletionFuture marker = v.createMarker(FenceScope.AGENT);
            assertEquals(PacketType.BARRIER_AND.code(), packetType(v.queue(), index));
            assertFalse(marker.isReady());
            gate.open();
            marker.get();
            assertTrue(held.isReady());
        } finally {
            v.close();
        }
    }

    @Test
    void shouldHoldWorkBehindABlockingMarkerUntilItsDependenciesComplete() {
        AcceleratorView a = fx.accelerator.createView();
        AcceleratorView b = fx.accelerator.createView();
        try {
            Gate gate = new Gate(fx);
            CompletionFuture held = a.parallelForEach(new Extent(1), gate.kernel());
            Queue q = b.queue();
            long index = q.loadWriteIndexScacquire();
            CompletionFuture marker = b.createBlockingMarker(held);
            IntArrayView ran = fx.ints(1);
            CompletionFuture after = b.parallelForEach(new Extent(1), idx -> ran.set(0, 1));
            assertEquals(PacketType.BARRIER_AND.code(), packetType(q, index));
            assertTrue(q.ring().get(ValueLayout.JAVA_LONG, q.slotOffset(index) + BarrierPacket.DEP_SIGNAL0) != 0);
            assertFalse(marker.isReady());
            assertFalse(after.isReady());
            assertEquals(0, ran.get(0));
            gate.open();
            after.get();
            assertTrue(marker.isReady() && held.isReady());
            assertEquals(1, ran.get(0));
        } finally {
            a.close();
            b.close();
        }
    }

    @Test
    void shouldWaitForMoreThanFiveDependenciesWithChainedBarrierPackets() {
        AcceleratorView v = fx.accelerator.createView();
        List<AcceleratorView> others = new ArrayList<>();
        try {
            Gate gate = new Gate(fx);
            List<CompletionFuture> deps = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                AcceleratorView o = fx.accelerator.createView();
                others.add(o);
                deps.add(o.parallelForEach(new Extent(1), i == 11 ? gate.kernel() : idx -> { }));
            }
            long before = v.queue().loadWriteIndexScacquire();
            CompletionFuture marker = v.createBlockingMarker(deps.toArray(CompletionFuture[]::new));
            assertEquals(before + 3, v.queue().loadWriteIndexScacquire());
            assertFalse(marker.isReady());
            gate.open();
            marker.get();
            assertTrue(deps.stream().allMatch(CompletionFuture::isReady));
        } finally {
            v.close();
            others.forEach(AcceleratorView::close);
        }
    }

    @Test
    void shouldFailABlockingMarkerWhoseDependencyFailedAndThenRecover() {
        AcceleratorView v = fx.accelerator.createView();
        try {
            Gate gate = new Gate(fx);
            IndexKernel wait = gate.kernel();
            CompletionFuture bad = fx.amp.parallelForEach(new Extent(1), idx -> {
                wait.run(idx);
                throw new IllegalStateException("dependency boom");
            });
            CompletionFuture marker = v.createBlockingMarker(bad);
            CompletionFuture behind = v.parallelForEach(new Extent(1), idx -> { });
            gate.open();
            HsaException e = assertThrows(HsaException.class, marker::get);
            assertTrue(e.getMessage().contains("dependency boom"), e.getMessage());
            assertThrows(HsaException.class, behind::get);
            v.parallelForEach(new Extent(1), idx -> { }).get();
        } finally {
            v.close();
        }
    }

    @Test
    void shouldPassADependencyThatAlreadySucceeded() {
        AcceleratorView v = fx.accelerator.createView();
        try {
            CompletionFuture done = fx.amp.parallelForEach(new Extent(1), idx -> { });
            done.get();
            v.createBlockingMarker(done).get();
            v.parallelForEachAfter(done, new Extent(1), idx -> { }).get();
        } finally {
            v.close();
        }
    }

    @Test
    void shouldFailWorkAfterADependencyThatAlreadyFailed() {
        AcceleratorView v = fx.accelerator.createView();
        try {
            CompletionFuture failed = fx.amp.parallelForEach(new Extent(1), idx -> {
                throw new IllegalStateException("failed before");
            });
            failed.wait(WaitState.BLOCKED);
            HsaException e = assertThrows(HsaException.class,
                    v.parallelForEachAfter(failed, new Extent(1), idx -> { })::get);
            assertTrue(e.getMessage().contains("failed before"), e.getMessage());
            v.parallelForEach(new Extent(1), idx -> { }).get();
        } finally {
            v.close();
        }
    }

    @Test
    void shouldFailWorkSubmittedToAClosedView() {
        AcceleratorView v = fx.accelerator.createView();
        v.parallelForEach(new Extent(1), idx -> { }).get();
        v.close();
        HsaException e = assertThrows(HsaException.class, v.parallelForEach(new Extent(1), idx -> { })::get);
        assertEquals(HsaStatus.INVALID_QUEUE, e.status());
    }
}
