package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.status.HsaException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 23 part 5: CompletionFuture as a CompletionStage and a Future, cancellation, and views waiting for outside stages. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CompletionFutureStageTest {
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

    @Test
    void shouldNotStallOtherChainsWhenANonAsyncStageOfToCompletableFutureBlocks() throws Exception {
        AcceleratorView v = fx.accelerator.createView();
        CountDownLatch release = new CountDownLatch(1);
        try {
            Gate gate = new Gate(fx);
            CompletionFuture gated = v.parallelForEach(new Extent(1), gate.kernel());
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            CompletableFuture<Integer> blocking = gated.toCompletableFuture().thenApply(x -> {
                ranOn.set(Thread.currentThread());
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return 1;
            });
            gate.open();
            CompletionFuture other = fx.amp.parallelForEach(new Extent(1), idx -> { }).then(() -> { });
            assertTrue(other.waitFor(30, TimeUnit.SECONDS), "a blocked thenApply stalled another future's then()");
            release.countDown();
            assertEquals(1, blocking.get(30, TimeUnit.SECONDS));
            assertTrue(ranOn.get().isVirtual(), "ran on " + ranOn.get());
        } finally {
            release.countDown();
            v.close();
        }
    }

    @Test
    void shouldRunANonAsyncStageOfAPendingFutureOffTheContinuationThread() throws Exception {
        Gate gate = new Gate(fx);
        AcceleratorView v = fx.accelerator.createView();
        try {
            CompletionFuture f = v.parallelForEach(new Extent(1), gate.kernel());
            CompletionStage<String> s = f.thenApply(x -> Thread.currentThread().getName());
            gate.open();
            String name = s.toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertFalse(name.contains("continuations"), name);
        } finally {
            v.close();
        }
    }

    @Test
    void shouldRunANonAsyncStageOfACompleteFutureOnTheCaller() throws Exception {
        CompletionFuture f = fx.amp.parallelForEach(new Extent(1), idx -> { });
        f.get();
        Thread[] ran = new Thread[1];
        f.thenRun(() -> ran[0] = Thread.currentThread()).toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertSame(Thread.currentThread(), ran[0]);
    }

    @Test
    void shouldRunAnAsyncStageOnTheGivenExecutor() throws Exception {
        Executor named = r -> Thread.ofPlatform().name("given-executor").start(r);
        CompletionFuture f = fx.amp.parallelForEach(new Extent(8), idx -> { });
        String name = f.thenApplyAsync(x -> Thread.currentThread().getName(), named).toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
        assertEquals("given-executor", name);
        assertTrue(f.thenApplyAsync(x -> Thread.currentThread().isVirtual()).toCompletableFuture()
                .get(30, TimeUnit.SECONDS));
    }

    @Test
    void shouldComposeStagesWithAKernelDispatchedFromAFunction() throws Exception {
        IntArrayView out = fx.ints(1);
        CompletionStage<Void> s = fx.amp.parallelForEach(new Extent(1), idx -> out.set(0, 5))
                .thenCompose(x -> fx.amp.parallelForEach(new Extent(1), idx -> out.set(0, out.get(0) * 2)));
        assertNull(s.toCompletableFuture().get(30, TimeUnit.SECONDS));
        assertEquals(10, out.get(0));
    }

    @Test
    void shouldRecoverAFailureWithExceptionally() throws Exception {
        CompletionStage<Void> s = failing("recoverable").exceptionally(t -> null);
        assertNull(s.toCompletableFuture().get(30, TimeUnit.SECONDS));
    }

    @Test
    void shouldPassTheHsaExceptionToHandle() throws Exception {
        Throwable seen = failing("handled").handle((x, t) -> t).toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertInstanceOf(HsaException.class, seen);
        assertTrue(seen.getMessage().contains("handled"), seen.getMessage());
        Throwable below = failing("below").thenRun(() -> { }).handle((x, t) -> t).toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
        assertInstanceOf(CompletionException.class, below);
        assertInstanceOf(HsaException.class, below.getCause());
    }

    @Test
    void shouldComposeARecoveryWithExceptionallyCompose() throws Exception {
        IntArrayView out = fx.ints(1);
        CompletionStage<Void> s = failing("composed away")
                .exceptionallyCompose(t -> fx.amp.parallelForEach(new Extent(1), idx -> out.set(0, 7)));
        assertNull(s.toCompletableFuture().get(30, TimeUnit.SECONDS));
        assertEquals(7, out.get(0));
    }

    @Test
    void shouldNotTouchTheFutureWhenItsCompletableFutureIsCompletedByHand() throws Exception {
        Gate gate = new Gate(fx);
        AcceleratorView v = fx.accelerator.createView();
        try {
            CompletionFuture f = v.parallelForEach(new Extent(1), gate.kernel());
            f.toCompletableFuture().completeExceptionally(new IOException("by hand"));
            CompletableFuture<Void> other = f.toCompletableFuture();
            gate.open();
            assertNull(other.get(30, TimeUnit.SECONDS));
            assertNull(f.get(30, TimeUnit.SECONDS));
        } finally {
            v.close();
        }
    }

    @Test
    void shouldThrowTimeoutExceptionFromATimedGetOfAPendingFuture() throws Exception {
        Gate gate = new Gate(fx);
        AcceleratorView v = fx.accelerator.createView();
        try {
            Future<Void> f = v.parallelForEach(new Extent(1), gate.kernel());
            assertThrows(TimeoutException.class, () -> f.get(1, TimeUnit.MILLISECONDS));
            assertEquals(Future.State.RUNNING, f.state());
            gate.open();
            assertNull(f.get(30, TimeUnit.SECONDS));
            assertEquals(Future.State.SUCCESS, f.state());
            assertNull(f.resultNow());
            assertThrows(IllegalStateException.class, f::exceptionNow);
        } finally {
            v.close();
        }
    }

    @Test
    void shouldWrapAFailureInExecutionExceptionFromATimedGet() throws Exception {
        Future<Void> f = failing("timed boom");
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
        assertInstanceOf(HsaException.class, e.getCause());
        assertEquals(Future.State.FAILED, f.state());
        assertTrue(f.exceptionNow().getMessage().contains("timed boom"));
        assertThrows(IllegalStateException.class, f::resultNow);
    }

    @Test
    void shouldSkipTheBodyOfACancelledKernelThatWasWaitingAndKeepTheViewInOrder() throws Exception {
        Gate gate = new Gate(fx);
        IntArrayView out = fx.ints(1);
        AcceleratorView v = fx.accelerator.createView();
        try {
            CompletionFuture first = v.parallelForEach(new Extent(1), gate.kernel());
            CompletionFuture waiting = v.parallelForEach(new Extent(1000), idx -> out.atomicFetchAdd(0, 1));
            assertTrue(waiting.cancel(false));
            assertFalse(waiting.cancel(false), "a second cancel finds it complete");
            assertTrue(waiting.isCancelled() && waiting.isDone());
            assertEquals(Future.State.CANCELLED, waiting.state());
            assertThrows(CancellationException.class, waiting::get);
            assertThrows(CancellationException.class, () -> waiting.get(30, TimeUnit.SECONDS));
            gate.open();
            first.get();
            v.parallelForEach(new Extent(1), idx -> out.atomicFetchAdd(0, 100)).get();
            assertEquals(100, out.get(0), "the cancelled kernel ran some of its body");
            assertFalse(first.cancel(true), "a completed future cannot be cancelled");
        } finally {
            v.close();
        }
        assertEquals(0, v.launchesInFlight(), "the cancelled dispatch's launch slot was freed when it retired");
    }

    @Test
    void shouldFailWhatIsChainedToACancelledFuture() throws Exception {
        Gate gate = new Gate(fx);
        AcceleratorView v = fx.accelerator.createView();
        AcceleratorView w = fx.accelerator.createView();
        try {
            CompletionFuture f = v.parallelForEach(new Extent(1), gate.kernel());
            f.cancel(false);
            CompletionFuture then = f.then(() -> { });
            CompletionFuture after = w.parallelForEachAfter(f, new Extent(1), idx -> { });
            CompletableFuture<Void> stage = f.toCompletableFuture();
            assertTrue(then.waitFor(30, TimeUnit.SECONDS) && then.isFailed());
            assertTrue(after.waitFor(30, TimeUnit.SECONDS) && after.isFailed());
            assertThrows(CancellationException.class, () -> stage.get(30, TimeUnit.SECONDS));
            gate.open();
        } finally {
            gate.open();
            v.close();
            w.close();
        }
    }

    @Test
    void shouldNotRunTheContinuationOfACancelledThen() throws Exception {
        Gate gate = new Gate(fx);
        AcceleratorView v = fx.accelerator.createView();
        try {
            boolean[] ran = new boolean[1];
            CompletionFuture f = v.parallelForEach(new Extent(1), gate.kernel());
            CompletionFuture next = f.then(() -> ran[0] = true);
            assertTrue(next.cancel(false));
            gate.open();
            f.get();
            fx.amp.parallelForEach(new Extent(1), idx -> { }).then(() -> { }).get();
            assertFalse(ran[0]);
        } finally {
            v.close();
        }
    }

    @Test
    void shouldHoldAViewsLaterWorkUntilAnOutsideStageCompletes() throws Exception {
        IntArrayView out = fx.ints(1);
        AcceleratorView v = fx.accelerator.createView();
        try {
            CompletableFuture<String> outside = new CompletableFuture<>();
            CompletionFuture marker = v.waitFor(outside);
            CompletionFuture k = v.parallelForEach(new Extent(1), idx -> out.set(0, 1));
            assertFalse(k.isReady() || marker.isReady(), "the kernel ran before the outside stage completed");
            outside.complete("go");
            k.get();
            assertTrue(marker.isReady() && !marker.isFailed());
            assertEquals(1, out.get(0));
        } finally {
            v.close();
        }
    }

    @Test
    void shouldFailTheWorkBehindAFailedOutsideStage() {
        AcceleratorView v = fx.accelerator.createView();
        try {
            CompletableFuture<Void> outside = new CompletableFuture<>();
            CompletionFuture marker = v.waitFor(outside);
            CompletionFuture k = v.parallelForEach(new Extent(1), idx -> { });
            outside.completeExceptionally(new IOException("outside boom"));
            assertTrue(k.waitFor(30, TimeUnit.SECONDS));
            HsaException e = assertThrows(HsaException.class, marker::get);
            assertTrue(e.getMessage().contains("outside boom"), e.getMessage());
            assertTrue(k.isFailed());
            v.parallelForEach(new Extent(1), idx -> { }).get();
        } finally {
            v.close();
        }
    }

    @Test
    void shouldCloseAViewWaitingForAnOutsideStageThatNeverCompletes() {
        AcceleratorView v = fx.accelerator.createView();
        CompletableFuture<Void> never = new CompletableFuture<>();
        CompletionFuture marker = v.waitFor(never);
        CompletionFuture k = v.parallelForEach(new Extent(1), idx -> { });
        v.close();
        assertTrue(marker.isFailed(), "close() failed the marker instead of waiting forever");
        assertTrue(k.waitFor(30, TimeUnit.SECONDS) && k.isFailed());
        never.complete(null);
    }
}
