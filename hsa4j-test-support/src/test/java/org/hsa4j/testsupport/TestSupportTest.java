package org.hsa4j.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The published helpers for users' jcstress tests: slots, signal rings and bounded waits. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TestSupportTest {
    private static HsaRuntime rt;

    @BeforeAll
    static void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterAll
    static void stop() {
        rt.close();
    }

    @Test
    void shouldHandOutAlignedZeroedSlotsRoundRobinFromOneAllocation() {
        SvmSlots slots = SvmSlots.of(rt, 24);
        Svm svm = rt.svm();
        long first = slots.next();
        long second = slots.next();
        assertEquals(0, first % SvmSlots.SLOT_ALIGNMENT);
        assertEquals(SvmSlots.SLOT_ALIGNMENT, second - first, "24 bytes round up to one 64-byte granule");
        svm.setLong(first, -1);
        for (int i = 2; i < SvmSlots.SLOTS; i++) {
            slots.next();
        }
        assertEquals(first, slots.next(), "the ring comes round after SLOTS slots");
        assertEquals(0, svm.getLong(first), "a slot handed out again is zeroed");
    }

    @Test
    void shouldRecycleSignalsRoundRobinWithAFreshValue() {
        SignalRing ring = SignalRing.of(rt, 1);
        Signal a = ring.next(5);
        Signal b = ring.next(7);
        assertNotSame(a, b);
        assertEquals(5, a.loadScacquire());
        assertEquals(7, b.loadScacquire());
        for (int i = 2; i < SvmSlots.SLOTS; i++) {
            ring.next(0);
        }
        assertSame(a, ring.next(3));
        assertEquals(3, a.loadScacquire());
    }

    @Test
    void shouldReturnTrueFromBoundedWaitsWhoseConditionHolds() {
        long cell = rt.hostMalloc(8);
        rt.svm().storeIntRelease(cell, 9);
        Signal s = rt.createSignal(0);
        assertTrue(BoundedWait.until(() -> true));
        assertTrue(BoundedWait.untilIntAcquire(rt.svm(), cell, 9));
        assertTrue(BoundedWait.untilSignal(s, SignalCondition.EQ, 0));
        assertNotEquals(BoundedWait.TIMEOUT, "");
    }
}
