package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Item 6: completion futures (get, wait, waitFor, isReady, then, failures, interop, timestamps). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CompletionFutureTest {
    private static AmpFixture fx;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start();
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static CompletionFuture failing(String message) {
        return fx.amp.parallelForEach(new Extent(16), idx -> {
            if (idx.get(0) == 3) {
                throw new IllegalStateException(message);
            }
        });
    }

    private static Throwable root(Throwable t) {
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    @Test
    void shouldMakeKernelWritesVisibleAfterGet() {
        IntArrayView out = fx.ints(1000);
        fx.amp.parallelForEach(new Extent(1000), idx -> out.set(idx.get(0), 5)).get();
        assertEquals(5, out.get(0));
        assertEquals(5, out.get(999));
    }

    @Test
    void shouldWaitActivelyAndBlockedWithoutThrowingAFailure() {
        CompletionFuture ok = fx.amp.parallelForEach(new Extent(100), idx -> { });
        ok.wait(WaitState.ACTIVE);
        assertTrue(ok.isReady());
        CompletionFuture bad = failing("waits do not throw");
        bad.wait(WaitState.BLOCKED);
        assertTrue(bad.isFailed());
    }

    @Test
    void shouldTimeOutWaitForWhilePendingAndSucceedOnceComplete() {
        AcceleratorView v = fx.accelerator.createView();
        try {
            Gate gate = new Gate(fx);
            CompletionFuture f = v.parallelForEach(new Extent(1), gate.kernel());
            assertFalse(f.waitFor(Duration.ofMillis(20)));
            assertFalse(f.isReady());
            gate.open();
            assertTrue(f.waitFor(30, TimeUnit.SECONDS));
            assertTrue(f.isReady());
        } finally {
            v.close();
        }
    }

    @Test
    void shouldRunThenOnTheContinuationThreadNotTheCaller() {
        AtomicReference<Thread> ran = new AtomicReference<>();
        fx.amp.parallelForEach(new Extent(10), idx -> { }).then(() -> ran.set(Thread.currentThread())).get();
        assertNotSame(Thread.currentThread(), ran.get());
        assertEquals("hsa4j-amp-continuations", ran.get().getName());
    }

    @Test
    void shouldRunThenRegisteredAfterCompletionOffTheCaller() {
        CompletionFuture f = fx.amp.parallelForEach(new Extent(10), idx -> { });
        f.get();
        AtomicReference<Thread> ran = new AtomicReference<>();
        f.then(() -> ran.set(Thread.currentThread())).get();
        assertNotSame(Thread.currentThread(), ran.get());
    }

    @Test
    void shouldRunEveryContinuationWhenThenIsCalledMoreThanOnce() {
        Gate gate = new Gate(fx);
        AcceleratorView v = fx.accelerator.createView();
        try {
            CompletionFuture f = v.parallelForEach(new Extent(1), gate.kernel());
            Set<Integer> ran = ConcurrentHashMap.newKeySet();
            List<CompletionFuture> chained = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                int id = i;
                chained.add(f.then(() -> ran.add(id)));
            }
            assertEquals(5, chained.stream().distinct().count());
            assertTrue(chained.stream().noneMatch(c -> c == f));
            gate.open();
            chained.forEach(CompletionFuture::get);
            assertEquals(Set.of(0, 1, 2, 3, 4), ran);
        } finally {
            v.close();
        }
    }

    @Test
    void shouldChainThenIntoNewFuturesInOrder() {
        List<String> order = new ArrayList<>();
        fx.amp.parallelForEach(new Extent(10), idx -> { })
                .then(() -> order.add("a"))
                .then(() -> order.add("b"))
                .then(() -> order.add("c"))
                .get();
        assertEquals(List.of("a", "b", "c"), order);
    }

    @Test
    void shouldRunAllContinuationsOnOneThreadRatherThanAThreadEach() {
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        List<CompletionFuture> all = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            CompletionFuture f = fx.amp.parallelForEach(new Extent(4), idx -> { });
            all.add(f.then(() -> threads.add(Thread.currentThread())));
            all.add(f.then(() -> threads.add(Thread.currentThread())));
        }
        all.forEach(CompletionFuture::get);
        assertEquals(1, threads.size());
    }

    @Test
    void shouldPropagateAKernelExceptionToGetAndEveryChainedFuture() throws Exception {
        CompletionFuture f = failing("kernel boom");
        boolean[] ran = new boolean[1];
        CompletionFuture next = f.then(() -> ran[0] = true);
        CompletionFuture nextNext = next.then(() -> ran[0] = true);
        CompletionFuture composed = f.thenCompose(() -> fx.amp.parallelForEach(new Extent(1), idx -> { }));
        CompletableFuture<Void> cf = f.toCompletableFuture();
        for (CompletionFuture c : List.of(f, next, nextNext, composed)) {
            HsaException e = assertThrows(HsaException.class, c::get, c.toString());
            assertEquals(HsaStatus.EXCEPTION, e.status());
            assertInstanceOf(IllegalStateException.class, root(e));
            assertEquals("kernel boom", root(e).getMessage());
        }
        ExecutionException ee = assertThrows(ExecutionException.class, () -> cf.get(30, TimeUnit.SECONDS));
        assertEquals("kernel boom", root(ee).getMessage());
        assertFalse(ran[0]);
    }

    @Test
    void shouldFailTheChainedFutureWhenAContinuationThrows() {
        CompletionFuture f = fx.amp.parallelForEach(new Extent(4), idx -> { })
                .then(() -> {
                    throw new UnsupportedOperationException("continuation boom");
                });
        HsaException e = assertThrows(HsaException.class, f::get);
        assertInstanceOf(UnsupportedOperationException.class, root(e));
        assertThrows(HsaException.class, f.then(() -> { })::get);
    }

    @Test
    void shouldComposeAKernelDispatchedFromAContinuation() {
        IntArrayView out = fx.ints(100);
        fx.amp.parallelForEach(new Extent(100), idx -> out.set(idx.get(0), 1))
                .thenCompose(() -> fx.amp.parallelForEach(new Extent(100),
                        idx -> out.set(idx.get(0), out.get(idx.get(0)) + 1)))
                .get();
        assertEquals(2, out.get(0));
        assertEquals(2, out.get(99));
    }

    @Test
    void shouldLetAContinuationWaitForAnotherContinuationWithoutDeadlock() {
        IntArrayView out = fx.ints(1);
        fx.amp.parallelForEach(new Extent(1), idx -> { }).then(() -> {
            fx.amp.parallelForEach(new Extent(1), idx -> out.set(0, 1)).then(() -> out.set(0, out.get(0) + 1)).get();
        }).get();
        assertEquals(2, out.get(0));
    }

    @Test
    void shouldCompleteTheCompletableFuture() throws Exception {
        IntArrayView out = fx.ints(1);
        CompletableFuture<Void> cf = fx.amp.parallelForEach(new Extent(1), idx -> out.set(0, 9)).toCompletableFuture();
        assertNull(cf.get(30, TimeUnit.SECONDS));
        assertEquals(9, out.get(0));
    }

    @Test
    void shouldRecordBeginAndEndTimestamps() {
        long before = fx.runtime.timestamp();
        CompletionFuture f = fx.amp.parallelForEach(new Extent(1000), idx -> { });
        f.get();
        long after = fx.runtime.timestamp();
        assertTrue(before <= f.beginTimestamp(), before + " > " + f.beginTimestamp());
        assertTrue(f.beginTimestamp() <= f.endTimestamp());
        assertTrue(f.endTimestamp() <= after);
        CompletionFuture c = f.then(() -> { });
        c.get();
        assertTrue(c.beginTimestamp() >= f.endTimestamp());
        assertTrue(c.endTimestamp() >= c.beginTimestamp());
        assertEquals(1_000_000_000L, CompletionFuture.tickFrequency());
    }

    @Test
    void shouldReportZeroTimestampsWhilePending() {
        Gate gate = new Gate(fx);
        AcceleratorView v = fx.accelerator.createView();
        try {
            CompletionFuture f = v.parallelForEach(new Extent(1), gate.kernel());
            assertEquals(0, f.endTimestamp());
            gate.open();
            f.get();
            assertNotEquals(0, f.endTimestamp());
        } finally {
            v.close();
        }
    }

    /** Chains a continuation capturing a fresh object; returns a weak reference to that object. */
    private static WeakReference<Object> chainCapturing(CompletionFuture f, List<CompletionFuture> keep) {
        Object captured = new Object();
        WeakReference<Object> ref = new WeakReference<>(captured);
        keep.add(f.then(() -> assertNotSame(null, captured)));
        return ref;
    }

    @Test
    void shouldDropTheContinuationOnceItHasRun() {
        CompletionFuture f = fx.amp.parallelForEach(new Extent(1), idx -> { });
        List<CompletionFuture> keep = new ArrayList<>();
        WeakReference<Object> ref = chainCapturing(f, keep);
        keep.get(0).get();
        for (int i = 0; i < 20 && ref.get() != null; i++) {
            System.gc();
        }
        assertNull(ref.get(), "a completed future still holds its continuation's captures");
        assertTrue(f.isReady() && keep.get(0).isReady());
    }
}
