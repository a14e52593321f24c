package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.hsa4j.status.HsaException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 22 part 5: a then() continuation's future stands for the futures it made (the nested then() form). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CompletionFutureNestTest {
    private static AmpFixture fx;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start();
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void shouldFailTheOuterFutureWhenAKernelInsideANestedThenThrows() {
        AcceleratorView v = fx.view();
        CompletionFuture outer = v.parallelForEach(new Extent(100), idx -> { }).then(() -> {
            CompletionFuture k2 = v.parallelForEach(new Extent(100), idx -> {
                if (idx.get(0) == 7) {
                    throw new IllegalStateException("k2 boom");
                }
            });
            k2.then(() -> v.parallelForEach(new Extent(100), idx -> { }));
        });
        assertTrue(outer.waitFor(30, TimeUnit.SECONDS), "the outer future never completed: the inner failure was lost");
        HsaException e = assertThrows(HsaException.class, outer::get);
        assertTrue(e.getMessage().contains("k2 boom"), e.getMessage());
    }

    @Test
    void shouldFailTheOuterFutureWhenAContinuationTwoLevelsDownThrows() {
        CompletionFuture outer = fx.amp.parallelForEach(new Extent(1), idx -> { })
                .then(() -> fx.amp.parallelForEach(new Extent(1), idx -> { })
                        .then(() -> fx.amp.parallelForEach(new Extent(1), idx -> { })
                                .then(() -> {
                                    throw new UnsupportedOperationException("deep boom");
                                })));
        assertTrue(outer.waitFor(30, TimeUnit.SECONDS));
        HsaException e = assertThrows(HsaException.class, outer::get);
        assertTrue(e.getMessage().contains("deep boom"), e.getMessage());
    }

    @Test
    void shouldCompleteTheOuterFutureOnlyAfterTheWholeNestedChain() {
        IntArrayView c = fx.ints(1);
        AcceleratorView v = fx.view();
        CompletionFuture outer = v.parallelForEach(new Extent(1), idx -> c.set(0, 1))
                .then(() -> v.parallelForEach(new Extent(1), idx -> c.set(0, c.get(0) * 10))
                        .then(() -> v.parallelForEach(new Extent(1), idx -> c.set(0, c.get(0) + 3))));
        outer.get();
        assertEquals(13, c.get(0), "the outer future completed before the innermost kernel");
    }
}
