package org.hsa4j.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.kernel.Kernel;
import org.hsa4j.kernel.KernelDescriptor;
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

/** The launch call (issue 22 part 3): one call reserves, writes, publishes, rings and returns a completion. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LaunchCallTest {
    private HsaRuntime rt;
    private Queue queue;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build());
        queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    private long kernel(Kernel k) {
        return rt.createExecutable().define("k", KernelDescriptor.withKernarg(256), k).freeze().symbol("k").kernelObject();
    }

    private static long arg(org.hsa4j.kernel.WorkItem wi, int i) {
        return wi.kernarg().get(ValueLayout.JAVA_LONG, 8L * i);
    }

    @Test
    void shouldRunEveryWorkItemWithItsArgumentsAndCompleteTheFuture() {
        long out = rt.hostMalloc(4L * 1000);
        long k = kernel(wi -> wi.svm().setInt(arg(wi, 0) + 4 * wi.globalId(0), (int) (wi.globalId(0) * arg(wi, 1))));
        queue.dispatch(k, 1000, 64, out, 3).join();
        for (int i = 0; i < 1000; i++) {
            assertEquals(3 * i, rt.svm().getInt(out + 4L * i), "work-item " + i);
        }
    }

    @Test
    void shouldReArmAPooledSignalSoTheNextDispatchIsNotSeenDoneBeforeItRuns() {
        long flag = rt.hostMalloc(8);
        long k = kernel(wi -> {
            long end = System.nanoTime() + 20_000_000_000L;
            while (wi.svm().atomicLoadInt(arg(wi, 0), MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) == 0
                    && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        });
        rt.svm().setInt(flag, 1);
        DispatchCompletion first = queue.dispatch(k, 1, 1, flag);
        first.join();
        long reused = first.signal().handle();
        rt.svm().setInt(flag, 0);
        DispatchCompletion second = queue.dispatch(k, 1, 1, flag);
        assertEquals(reused, second.signal().handle(), "the second launch reuses the pooled signal");
        assertFalse(second.join(50, TimeUnit.MILLISECONDS), "the kernel waits for the flag, so the dispatch has not ended");
        rt.svm().atomicStoreInt(flag, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        second.join();
        assertTrue(second.isDone());
    }

    @Test
    void shouldThrowTheKernelsFailureFromEveryWait() {
        long k = kernel(wi -> {
            throw new IllegalStateException("boom");
        });
        DispatchCompletion c = queue.dispatch(k, 4, 4);
        HsaException e = assertThrows(HsaException.class, c::join);
        assertEquals(HsaStatus.EXCEPTION, e.status(), e.getMessage());
        assertEquals(HsaStatus.EXCEPTION, assertThrows(HsaException.class, c::join).status());
        ExecutionException wrapped = assertThrows(ExecutionException.class, c::get);
        assertEquals(e, wrapped.getCause());
    }

    @Test
    void shouldLaunchA2dGridThroughTheBuilder() {
        long out = rt.hostMalloc(4L * 6 * 5);
        long k = kernel(wi -> wi.svm().setInt(arg(wi, 0) + 4 * (wi.globalId(1) * 6 + wi.globalId(0)), 1 + (int) wi.globalId(1)));
        queue.launch(k).grid(6, 5).workgroup(2, 2).args(out).dispatch().join();
        for (int y = 0; y < 5; y++) {
            for (int x = 0; x < 6; x++) {
                assertEquals(1 + y, rt.svm().getInt(out + 4L * (y * 6 + x)), "(" + x + ", " + y + ")");
            }
        }
    }

    @Test
    void shouldRefuseMoreArgumentsThanTheKernargBlockHolds() {
        long k = kernel(wi -> { });
        HsaException e = assertThrows(HsaException.class, () -> queue.dispatch(k, 1, 1, new long[33]));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRefuseAnEmptyGrid() {
        long k = kernel(wi -> { });
        assertEquals(HsaStatus.INVALID_ARGUMENT, assertThrows(HsaException.class, () -> queue.dispatch(k, 0, 1)).status());
    }

    @Test
    void shouldFailAtOnceAKernelThatJoinsItsOwnDispatch() {
        AtomicReference<DispatchCompletion> self = new AtomicReference<>();
        AtomicReference<HsaStatus> seen = new AtomicReference<>();
        long k = kernel(wi -> {
            long end = System.nanoTime() + 20_000_000_000L;
            while (self.get() == null && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            try {
                self.get().join();
                seen.set(HsaStatus.SUCCESS);
            } catch (HsaException e) {
                seen.set(e.status());
            }
        });
        DispatchCompletion c = queue.dispatch(k, 1, 1);
        self.set(c);
        c.join();
        assertEquals(HsaStatus.ERROR, seen.get());
    }

    @Test
    void shouldUseTheCallersKernargAndSignalIntoAnIdTheCallerReserved() {
        long out = rt.hostMalloc(8);
        long kernarg = rt.kernargPool().allocate(256);
        rt.svm().setLong(kernarg, out);
        rt.svm().setLong(kernarg + 8, 77);
        org.hsa4j.signal.Signal mine = rt.createSignal(1);
        long k = kernel(wi -> wi.svm().setLong(arg(wi, 0), arg(wi, 1)));
        long id = queue.reserveSlot();
        DispatchCompletion c = queue.launch(k).kernarg(kernarg).completion(mine).dispatchInto(id);
        assertEquals(id, c.packetId());
        c.join();
        assertEquals(77, rt.svm().getLong(out));
        assertEquals(0, mine.loadScacquire(), "the caller's signal is not re-armed or pooled");
        assertFalse(mine.isDestroyed());
    }

    @Test
    void shouldPassTheArgumentsInAPooledBlockBesideACallersSignal() {
        long out = rt.hostMalloc(8);
        org.hsa4j.signal.Signal mine = rt.createSignal(1);
        long k = kernel(wi -> wi.svm().setLong(arg(wi, 0), arg(wi, 1)));
        queue.launch(k).args(out, 55).completion(mine).dispatch().join();
        assertEquals(55, rt.svm().getLong(out));
        assertEquals(0, mine.loadScacquire());
    }

    @Test
    void shouldTakeNothingFromThePoolForACallersSignalWithoutArguments() {
        org.hsa4j.signal.Signal mine = rt.createSignal(1);
        long k = rt.createExecutable().define("empty", KernelDescriptor.EMPTY, wi -> { }).freeze().symbol("empty")
                .kernelObject();
        DispatchCompletion pooled = queue.dispatch(k, 1, 1);
        pooled.join();
        long inPool = pooled.signal().handle();
        queue.launch(k).completion(mine).dispatch();      // waited for on the caller's own signal, as raw users do
        while (mine.waitScacquire(org.hsa4j.signal.SignalCondition.EQ, 0, 100_000_000L,
                org.hsa4j.signal.WaitState.BLOCKED) != 0) {
            Thread.onSpinWait();
        }
        DispatchCompletion next = queue.dispatch(k, 1, 1);
        assertEquals(inPool, next.signal().handle(), "the pooled slot stayed in the pool");
        next.join();
    }
}
