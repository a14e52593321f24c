package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 8 in the C++AMP layer: in the runtime's fidelity mode amp kernels read and write their
 * array views through the coherence model, so data an amp kernel leaves in a coarse-grained
 * {@link Array} is stale to the host until the kernel ends, while correct programs (vector add,
 * atomics) still compute exact results. The mid-kernel tests keep the kernel alive (bounded) until
 * the host has read, so the packet's end-of-kernel release fence cannot hide the stale value.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FidelityModeTest {
    private static final long SPIN_LIMIT_NANOS = 20_000_000_000L;
    private static final int OLD = 7;
    private static final int NEW = 42;
    private static final int WORK_ITEMS = 4096;

    private AmpFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private void start(boolean fidelity) {
        fx = AmpFixture.start(RuntimeConfig.builder().gpuAgents(1).computeUnits(2).fidelity(fidelity).build());
        assertEquals(fidelity, fx.runtime.svm().access().coherent(), "the runtime's fidelity mode");
    }

    /** Waits (bounded) until element {@code i} of {@code flags} is 1, with {@code order}. */
    private static void awaitFlag(IntArrayView flags, int i, CppMemoryOrder order) {
        long end = System.nanoTime() + SPIN_LIMIT_NANOS;
        while (flags.atomicLoad(i, order) != 1) {
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException("flag " + i + " was never raised");
            }
            Thread.onSpinWait();
        }
    }

    /** {@link #hostReadMidKernel(IntArrayView, Consumer)} with a plain store of NEW. */
    private int hostReadMidKernel(IntArrayView data) {
        return hostReadMidKernel(data, d -> d.set(0, NEW));
    }

    /**
     * An amp kernel writes NEW to element 0 of {@code data} with {@code write}, then raises a
     * fine-grained flag with a seq_cst (system-scope) store; the host waits for the flag, reads the
     * element through the view and only then lets the kernel end. Returns what the host read.
     */
    private int hostReadMidKernel(IntArrayView data, Consumer<IntArrayView> write) {
        IntArrayView flags = fx.ints(2);
        data.set(0, OLD);
        CompletionFuture done = fx.amp.parallelForEach(new Extent(1), idx -> {
            write.accept(data);
            flags.atomicStore(0, 1, CppMemoryOrder.SEQ_CST);
            awaitFlag(flags, 1, CppMemoryOrder.RELAXED);
        });
        awaitFlag(flags, 0, CppMemoryOrder.ACQUIRE);
        int seen = data.get(0);
        flags.atomicStore(1, 1, CppMemoryOrder.RELEASE);
        done.get();
        return seen;
    }

    @Test
    void shouldAddVectorsExactlyInFidelityMode() {
        start(true);
        int n = 1 << 18;
        FloatArrayView a = fx.floats(n);
        FloatArrayView b = fx.floats(n);
        try (Array<FloatArrayView> c = Array.floats(fx.view(), new Extent(n))) {
            for (int i = 0; i < n; i++) {
                a.set(i, i);
                b.set(i, 0.5f * i);
            }
            FloatArrayView out = c.view();
            fx.amp.parallelForEach(new Extent(n), idx -> {
                int i = idx.get(0);
                out.set(i, a.get(i) + b.get(i));
            }).get();
            out.synchronize();
            for (int i = 0; i < n; i++) {
                if (out.get(i) != 1.5f * i) {
                    fail("element " + i + " is " + out.get(i) + ", not " + 1.5f * i);
                }
            }
        }
    }

    @Test
    void shouldHideCoarseGrainedArrayWritesFromHostMidKernel() {
        start(true);
        try (Array<IntArrayView> data = Array.ints(fx.view(), new Extent(16))) {
            assertEquals(OLD, hostReadMidKernel(data.view()));
        }
    }

    @Test
    void shouldShowCoarseGrainedArrayWritesToHostAfterKernelEnd() {
        start(true);
        try (Array<IntArrayView> data = Array.ints(fx.view(), new Extent(16))) {
            hostReadMidKernel(data.view());
            data.view().synchronize();
            assertEquals(NEW, data.view().get(0));
        }
    }

    @Test
    void shouldHideSystemScopeAtomicOnCoarseGrainedArrayFromHostMidKernel() {
        start(true);
        try (Array<IntArrayView> data = Array.ints(fx.view(), new Extent(16))) {
            assertEquals(OLD, hostReadMidKernel(data.view(), d -> d.atomicExchange(0, NEW)));
        }
    }

    @Test
    void shouldShowFineGrainedViewWritesToHostMidKernel() {
        start(true);
        assertEquals(NEW, hostReadMidKernel(fx.ints(16)));
    }

    @Test
    void shouldShowCoarseGrainedArrayWritesToHostMidKernelWhenOff() {
        start(false);
        try (Array<IntArrayView> data = Array.ints(fx.view(), new Extent(16))) {
            assertEquals(NEW, hostReadMidKernel(data.view()));
        }
    }

    @Test
    void shouldHideWritesBehindWorkgroupScopeFenceFromHostMidKernel() {
        start(true);
        IntArrayView data = fx.ints(16);
        IntArrayView flags = fx.ints(2);
        data.set(0, OLD);
        CompletionFuture done = fx.amp.parallelForEach(new Extent(1).tile(1), t -> {
            data.set(0, NEW);
            Fences.globalMemoryFence(t);
            flags.atomicStore(0, 1, CppMemoryOrder.RELAXED);
            awaitFlag(flags, 1, CppMemoryOrder.RELAXED);
        });
        awaitFlag(flags, 0, CppMemoryOrder.ACQUIRE);
        int seen = data.get(0);
        flags.atomicStore(1, 1, CppMemoryOrder.RELEASE);
        done.get();
        assertEquals(OLD, seen);
    }

    @ParameterizedTest
    @EnumSource(value = CppMemoryOrder.class)
    void shouldCountEveryFetchAddOnFineGrainedMemoryInFidelityMode(CppMemoryOrder order) {
        start(true);
        IntArrayView counter = fx.ints(1);
        fx.amp.parallelForEach(new Extent(WORK_ITEMS), idx -> counter.atomicFetchAdd(0, 1, order)).get();
        assertEquals(WORK_ITEMS, counter.get(0));
    }

    @ParameterizedTest
    @EnumSource(value = CppMemoryOrder.class)
    void shouldCountEveryFetchAddOnCoarseGrainedArrayInFidelityMode(CppMemoryOrder order) {
        start(true);
        try (Array<LongArrayView> counter = Array.longs(fx.view(), new Extent(1))) {
            LongArrayView c = counter.view();
            c.set(0, 0);
            fx.amp.parallelForEach(new Extent(WORK_ITEMS), idx -> c.atomicFetchAdd(0, 1L, order)).get();
            c.synchronize();
            assertEquals(WORK_ITEMS, c.get(0));
        }
    }

    @Test
    void shouldShowKernelResultsAfterSynchronizeWhenAnotherThreadWaitedForTheKernel() throws InterruptedException {
        start(true);
        try (Array<LongArrayView> counter = Array.longs(fx.view(), new Extent(1))) {
            LongArrayView c = counter.view();
            c.set(0, 0);
            CompletionFuture done = fx.amp.parallelForEach(new Extent(WORK_ITEMS), idx -> c.atomicFetchAdd(0, 1L));
            Thread waiter = new Thread(done::get, "waiter");
            waiter.start();
            waiter.join(SPIN_LIMIT_NANOS / 1_000_000);
            assertFalse(waiter.isAlive(), "the kernel did not end");
            c.synchronize();
            assertEquals(WORK_ITEMS, c.get(0), "synchronize() did not drop the host thread's stale copy");
        }
    }

    @Test
    void shouldAddEveryFloatAtomicallyInFidelityMode() {
        start(true);
        FloatArrayView sum = fx.floats(1);
        fx.amp.parallelForEach(new Extent(WORK_ITEMS), idx -> sum.atomicFetchAdd(0, 1f)).get();
        assertEquals(WORK_ITEMS, sum.get(0));
    }

    @Test
    void shouldKeepTheMaximumInFidelityMode() {
        start(true);
        IntArrayView max = fx.ints(1);
        fx.amp.parallelForEach(new Extent(WORK_ITEMS), idx -> max.atomicFetchMax(0, (idx.get(0) * 7919) % WORK_ITEMS)).get();
        assertEquals(WORK_ITEMS - 1, max.get(0));
    }

    @Test
    void shouldWriteThroughASectionInFidelityMode() {
        start(true);
        IntArrayView whole = fx.ints(8);
        IntArrayView tail = whole.section(new Index(4), new Extent(4));
        fx.amp.parallelForEach(new Extent(4), idx -> tail.set(idx.get(0), NEW + idx.get(0))).get();
        assertEquals(NEW + 3, whole.get(7));
    }
}
