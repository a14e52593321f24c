package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.hsa4j.amp.codegen.TileCompiler;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The bad inputs: each fails its future with a clear error, and the runtime stays usable. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BadInputTest {
    private static AmpFixture fx;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start();
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    /** Fails {@code f}'s get, checks the status and message, and checks the layer still works. */
    private static HsaException failsWith(CompletionFuture f, HsaStatus status, String text) {
        HsaException e = assertThrows(HsaException.class, f::get);
        assertEquals(status, e.status(), e.getMessage());
        assertTrue(e.getMessage().contains(text), e.getMessage());
        stillUsable();
        return e;
    }

    private static void stillUsable() {
        IntArrayView out = fx.ints(256);
        fx.amp.parallelForEach(new Extent(256), idx -> out.set(idx.get(0), 1)).get();
        TiledExtent te = new Extent(256).tile(64);
        TileStaticInts s = te.tileStaticInts(64);
        fx.amp.parallelForEach(te, t -> {
            s.set(t, t.local(0), 2);
            t.barrier().await();
            out.set(t.global(0), out.get(t.global(0)) + s.get(t, 63 - t.local(0)));
        }).get();
        assertEquals(3, out.get(255));
    }

    @Test
    void shouldFailTilesThatDoNotDivideTheExtent() {
        long before = fx.view().queue().loadWriteIndexScacquire();
        CompletionFuture f = fx.amp.parallelForEach(new Extent(100, 64).tile(16, 16), t -> { });
        assertEquals(before, fx.view().queue().loadWriteIndexScacquire(), "nothing is queued");
        failsWith(f, HsaStatus.INVALID_ARGUMENT, "tile size 16 does not divide Extent[100, 64] in dimension 0");
    }

    @Test
    void shouldFailATileAboveTheAcceleratorsWorkgroupMaximum() {
        int max = fx.accelerator.workgroupMaxSize();
        failsWith(fx.amp.parallelForEach(new Extent(64, 64).tile(64, 64), t -> { }), HsaStatus.INVALID_ARGUMENT,
                "a tile of 4096 work-items exceeds gpu0's workgroup maximum " + max);
        failsWith(fx.amp.parallelForEach(new Extent(2 * max).tile(2 * max), t -> { }), HsaStatus.INVALID_ARGUMENT,
                "exceeds gpu0's workgroup maximum");
    }

    @Test
    void shouldFailTileStaticMemoryAboveTheGroupSegmentLimit() {
        TiledExtent te = new Extent(64).tile(64);
        TileStaticFloats s = te.tileStaticFloats(fx.accelerator.groupSegmentMax() / 4 + 1);
        failsWith(fx.amp.parallelForEach(te, t -> s.set(t, 0, 1f)), HsaStatus.INVALID_ARGUMENT,
                "tile_static memory of " + (fx.accelerator.groupSegmentMax() + 4) + " bytes exceeds");
    }

    @Test
    void shouldFailAKernelThatThrowsInOneWorkItemWithItsException() {
        HsaException e = failsWith(fx.amp.parallelForEach(new Extent(5000), idx -> {
            if (idx.get(0) == 4321) {
                throw new ArithmeticException("work-item 4321 divided by zero");
            }
        }), HsaStatus.EXCEPTION, "work-item 4321 divided by zero");
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        assertInstanceOf(ArithmeticException.class, root);
    }

    @Test
    void shouldFailATiledKernelThatThrowsInOneWorkItem() {
        failsWith(fx.amp.parallelForEach(new Extent(64).tile(16), t -> {
            t.barrier().await();
            if (t.global(0) == 33) {
                throw new IllegalStateException("tiled work-item 33 failed");
            }
        }), HsaStatus.EXCEPTION, "tiled work-item 33 failed");
    }

    @Test
    void shouldFailWorkQueuedBehindAFailedKernelWithTheCauseAndRecoverTheView() {
        AcceleratorView v = fx.accelerator.createView();
        try {
            Gate gate = new Gate(fx);
            IndexKernel wait = gate.kernel();
            CompletionFuture bad = v.parallelForEach(new Extent(1), idx -> {
                wait.run(idx);
                throw new IllegalStateException("first fails");
            });
            CompletionFuture behind = v.parallelForEach(new Extent(1), idx -> { });
            gate.open();
            assertThrows(HsaException.class, bad::get);
            HsaException e = assertThrows(HsaException.class, behind::get);
            assertTrue(e.getMessage().contains("first fails"), e.getMessage());
            v.parallelForEach(new Extent(1), idx -> { }).get();
        } finally {
            v.close();
        }
    }

    @Test
    void shouldNotDisturbOtherViewsWhenAKernelFails() {
        AcceleratorView good = fx.accelerator.createView();
        AcceleratorView bad = fx.accelerator.createView();
        try {
            Gate gate = new Gate(fx);
            CompletionFuture running = good.parallelForEach(new Extent(1), gate.kernel());
            assertThrows(HsaException.class, bad.parallelForEach(new Extent(1), idx -> {
                throw new IllegalStateException("bad view");
            })::get);
            assertFalse(running.isReady());
            gate.open();
            running.get();
        } finally {
            good.close();
            bad.close();
        }
    }

    @Test
    void shouldFailABarrierReachedByPartOfATileInWorkItemLoops() {
        TiledKernel k = t -> {
            if (t.local(0) < 5) {
                t.barrier().await();
            }
        };
        assertTrue(TileCompiler.compile(k).workItemLoops());
        failsWith(fx.amp.parallelForEach(new Extent(32).tile(16), k), HsaStatus.EXCEPTION,
                "a tile barrier was reached by only 5 of 16 work-items");
    }

    /** Waits only for some work-items; taking {@code t} makes the kernel run as continuations. */
    static void someWait(TiledIndex t) {
        if (t.local(0) >= 10) {
            t.barrier().await();
        }
    }

    @Test
    void shouldFailABarrierReachedByPartOfATileAsContinuations() {
        TiledKernel k = t -> someWait(t);
        assertFalse(TileCompiler.compile(k).workItemLoops());
        failsWith(fx.amp.parallelForEach(new Extent(32).tile(16), k), HsaStatus.EXCEPTION,
                "reached by only 6 of 16 work-items");
    }
}
