package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 22: the four typed SVM views share SvmView's atomics; each width and sign behaves as its Java type. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SvmViewSharedImplementationTest {
    private static HsaRuntime rt;

    @BeforeAll
    static void start() {
        rt = HsaRuntime.init();
    }

    @AfterAll
    static void stop() {
        rt.close();
    }

    private long zeroed(long bytes) {
        long a = rt.hostMalloc(bytes);
        rt.svm().fill(a, bytes, (byte) 0);
        return a;
    }

    @Test
    void shouldWrapIntAddsAtThirtyTwoBitsAndLeaveTheNeighbourAlone() {
        IntView v = rt.svm().ints(zeroed(8), 2);
        v.storeRelease(0, Integer.MAX_VALUE);
        assertEquals(Integer.MAX_VALUE, v.fetchAdd(0, 1));
        assertEquals(Integer.MIN_VALUE, v.loadAcquire(0));
        assertEquals(Integer.MIN_VALUE, v.exchange(0, -7));
        assertEquals(-7, v.compareExchange(0, -7, 3));
        assertEquals(3, v.loadRelaxed(0));
        assertEquals(0, v.get(1));
    }

    @Test
    void shouldKeepAllSixtyFourBitsOfLongAtomics() {
        LongView v = rt.svm().longs(zeroed(16), 2);
        v.storeRelaxed(1, 1L << 40);
        assertEquals(1L << 40, v.fetchAdd(1, -1L));
        assertEquals((1L << 40) - 1, v.exchange(1, Long.MIN_VALUE));
        assertEquals(Long.MIN_VALUE, v.compareExchange(1, Long.MIN_VALUE, -1L));
        assertEquals(-1L, v.loadAcquire(1));
        assertEquals(0L, v.get(0));
    }

    @Test
    void shouldAddFloatsAndDoublesAsTheirOwnTypes() {
        FloatView f = rt.svm().floats(zeroed(8), 2);
        DoubleView d = rt.svm().doubles(zeroed(16), 2);
        f.set(1, 1.5f);
        d.set(1, 1e300);
        assertEquals(1.5f, f.fetchAdd(1, 0.25f));
        assertEquals(1e300, d.fetchAdd(1, 1e300));
        assertEquals(1.75f, f.loadAcquire(1));
        assertEquals(2e300, d.get(1));
        assertEquals(0f, f.get(0));
        assertEquals(0d, d.get(0));
    }

    @Test
    void shouldLoadAndStoreEveryViewWithAnExplicitOrderAsTheNamedCallsDo() {
        IntView i = rt.svm().ints(zeroed(4), 1);
        LongView l = rt.svm().longs(zeroed(8), 1);
        FloatView f = rt.svm().floats(zeroed(4), 1);
        DoubleView d = rt.svm().doubles(zeroed(8), 1);
        i.atomicStore(0, -5, MemoryOrder.RELEASE);
        l.atomicStore(0, -6L, MemoryOrder.RELAXED);
        f.atomicStore(0, -7.5f, MemoryOrder.SEQ_CST);
        d.atomicStore(0, -8.5, MemoryOrder.RELEASE);
        assertEquals(i.loadAcquire(0), i.atomicLoad(0, MemoryOrder.ACQUIRE));
        assertEquals(-6L, l.atomicLoad(0, MemoryOrder.RELAXED));
        assertEquals(-7.5f, f.atomicLoad(0, MemoryOrder.SEQ_CST));
        assertEquals(d.loadAcquire(0), d.atomicLoad(0, MemoryOrder.ACQUIRE));
    }

    @Test
    void shouldRefuseOrdersALoadOrStoreCannotHave() {
        IntView i = rt.svm().ints(zeroed(4), 1);
        assertEquals(HsaStatus.INVALID_ARGUMENT,
                assertThrows(HsaException.class, () -> i.atomicLoad(0, MemoryOrder.RELEASE)).status());
        assertEquals(HsaStatus.INVALID_ARGUMENT,
                assertThrows(HsaException.class, () -> i.atomicStore(0, 1, MemoryOrder.ACQ_REL)).status());
        assertEquals(0, i.get(0));
    }

    @Test
    void shouldFaultEveryAtomicOfAViewWhoseAllocationWasFreed() {
        long a = zeroed(16);
        LongView v = rt.svm().longs(a, 2);
        rt.free(a);
        assertThrows(MemoryFaultException.class, () -> v.fetchAdd(0, 1));
        assertThrows(MemoryFaultException.class, () -> v.loadAcquire(0));
        assertThrows(MemoryFaultException.class, () -> v.get(0));
    }
}
