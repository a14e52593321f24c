package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.stream.Stream;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Atomics on SVM by address: every operation with every order and scope, and the argument checks. */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SvmAtomicsTest {
    private HsaRuntime rt;
    private Svm svm;
    private long cell;

    @BeforeAll
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        svm = rt.svm();
    }

    @AfterAll
    void stop() {
        rt.close();
    }

    @BeforeEach
    void allocateCell() {
        cell = rt.hostMalloc(64);
        svm.fill(cell, 64, (byte) 0);
    }

    @AfterEach
    void freeCell() {
        rt.free(cell);
    }

    static Stream<Arguments> everyOrderAndScope() {
        List<Arguments> all = new ArrayList<>();
        for (MemoryOrder order : MemoryOrder.values()) {
            for (MemoryScope scope : MemoryScope.values()) {
                all.add(Arguments.of(order, scope));
            }
        }
        return all.stream();
    }

    static Stream<Arguments> loadOrdersAndScopes() {
        return everyOrderAndScope().filter(a -> ((MemoryOrder) a.get()[0]).validForLoad());
    }

    static Stream<Arguments> storeOrdersAndScopes() {
        return everyOrderAndScope().filter(a -> ((MemoryOrder) a.get()[0]).validForStore());
    }

    // ---- loads and stores -----------------------------------------------------------------------

    @ParameterizedTest
    @MethodSource("loadOrdersAndScopes")
    void shouldLoadWhatWasStoredWithEveryLoadOrder(MemoryOrder order, MemoryScope scope) {
        svm.setInt(cell, -12345);
        svm.setLong(cell + 8, Long.MIN_VALUE + 3);
        assertEquals(-12345, svm.atomicLoadInt(cell, order, scope));
        assertEquals(Long.MIN_VALUE + 3, svm.atomicLoadLong(cell + 8, order, scope));
    }

    @ParameterizedTest
    @MethodSource("storeOrdersAndScopes")
    void shouldStoreWithEveryStoreOrder(MemoryOrder order, MemoryScope scope) {
        svm.atomicStoreInt(cell, 0x7654_3210, order, scope);
        svm.atomicStoreLong(cell + 8, -2L, order, scope);
        assertEquals(0x7654_3210, svm.getInt(cell));
        assertEquals(-2L, svm.getLong(cell + 8));
    }

    @ParameterizedTest
    @EnumSource(value = MemoryOrder.class, names = {"RELEASE", "ACQ_REL"})
    void shouldRefuseALoadWithAReleaseOrder(MemoryOrder order) {
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.atomicLoadInt(cell, order, MemoryScope.SYSTEM));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.atomicLoadLong(cell, order, MemoryScope.AGENT));
    }

    @ParameterizedTest
    @EnumSource(value = MemoryOrder.class, names = {"ACQUIRE", "ACQ_REL"})
    void shouldRefuseAStoreWithAnAcquireOrderAndLeaveTheValue(MemoryOrder order) {
        svm.setLong(cell, 5);
        svm.setInt(cell + 8, 6);
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.atomicStoreLong(cell, 1, order, MemoryScope.SYSTEM));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.atomicStoreInt(cell + 8, 1, order, MemoryScope.WORKGROUP));
        assertEquals(5, svm.getLong(cell));
        assertEquals(6, svm.getInt(cell + 8));
    }

    // ---- read-modify-writes on int --------------------------------------------------------------

    @ParameterizedTest
    @MethodSource("everyOrderAndScope")
    void shouldExchangeInts(MemoryOrder order, MemoryScope scope) {
        svm.setInt(cell, 1);
        assertEquals(1, svm.atomicExchangeInt(cell, -9, order, scope));
        assertEquals(-9, svm.getInt(cell));
    }

    @ParameterizedTest
    @MethodSource("everyOrderAndScope")
    void shouldCompareAndExchangeIntsReturningTheWitness(MemoryOrder order, MemoryScope scope) {
        svm.setInt(cell, 10);
        assertEquals(10, svm.atomicCompareExchangeInt(cell, 10, 20, order, scope));
        assertEquals(20, svm.getInt(cell));
        assertEquals(20, svm.atomicCompareExchangeInt(cell, 10, 30, order, scope));
        assertEquals(20, svm.getInt(cell));
    }

    @ParameterizedTest
    @MethodSource("everyOrderAndScope")
    void shouldAddAndSubtractIntsWrappingAround(MemoryOrder order, MemoryScope scope) {
        svm.setInt(cell, Integer.MAX_VALUE);
        assertEquals(Integer.MAX_VALUE, svm.atomicAddInt(cell, 1, order, scope));
        assertEquals(Integer.MIN_VALUE, svm.atomicSubInt(cell, 3, order, scope));
        assertEquals(Integer.MAX_VALUE - 2, svm.getInt(cell));
    }

    @ParameterizedTest
    @MethodSource("everyOrderAndScope")
    void shouldAndOrXorInts(MemoryOrder order, MemoryScope scope) {
        svm.setInt(cell, 0b1100);
        assertEquals(0b1100, svm.atomicAndInt(cell, 0b1010, order, scope));
        assertEquals(0b1000, svm.atomicOrInt(cell, 0b0011, order, scope));
        assertEquals(0b1011, svm.atomicXorInt(cell, 0b1110, order, scope));
        assertEquals(0b0101, svm.getInt(cell));
    }

    @ParameterizedTest
    @MethodSource("everyOrderAndScope")
    void shouldTakeSignedMinAndMaxOfInts(MemoryOrder order, MemoryScope scope) {
        svm.setInt(cell, 5);
        assertEquals(5, svm.atomicMinInt(cell, -3, order, scope));
        assertEquals(-3, svm.atomicMinInt(cell, 4, order, scope));
        assertEquals(-3, svm.getInt(cell));
        assertEquals(-3, svm.atomicMaxInt(cell, -7, order, scope));
        assertEquals(-3, svm.atomicMaxInt(cell, Integer.MAX_VALUE, order, scope));
        assertEquals(Integer.MAX_VALUE, svm.getInt(cell));
        assertEquals(Integer.MAX_VALUE, svm.atomicMinInt(cell, Integer.MIN_VALUE, order, scope));
        assertEquals(Integer.MIN_VALUE, svm.getInt(cell));
    }

    // ---- read-modify-writes on long -------------------------------------------------------------

    @ParameterizedTest
    @MethodSource("everyOrderAndScope")
    void shouldExchangeLongs(MemoryOrder order, MemoryScope scope) {
        svm.setLong(cell + 8, 1L << 50);
        assertEquals(1L << 50, svm.atomicExchangeLong(cell + 8, -1L, order, scope));
        assertEquals(-1L, svm.getLong(cell + 8));
    }

    @ParameterizedTest
    @MethodSource("everyOrderAndScope")
    void shouldCompareAndExchangeLongsReturningTheWitness(MemoryOrder order, MemoryScope scope) {
        svm.setLong(cell + 8, 1L << 40);
        assertEquals(1L << 40, svm.atomicCompareExchangeLong(cell + 8, 1L << 40, 7, order, scope));
        assertEquals(7, svm.getLong(cell + 8));
        assertEquals(7, svm.atomicCompareExchangeLong(cell + 8, 1L << 40, 9, order, scope));
        assertEquals(7, svm.getLong(cell + 8));
    }

    @ParameterizedTest
    @MethodSource("everyOrderAndScope")
    void shouldAddAndSubtractLongsWrappingAround(MemoryOrder order, MemoryScope scope) {
        svm.setLong(cell + 8, Long.MIN_VALUE);
        assertEquals(Long.MIN_VALUE, svm.atomicSubLong(cell + 8, 1, order, scope));
        assertEquals(Long.MAX_VALUE, svm.atomicAddLong(cell + 8, 1L << 33, order, scope));
        assertEquals(Long.MIN_VALUE + (1L << 33) - 1, svm.getLong(cell + 8));
    }

    @ParameterizedTest
    @MethodSource("everyOrderAndScope")
    void shouldAndOrXorLongs(MemoryOrder order, MemoryScope scope) {
        svm.setLong(cell + 8, 0xFF00_0000_0000_00F0L);
        assertEquals(0xFF00_0000_0000_00F0L, svm.atomicAndLong(cell + 8, 0x0F00_0000_0000_0030L, order, scope));
        assertEquals(0x0F00_0000_0000_0030L, svm.atomicOrLong(cell + 8, 1L << 62, order, scope));
        assertEquals(0x4F00_0000_0000_0030L, svm.atomicXorLong(cell + 8, -1L, order, scope));
        assertEquals(~0x4F00_0000_0000_0030L, svm.getLong(cell + 8));
    }

    @ParameterizedTest
    @MethodSource("everyOrderAndScope")
    void shouldTakeSignedMinAndMaxOfLongs(MemoryOrder order, MemoryScope scope) {
        svm.setLong(cell + 8, 0);
        assertEquals(0, svm.atomicMinLong(cell + 8, -1L << 40, order, scope));
        assertEquals(-1L << 40, svm.atomicMaxLong(cell + 8, -5, order, scope));
        assertEquals(-5, svm.atomicMaxLong(cell + 8, -6, order, scope));
        assertEquals(-5, svm.atomicMinLong(cell + 8, Long.MAX_VALUE, order, scope));
        assertEquals(-5, svm.getLong(cell + 8));
    }

    // ---- float and double -----------------------------------------------------------------------

    @ParameterizedTest
    @MethodSource("everyOrderAndScope")
    void shouldAddFloatsAndDoubles(MemoryOrder order, MemoryScope scope) {
        svm.setFloat(cell, 1.25f);
        svm.setDouble(cell + 8, -0.5);
        assertEquals(1.25f, svm.atomicAddFloat(cell, 2f, order, scope));
        assertEquals(-0.5, svm.atomicAddDouble(cell + 8, 0.25, order, scope));
        assertEquals(3.25f, svm.getFloat(cell));
        assertEquals(-0.25, svm.getDouble(cell + 8));
    }

    @Test
    void shouldAddToANaNFloatWithoutSpinning() {
        svm.setFloat(cell, Float.NaN);
        svm.atomicAddFloat(cell, 1f, MemoryOrder.SEQ_CST, MemoryScope.SYSTEM);
        svm.atomicAddDouble(cell + 8, Double.NaN, MemoryOrder.SEQ_CST, MemoryScope.SYSTEM);
        svm.atomicAddDouble(cell + 8, 1, MemoryOrder.SEQ_CST, MemoryScope.SYSTEM);
        assertEquals(Float.NaN, svm.getFloat(cell));
        assertEquals(Double.NaN, svm.getDouble(cell + 8));
    }

    // ---- argument checks ------------------------------------------------------------------------

    private static void assertStatus(HsaStatus status, Runnable call) {
        HsaException e = assertThrows(HsaException.class, call::run);
        assertEquals(status, e.status(), e.getMessage());
    }

    @Test
    void shouldRefuseMisalignedIntAtomicsAndLeaveMemoryAlone() {
        svm.setLong(cell, 0x0102_0304_0506_0708L);
        MemoryOrder o = MemoryOrder.SEQ_CST;
        MemoryScope s = MemoryScope.SYSTEM;
        List<LongFunction<Object>> ops = List.of(
                a -> svm.atomicLoadInt(a, o, s),
                a -> { svm.atomicStoreInt(a, 0, o, s); return null; },
                a -> svm.atomicExchangeInt(a, 0, o, s),
                a -> svm.atomicCompareExchangeInt(a, 0, 1, o, s),
                a -> svm.atomicAddInt(a, 1, o, s),
                a -> svm.atomicSubInt(a, 1, o, s),
                a -> svm.atomicAndInt(a, 0, o, s),
                a -> svm.atomicOrInt(a, -1, o, s),
                a -> svm.atomicXorInt(a, -1, o, s),
                a -> svm.atomicMinInt(a, Integer.MIN_VALUE, o, s),
                a -> svm.atomicMaxInt(a, Integer.MAX_VALUE, o, s),
                a -> svm.atomicAddFloat(a, 1f, o, s));
        for (long offset : new long[] {1, 2, 3}) {
            for (LongFunction<Object> op : ops) {
                assertStatus(HsaStatus.INVALID_ARGUMENT, () -> op.apply(cell + offset));
            }
        }
        assertEquals(0x0102_0304_0506_0708L, svm.getLong(cell));
    }

    @Test
    void shouldRefuseMisalignedLongAtomicsAndLeaveMemoryAlone() {
        svm.setLong(cell + 8, 42);
        svm.setLong(cell + 16, 43);
        MemoryOrder o = MemoryOrder.RELAXED;
        MemoryScope s = MemoryScope.AGENT;
        List<LongFunction<Object>> ops = List.of(
                a -> svm.atomicLoadLong(a, o, s),
                a -> { svm.atomicStoreLong(a, 0, o, s); return null; },
                a -> svm.atomicExchangeLong(a, 0, o, s),
                a -> svm.atomicCompareExchangeLong(a, 0, 1, o, s),
                a -> svm.atomicAddLong(a, 1, o, s),
                a -> svm.atomicSubLong(a, 1, o, s),
                a -> svm.atomicAndLong(a, 0, o, s),
                a -> svm.atomicOrLong(a, -1, o, s),
                a -> svm.atomicXorLong(a, -1, o, s),
                a -> svm.atomicMinLong(a, Long.MIN_VALUE, o, s),
                a -> svm.atomicMaxLong(a, Long.MAX_VALUE, o, s),
                a -> svm.atomicAddDouble(a, 1, o, s));
        for (long offset : new long[] {9, 12, 15}) {
            for (LongFunction<Object> op : ops) {
                assertStatus(HsaStatus.INVALID_ARGUMENT, () -> op.apply(cell + offset));
            }
        }
        assertEquals(42, svm.getLong(cell + 8));
        assertEquals(43, svm.getLong(cell + 16));
    }

    @Test
    void shouldRefuseAMissingOrderOrScope() {
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.atomicAddInt(cell, 1, null, MemoryScope.SYSTEM));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.atomicLoadLong(cell, null, MemoryScope.SYSTEM));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.atomicStoreInt(cell, 1, MemoryOrder.RELAXED, null));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> Svm.fence(null, MemoryScope.SYSTEM));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> Svm.fence(MemoryOrder.SEQ_CST, null));
        assertEquals(0, svm.getInt(cell));
    }

    @ParameterizedTest
    @MethodSource("everyOrderAndScope")
    void shouldAcceptAFenceOfEveryOrderAndScope(MemoryOrder order, MemoryScope scope) {
        svm.setInt(cell, 1);
        Svm.fence(order, scope);
        assertEquals(1, svm.getInt(cell));
    }

    @Test
    void shouldOfferShortNamesForHsaOrders() {
        svm.storeIntRelease(cell, 3);
        svm.storeLongRelease(cell + 8, 4);
        assertEquals(3, svm.loadIntAcquire(cell));
        assertEquals(4, svm.loadLongAcquire(cell + 8));
        svm.storeIntRelaxed(cell, 5);
        svm.storeLongRelaxed(cell + 8, 6);
        assertEquals(5, svm.loadIntRelaxed(cell));
        assertEquals(6, svm.loadLongRelaxed(cell + 8));
    }
}
