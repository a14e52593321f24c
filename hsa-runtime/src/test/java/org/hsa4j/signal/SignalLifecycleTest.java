package org.hsa4j.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Creating signals, their SVM slot and handle, and destroying them. */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SignalLifecycleTest {
    private HsaRuntime rt;

    @BeforeEach
    void startRuntime() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterEach
    void closeRuntime() {
        rt.close();
    }

    private long slotValue(Signal s) {
        return rt.svm().atomicLoadLong(s.handle() + SignalDescriptor.VALUE, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
    }

    @Test
    void shouldStartWithTheInitialValue() {
        Signal s = rt.createSignal(-17);
        assertEquals(-17, s.loadScacquire());
    }

    @Test
    void shouldCreateWithAConsumersList() {
        Signal s = rt.createSignal(5, List.of(rt.cpuAgent(), rt.gpuAgent()));
        assertEquals(5, s.loadScacquire());
        assertSame(s, rt.signal(s.handle()));
    }

    @Test
    void shouldKeepTheValueAtHandlePlusValueOffsetInSvm() {
        Signal s = rt.createSignal(0x1234_5678_9ABCL);
        assertEquals(0x1234_5678_9ABCL, slotValue(s));
    }

    @Test
    void shouldShowValueChangesThroughSvm() {
        Signal s = rt.createSignal(1);
        s.storeScrelease(99);
        assertEquals(99, slotValue(s));
    }

    @Test
    void shouldSeeSvmWritesToTheSlotAsTheValue() {
        Signal s = rt.createSignal(1);
        rt.svm().atomicStoreLong(s.handle() + SignalDescriptor.VALUE, 77, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        assertEquals(77, s.loadScacquire());
    }

    @Test
    void shouldLayOutTheSlotPerTheDescriptor() {
        Signal s = rt.createSignal(3);
        assertEquals(0, s.handle() % SignalDescriptor.ALIGNMENT, "slot alignment");
        assertEquals(SignalDescriptor.KIND_USER, rt.svm().getInt(s.handle() + SignalDescriptor.KIND));
        assertEquals(0, rt.svm().getLong(s.handle() + SignalDescriptor.START_TS));
        assertEquals(0, rt.svm().getLong(s.handle() + SignalDescriptor.END_TS));
        Allocation a = rt.pointerInfo(s.handle());
        assertNotNull(a);
        assertTrue(a.contains(s.handle(), SignalDescriptor.SIZE), "the whole 64-byte slot is live memory");
    }

    @Test
    void shouldRecordTheDoorbellKindInTheSlot() {
        Signal s = rt.signals().create(-1, SignalDescriptor.KIND_DOORBELL);
        assertEquals(SignalDescriptor.KIND_DOORBELL, rt.svm().getInt(s.handle() + SignalDescriptor.KIND));
        assertEquals(-1, s.loadScacquire());
    }

    @Test
    void shouldRejectAnUnknownKind() {
        HsaException e = assertThrows(HsaException.class, () -> rt.signals().create(0, 7));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldPlaceTheSlotInFineGrainedMemoryEveryAgentCanAccess() {
        Signal s = rt.createSignal(8);
        assertTrue(rt.pointerInfo(s.handle()).fineGrained());
        assertEquals(8, rt.gpuAgent().svm().atomicLoadLong(s.handle() + SignalDescriptor.VALUE, MemoryOrder.ACQUIRE,
                MemoryScope.SYSTEM));
    }

    @Test
    void shouldGiveEachSignalItsOwnSlot() {
        Signal a = rt.createSignal(1);
        Signal b = rt.createSignal(2);
        assertEquals(0, a.handle() % SignalDescriptor.SIZE);
        assertEquals(0, b.handle() % SignalDescriptor.SIZE);
        assertNotEquals(a.handle(), b.handle(), "two aligned 64-byte slots at distinct addresses do not overlap");
        a.storeScrelease(100);
        assertEquals(2, b.loadScacquire());
        assertEquals(2, slotValue(b));
    }

    @Test
    void shouldMapTheHandleBackToTheSignal() {
        Signal s = rt.createSignal(0);
        assertSame(s, rt.signal(s.handle()));
    }

    @Test
    void shouldRejectAHandleInsideASlot() {
        Signal s = rt.createSignal(0);
        HsaException e = assertThrows(HsaException.class, () -> rt.signal(s.handle() + 8));
        assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
    }

    @Test
    void shouldRejectTheNullHandle() {
        HsaException e = assertThrows(HsaException.class, () -> rt.signal(0));
        assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
    }

    @Test
    void shouldRejectTheAddressOfOrdinaryMemoryAsAHandle() {
        long memory = rt.hostMalloc(64);
        HsaException e = assertThrows(HsaException.class, () -> rt.signal(memory));
        assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
    }

    @Test
    void shouldCountLiveSignals() {
        int before = rt.signals().liveSignals();
        Signal s = rt.createSignal(0);
        assertEquals(before + 1, rt.signals().liveSignals());
        s.destroy();
        assertEquals(before, rt.signals().liveSignals());
    }

    @Test
    void shouldNoLongerMapTheHandleOfADestroyedSignal() {
        Signal s = rt.createSignal(0);
        long handle = s.handle();
        s.destroy();
        HsaException e = assertThrows(HsaException.class, () -> rt.signal(handle));
        assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
        assertTrue(s.isDestroyed());
    }

    @Test
    void shouldNotHandTheSlotOfADestroyedSignalToTheNextSignal() {
        Signal s = rt.createSignal(0);
        long handle = s.handle();
        s.destroy();
        Signal next = rt.createSignal(0);
        assertNotEquals(handle, next.handle());
        HsaException e = assertThrows(HsaException.class, () -> rt.signal(handle));
        assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
    }

    @Test
    void shouldRefuseASecondDestroy() {
        Signal s = rt.createSignal(0);
        s.destroy();
        HsaException e = assertThrows(HsaException.class, s::destroy);
        assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
    }

    @Test
    void shouldLeaveOtherSignalsAloneOnASecondDestroy() {
        Signal s = rt.createSignal(0);
        Signal other = rt.createSignal(4);
        s.destroy();
        assertThrows(HsaException.class, s::destroy);
        assertEquals(4, other.loadScacquire());
        assertSame(other, rt.signal(other.handle()));
    }

    static Stream<Arguments> operations() {
        return Stream.of(
                Arguments.of("loadScacquire", (Consumer<Signal>) Signal::loadScacquire),
                Arguments.of("loadRelaxed", (Consumer<Signal>) Signal::loadRelaxed),
                Arguments.of("storeScrelease", (Consumer<Signal>) s -> s.storeScrelease(1)),
                Arguments.of("storeRelaxed", (Consumer<Signal>) s -> s.storeRelaxed(1)),
                Arguments.of("silentStoreRelaxed", (Consumer<Signal>) s -> s.silentStoreRelaxed(1)),
                Arguments.of("exchangeScacqScrel", (Consumer<Signal>) s -> s.exchangeScacqScrel(1)),
                Arguments.of("casScacqScrel", (Consumer<Signal>) s -> s.casScacqScrel(0, 1)),
                Arguments.of("addScacqScrel", (Consumer<Signal>) s -> s.addScacqScrel(1)),
                Arguments.of("subtractRelaxed", (Consumer<Signal>) s -> s.subtractRelaxed(1)),
                Arguments.of("andScrelease", (Consumer<Signal>) s -> s.andScrelease(1)),
                Arguments.of("orScacquire", (Consumer<Signal>) s -> s.orScacquire(1)),
                Arguments.of("xorRelaxed", (Consumer<Signal>) s -> s.xorRelaxed(1)),
                Arguments.of("waitScacquire", (Consumer<Signal>) s -> s.waitScacquire(SignalCondition.EQ, 0, 0,
                        WaitState.ACTIVE)),
                Arguments.of("waitRelaxed", (Consumer<Signal>) s -> s.waitRelaxed(SignalCondition.NE, 0, 1_000_000,
                        WaitState.BLOCKED)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("operations")
    void shouldRejectOperationsOnADestroyedSignal(String name, Consumer<Signal> operation) {
        Signal s = rt.createSignal(0);
        s.destroy();
        HsaException e = assertThrows(HsaException.class, () -> operation.accept(s));
        assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
    }

    @Test
    void shouldWakeAWaiterWithInvalidSignalWhenTheSignalIsDestroyed() throws Exception {
        try (StandaloneSignals signals = new StandaloneSignals()) {
            Signal s = signals.create(1);
            WaiterThread<Long> waiter = WaiterThread.start("waiter", () ->
                    s.waitScacquire(SignalCondition.EQ, 0, Long.MAX_VALUE, WaitState.BLOCKED)).awaitParkedOn(s);
            s.destroy();
            HsaException e = waiter.thrown(HsaException.class);
            assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
        }
    }
}
