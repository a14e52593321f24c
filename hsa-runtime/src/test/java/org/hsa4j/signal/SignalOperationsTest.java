package org.hsa4j.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every signal operation in every order variant, as a table: the value it leaves in the slot (read
 * back through SVM), what it returns, and whether it wakes the signal's waiters.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SignalOperationsTest {
    /** Marks an operation that returns nothing (such rows are left out of the result test). */
    private static final long VOID = Long.MIN_VALUE + 12345;

    private static HsaRuntime rt;

    /**
     * One row: starting from {@code initial}, {@code apply} returns {@code result} (or {@link #VOID})
     * and leaves {@code value}; {@code notifies} says whether registered waiters are called.
     */
    record Op(String name, long initial, ToLongFunction<Signal> apply, long result, long value, boolean notifies) {
        @Override
        public String toString() {
            return name;
        }
    }

    @BeforeAll
    static void startRuntime() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterAll
    static void closeRuntime() {
        rt.close();
    }

    private static Op voidOp(String name, long initial, Consumer<Signal> apply, long value,
                             boolean notifies) {
        return new Op(name, initial, s -> {
            apply.accept(s);
            return VOID;
        }, VOID, value, notifies);
    }

    static Stream<Op> operations() {
        List<Op> ops = new ArrayList<>();
        ops.add(new Op("loadScacquire", 42, Signal::loadScacquire, 42, 42, false));
        ops.add(new Op("loadRelaxed", -42, Signal::loadRelaxed, -42, -42, false));

        ops.add(voidOp("storeRelaxed", 1, s -> s.storeRelaxed(7), 7, true));
        ops.add(voidOp("storeScrelease", 1, s -> s.storeScrelease(-7), -7, true));
        ops.add(voidOp("silentStoreRelaxed", 1, s -> s.silentStoreRelaxed(8), 8, false));
        ops.add(voidOp("silentStoreScrelease", 1, s -> s.silentStoreScrelease(-8), -8, false));

        ops.add(new Op("exchangeScacqScrel", 5, s -> s.exchangeScacqScrel(9), 5, 9, true));
        ops.add(new Op("exchangeScacquire", 5, s -> s.exchangeScacquire(10), 5, 10, true));
        ops.add(new Op("exchangeScrelease", 5, s -> s.exchangeScrelease(11), 5, 11, true));
        ops.add(new Op("exchangeRelaxed", 5, s -> s.exchangeRelaxed(12), 5, 12, true));

        ops.add(new Op("casScacqScrel succeeds", 5, s -> s.casScacqScrel(5, 9), 5, 9, true));
        ops.add(new Op("casScacquire succeeds", 5, s -> s.casScacquire(5, 10), 5, 10, true));
        ops.add(new Op("casScrelease succeeds", 5, s -> s.casScrelease(5, 11), 5, 11, true));
        ops.add(new Op("casRelaxed succeeds", 5, s -> s.casRelaxed(5, 12), 5, 12, true));
        ops.add(new Op("casScacqScrel fails", 5, s -> s.casScacqScrel(4, 9), 5, 5, false));
        ops.add(new Op("casScacquire fails", 5, s -> s.casScacquire(4, 10), 5, 5, false));
        ops.add(new Op("casScrelease fails", 5, s -> s.casScrelease(4, 11), 5, 5, false));
        ops.add(new Op("casRelaxed fails", 5, s -> s.casRelaxed(4, 12), 5, 5, false));

        ops.add(voidOp("addScacqScrel", 5, s -> s.addScacqScrel(3), 8, true));
        ops.add(voidOp("addScacquire", 5, s -> s.addScacquire(-10), -5, true));
        ops.add(voidOp("addScrelease", Long.MAX_VALUE, s -> s.addScrelease(1), Long.MIN_VALUE, true));
        ops.add(voidOp("addRelaxed", 0, s -> s.addRelaxed(1L << 40), 1L << 40, true));

        ops.add(voidOp("subtractScacqScrel", 5, s -> s.subtractScacqScrel(3), 2, true));
        ops.add(voidOp("subtractScacquire", 5, s -> s.subtractScacquire(10), -5, true));
        ops.add(voidOp("subtractScrelease", Long.MIN_VALUE, s -> s.subtractScrelease(1), Long.MAX_VALUE, true));
        ops.add(voidOp("subtractRelaxed", 1, s -> s.subtractRelaxed(-4), 5, true));

        ops.add(voidOp("andScacqScrel", 0b1100, s -> s.andScacqScrel(0b1010), 0b1000, true));
        ops.add(voidOp("andScacquire", -1, s -> s.andScacquire(0xF0F0), 0xF0F0, true));
        ops.add(voidOp("andScrelease", 0b0110, s -> s.andScrelease(0b1001), 0, true));
        ops.add(voidOp("andRelaxed", 0xFFL << 56, s -> s.andRelaxed(0x0FL << 56), 0x0FL << 56, true));

        ops.add(voidOp("orScacqScrel", 0b1100, s -> s.orScacqScrel(0b1010), 0b1110, true));
        ops.add(voidOp("orScacquire", 0, s -> s.orScacquire(0xF0F0), 0xF0F0, true));
        ops.add(voidOp("orScrelease", 0b0110, s -> s.orScrelease(0b1001), 0b1111, true));
        ops.add(voidOp("orRelaxed", 1, s -> s.orRelaxed(1L << 63), (1L << 63) | 1, true));

        ops.add(voidOp("xorScacqScrel", 0b1100, s -> s.xorScacqScrel(0b1010), 0b0110, true));
        ops.add(voidOp("xorScacquire", -1, s -> s.xorScacquire(0xF0F0), ~0xF0F0L, true));
        ops.add(voidOp("xorScrelease", 0b0110, s -> s.xorScrelease(0b0110), 0, true));
        ops.add(voidOp("xorRelaxed", 1, s -> s.xorRelaxed(1L << 63), (1L << 63) | 1, true));
        return ops.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("operations")
    void shouldLeaveTheExpectedValue(Op op) {
        Signal s = rt.createSignal(op.initial());
        op.apply().applyAsLong(s);
        assertEquals(op.value(), s.loadScacquire());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("operations")
    void shouldLeaveTheExpectedValueInTheSvmSlot(Op op) {
        Signal s = rt.createSignal(op.initial());
        op.apply().applyAsLong(s);
        assertEquals(op.value(), rt.svm().atomicLoadLong(s.handle() + SignalDescriptor.VALUE, MemoryOrder.ACQUIRE,
                MemoryScope.SYSTEM));
    }

    static Stream<Op> operationsWithResults() {
        return operations().filter(op -> op.result() != VOID);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("operationsWithResults")
    void shouldReturnTheExpectedResult(Op op) {
        Signal s = rt.createSignal(op.initial());
        assertEquals(op.result(), op.apply().applyAsLong(s));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("operations")
    void shouldWakeWaitersExactlyForNonSilentChanges(Op op) {
        Signal s = rt.createSignal(op.initial());
        AtomicInteger calls = new AtomicInteger();
        s.addWaiter(changed -> {
            assertEquals(s, changed);
            calls.incrementAndGet();
        });
        op.apply().applyAsLong(s);
        assertEquals(op.notifies() ? 1 : 0, calls.get());
    }

    @Test
    void shouldStopWakingAWaiterOnceRemoved() {
        Signal s = rt.createSignal(0);
        AtomicInteger calls = new AtomicInteger();
        SignalWaiter waiter = changed -> calls.incrementAndGet();
        s.addWaiter(waiter);
        s.removeWaiter(waiter);
        s.storeScrelease(1);
        assertEquals(0, calls.get());
    }

    @Test
    void shouldWakeEveryRegisteredWaiter() {
        Signal s = rt.createSignal(0);
        AtomicInteger calls = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            s.addWaiter(changed -> calls.incrementAndGet());
        }
        s.addScrelease(1);
        assertEquals(3, calls.get());
    }
}
