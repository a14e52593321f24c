package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A barrier packet's dependencies, looked at by one thread: what is met, what waits, what fails. */
class BarrierWatchTest {
    private final HsaRuntime rt = HsaRuntime.init();
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment ring = arena.allocate(AqlPacket.SIZE, AqlPacket.SIZE);
    private final BarrierPacket packet = new BarrierPacket().wrap(ring, 0);
    private final AtomicInteger notified = new AtomicInteger();
    private final BarrierWatch watch = new BarrierWatch(rt.signals(), s -> notified.incrementAndGet(), () -> 42);

    @AfterEach
    void close() {
        watch.clear();
        arena.close();
        rt.close();
    }

    @Test
    void andWaitsUntilEveryDependencyWasSeenAtZero() {
        Signal a = rt.createSignal(0);
        Signal b = rt.createSignal(1);
        packet.depSignal(0, a.handle()).depSignal(3, b.handle());
        assertEquals(BarrierWatch.WAIT, watch.evaluate(ring, 0, 7, true));
        b.storeScrelease(0);
        assertTrue(notified.get() > 0, "the pending dependency calls the registered waiter");
        assertEquals(BarrierWatch.DONE, watch.evaluate(ring, 0, 7, true));
        assertEquals(42, watch.since());
    }

    @Test
    void orIsDoneWithOneDependencyAtZero() {
        Signal a = rt.createSignal(1);
        Signal b = rt.createSignal(0);
        packet.depSignal(1, a.handle()).depSignal(2, b.handle());
        assertEquals(BarrierWatch.DONE, watch.evaluate(ring, 0, 7, false));
    }

    @Test
    void aDependencySeenAtZeroStaysMetForThatPacket() {
        Signal a = rt.createSignal(0);
        Signal b = rt.createSignal(1);
        packet.depSignal(0, a.handle()).depSignal(1, b.handle());
        assertEquals(BarrierWatch.WAIT, watch.evaluate(ring, 0, 7, true));
        a.storeScrelease(5);
        b.storeScrelease(0);
        assertEquals(BarrierWatch.DONE, watch.evaluate(ring, 0, 7, true));
    }

    @Test
    void aFailedDependencyRejectsThePacketWithItsStatus() {
        Signal a = rt.createSignal(1);
        a.fail(new HsaException(HsaStatus.EXCEPTION, "boom"));
        packet.depSignal(0, a.handle());
        assertEquals(BarrierWatch.REJECT, watch.evaluate(ring, 0, 7, true));
        assertEquals(HsaStatus.EXCEPTION, watch.status);
        assertTrue(watch.problem.contains("barrier dependency 0"));
    }

    @Test
    void aHandleThatNamesNoSignalRejectsThePacketAsInvalidSignal() {
        packet.depSignal(4, 0xDEAD_BEEFL);
        assertEquals(BarrierWatch.REJECT, watch.evaluate(ring, 0, 7, true));
        assertEquals(HsaStatus.INVALID_SIGNAL, watch.status);
    }
}
