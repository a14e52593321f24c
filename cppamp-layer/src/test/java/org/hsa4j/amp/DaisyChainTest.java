package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Item 8: the seed's three-kernel daisy chain (k1, then k2, then k3, then a promise), in the nested
 * then() form and in the dependency form (barrier-AND packets, no host round trip).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DaisyChainTest {
    private static final int N = 10_000;
    private static AmpFixture fx;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start();
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static void checkChain(IntArrayView c) {
        for (int i = 0; i < N; i++) {
            assertEquals(2 * i + 1, c.get(i), "element " + i);
        }
    }

    @Test
    void shouldRunTheChainInTheNestedThenForm() throws Exception {
        IntArrayView a = fx.ints(N);
        IntArrayView b = fx.ints(N);
        IntArrayView c = fx.ints(N);
        AcceleratorView v = fx.view();
        CompletableFuture<String> promise = new CompletableFuture<>();
        CompletionFuture k1 = v.parallelForEach(new Extent(N), idx -> a.set(idx.get(0), idx.get(0)));
        k1.then(() -> {
            CompletionFuture k2 = v.parallelForEach(new Extent(N), idx -> b.set(idx.get(0), 2 * a.get(idx.get(0))));
            k2.then(() -> {
                CompletionFuture k3 = v.parallelForEach(new Extent(N), idx -> c.set(idx.get(0), b.get(idx.get(0)) + 1));
                k3.then(() -> promise.complete("done"));
            });
        });
        assertEquals("done", promise.get(30, TimeUnit.SECONDS));
        checkChain(c);
    }

    @Test
    void shouldRunTheChainInTheDependencyFormWithBarrierPacketsAndNoHostRoundTrip() throws Exception {
        IntArrayView a = fx.ints(N);
        IntArrayView b = fx.ints(N);
        IntArrayView c = fx.ints(N);
        AcceleratorView v1 = fx.accelerator.createView();
        AcceleratorView v2 = fx.accelerator.createView();
        AcceleratorView v3 = fx.accelerator.createView();
        try {
            Gate gate = new Gate(fx);
            IndexKernel wait = gate.kernel();
            Queue q2 = v2.queue();
            Queue q3 = v3.queue();
            long at2 = q2.loadWriteIndexScacquire();
            long at3 = q3.loadWriteIndexScacquire();
            CompletionFuture k1 = v1.parallelForEach(new Extent(N), idx -> {
                if (idx.get(0) == 0) {
                    wait.run(idx);
                }
                a.set(idx.get(0), idx.get(0));
            });
            CompletionFuture k2 = v2.parallelForEachAfter(k1, new Extent(N),
                    idx -> b.set(idx.get(0), 2 * a.get(idx.get(0))));
            CompletionFuture k3 = v3.parallelForEachAfter(k2, new Extent(N),
                    idx -> c.set(idx.get(0), b.get(idx.get(0)) + 1));
            CompletableFuture<Void> promise = k3.toCompletableFuture();
            assertEquals(at2 + 2, q2.loadWriteIndexScacquire(), "a barrier-AND and a dispatch");
            assertEquals(PacketType.BARRIER_AND.code(),
                    PacketHeader.typeCode(q2.ring().get(ValueLayout.JAVA_SHORT, q2.slotOffset(at2))));
            assertEquals(PacketType.BARRIER_AND.code(),
                    PacketHeader.typeCode(q3.ring().get(ValueLayout.JAVA_SHORT, q3.slotOffset(at3))));
            assertFalse(k2.isReady() || k3.isReady() || promise.isDone(), "the whole chain is queued before k1 ends");
            gate.open();
            promise.get(30, TimeUnit.SECONDS);
            checkChain(c);
        } finally {
            v1.close();
            v2.close();
            v3.close();
        }
    }

    @Test
    void shouldFailEveryLinkOfTheDependencyFormWhenTheFirstKernelThrows() {
        AcceleratorView v1 = fx.accelerator.createView();
        AcceleratorView v2 = fx.accelerator.createView();
        try {
            CompletionFuture k1 = v1.parallelForEach(new Extent(N), idx -> {
                if (idx.get(0) == 17) {
                    throw new IllegalStateException("k1 boom");
                }
            });
            CompletionFuture k2 = v2.parallelForEachAfter(k1, new Extent(N), idx -> { });
            CompletionFuture k3 = v1.parallelForEachAfter(k2, new Extent(N), idx -> { });
            CompletableFuture<Void> promise = k3.toCompletableFuture();
            ExecutionException e = assertThrows(ExecutionException.class, () -> promise.get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause().getMessage().contains("k1 boom"), e.getCause().getMessage());
            // k3 shares k1's queue, whose error fails it at once; k2, on the other view, fails when its
            // barrier sees k1's failed signal, which may come a little later: wait for it (bounded)
            assertThrows(ExecutionException.class, () -> k2.toCompletableFuture().get(30, TimeUnit.SECONDS));
            assertTrue(k2.isFailed());
            v1.parallelForEach(new Extent(N), idx -> { }).get();
            v2.parallelForEach(new Extent(N), idx -> { }).get();
        } finally {
            v1.close();
            v2.close();
        }
    }

    @Test
    void shouldFailTheRestOfTheNestedFormWhenAKernelThrows() {
        CompletionFuture k1 = fx.view().parallelForEach(new Extent(N), idx -> { });
        CompletionFuture chain = k1
                .thenCompose(() -> fx.view().parallelForEach(new Extent(N), idx -> {
                    throw new IllegalStateException("k2 boom");
                }))
                .thenCompose(() -> fx.view().parallelForEach(new Extent(N), idx -> { }));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> chain.toCompletableFuture().get(30, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("k2 boom"), e.getCause().getMessage());
    }
}
