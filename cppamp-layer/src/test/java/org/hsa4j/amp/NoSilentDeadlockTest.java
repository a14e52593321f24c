package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A kernel that waits for a later packet of its own in-order view fails at once instead of hanging (issue 22). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NoSilentDeadlockTest {
    private static AmpFixture fx;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start();
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static HsaException refusal(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof HsaException h && h.getMessage().contains("would never return")) {
                return h;
            }
        }
        return null;
    }

    @Test
    void shouldFailAKernelThatWaitsForADispatchItQueuedOnItsOwnView() {
        CompletionFuture outer = fx.amp.parallelForEach(new Extent(1),
                idx -> fx.amp.parallelForEachAndWait(new Extent(1), inner -> { }));
        HsaException e = assertThrows(HsaException.class, outer::get);
        HsaException refused = refusal(e);
        assertTrue(refused != null, "the cause chain names the refused wait: " + e);
        assertEquals(HsaStatus.ERROR, refused.status(), refused.getMessage());
    }

    @Test
    void shouldKeepTheViewServingAfterTheRefusedWait() {
        CompletionFuture outer = fx.amp.parallelForEach(new Extent(1),
                idx -> fx.amp.parallelForEach(new Extent(1), inner -> { }).get());
        assertThrows(HsaException.class, outer::get);
        IntArrayView hits = fx.ints(64);
        fx.amp.parallelForEach(new Extent(64), idx -> hits.atomicFetchAdd(idx.get(0), 1)).get();
        for (int i = 0; i < 64; i++) {
            assertEquals(1, hits.get(i), "point " + i);
        }
    }

    /** Runs {@code body} in a one-point kernel on {@code view}; the status it threw, or SUCCESS. */
    private static HsaStatus inKernel(AcceleratorView view, Consumer<CompletionFuture> body) {
        AtomicReference<CompletionFuture> self = new AtomicReference<>();
        AtomicReference<HsaStatus> seen = new AtomicReference<>();
        CompletionFuture f = view.parallelForEach(new Extent(1), idx -> {
            long end = System.nanoTime() + 20_000_000_000L;
            while (self.get() == null && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            try {
                body.accept(self.get());
                seen.set(HsaStatus.SUCCESS);
            } catch (HsaException e) {
                seen.set(e.status());
            }
        });
        self.set(f);
        assertTrue(f.waitFor(Duration.ofSeconds(30)), "the kernel returned");
        f.get();
        return seen.get();
    }

    @Test
    void shouldFailAKernelThatWaitsForItsOwnFuture() {
        assertEquals(HsaStatus.ERROR, inKernel(fx.amp.defaultView(),
                self -> self.waitFor(Duration.ofSeconds(2))));
    }

    @Test
    void shouldFailAKernelThatClosesItsOwnViewAndLeaveTheViewServing() {
        AcceleratorView view = fx.accelerator.createView();
        try {
            assertEquals(HsaStatus.ERROR, inKernel(view, self -> view.close()));
            IntArrayView hits = fx.ints(8);
            view.parallelForEach(new Extent(8), idx -> hits.atomicFetchAdd(idx.get(0), 1)).get();
            assertEquals(1, hits.get(7));
        } finally {
            view.close();
        }
    }

    @Test
    void shouldFailAKernelThatClosesItsAmpAndLeaveTheAmpOpen() {
        assertEquals(HsaStatus.ERROR, inKernel(fx.amp.defaultView(), self -> fx.amp.close()));
        IntArrayView hits = fx.ints(8);
        fx.amp.parallelForEach(new Extent(8), idx -> hits.atomicFetchAdd(idx.get(0), 1)).get();
        assertEquals(1, hits.get(7));
    }
}
