package org.hsa4j.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.queue.Await;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The JVM's one timer for parked signal waits: waiters park untimed, and a change behind the API still reaches them. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SignalWatchTest {
    private static final long FOREVER = Long.MAX_VALUE;
    private HsaRuntime rt;

    @BeforeEach
    void startRuntime() {
        rt = HsaRuntime.init(RuntimeConfig.defaults());
    }

    @AfterEach
    void closeRuntime() {
        rt.close();
    }

    @Test
    void aLongBlockedWaitParksWithoutATimer() throws Exception {
        Signal s = rt.createSignal(1);
        WaiterThread<Long> waiter = parkedUntimedOn(s);
        s.storeScrelease(0);
        assertEquals(0, waiter.result());
    }

    @Test
    void theWatchWakesAnUntimedWaiterForAValueWrittenBehindTheApi() throws Exception {
        Signal s = rt.createSignal(1);
        WaiterThread<Long> waiter = parkedUntimedOn(s);
        // no notification, and the waiter parked without a timer: only the watch can wake it
        rt.gpuAgent().svm().atomicStoreLong(s.handle() + SignalDescriptor.VALUE, 0, MemoryOrder.RELEASE,
                MemoryScope.SYSTEM);
        assertEquals(0, waiter.result());
    }

    @Test
    void aWaitWithLessThanAPeriodLeftKeepsItsOwnTimer() throws Exception {
        Signal s = rt.createSignal(1);
        long timeout = rt.signals().recheckNanos() / 2;
        long start = System.nanoTime();
        long v = s.waitScacquire(SignalCondition.EQ, 0, timeout, WaitState.BLOCKED);
        long took = System.nanoTime() - start;
        assertEquals(1, v, "timed out with the value unchanged");
        assertTrue(took >= timeout, "returned after its timeout, took " + took + " ns");
    }

    @Test
    void theWatchSleepsWithoutATimerOnceNoWaitIsParked() throws Exception {
        Signal s = rt.createSignal(1);
        WaiterThread<Long> waiter = parkedUntimedOn(s);
        s.storeScrelease(0);
        assertEquals(0, waiter.result());
        Thread watch = watchThread();
        Await.until(() -> SignalWatch.get().asleep() && watch.getState() == Thread.State.WAITING,
                "the watch to sleep untimed");
    }

    @Test
    void aWaiterTheTableHasNoRoomForParksOnItsOwnTimer() throws Exception {
        Signal s = rt.createSignal(1);
        SignalWatch watch = SignalWatch.get();
        List<SignalWatch.Parked> fillers = new ArrayList<>();
        try {
            SignalWatch.Parked p;
            do {
                p = new SignalWatch.Parked(Thread.ofPlatform().unstarted(() -> { }), s, FOREVER / 4, FOREVER / 4);
                p.saw(1);
                fillers.add(p);
            } while (watch.register(p));
            fillers.remove(fillers.size() - 1);
            assertEquals(SignalWatch.SLOTS, fillers.size(), "slots taken before the table was full");
            WaiterThread<Long> waiter = WaiterThread.start("waiter",
                    () -> s.waitScacquire(SignalCondition.EQ, 0, FOREVER, WaitState.BLOCKED)).awaitParkedOn(s);
            Await.until(() -> waiter.thread().getState() == Thread.State.TIMED_WAITING, "the waiter to park on a timer");
            assertFalse(waiter.thread().getState() == Thread.State.TERMINATED, "still waiting");
            s.silentStoreRelaxed(0); // no notification: its own timer finds it
            assertEquals(0, waiter.result());
        } finally {
            fillers.forEach(watch::unregister);
        }
    }

    /** A thread in a BLOCKED wait for 0 on {@code s}, seen parked untimed: WAITING, not TIMED_WAITING (the watch may unpark it meanwhile: looked at until seen). */
    private static WaiterThread<Long> parkedUntimedOn(Signal s) {
        WaiterThread<Long> waiter = WaiterThread.start("waiter",
                () -> s.waitScacquire(SignalCondition.EQ, 0, FOREVER, WaitState.BLOCKED)).awaitParkedOn(s);
        Await.until(() -> waiter.thread().getState() == Thread.State.WAITING, "the waiter to park untimed");
        return waiter;
    }

    private static Thread watchThread() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("hsa4j-signal-watch"))
                .findFirst().orElseThrow(() -> new AssertionError("no hsa4j-signal-watch thread"));
    }
}
