package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.hsa4j.amp.codegen.IndexLoops;
import org.hsa4j.queue.Queue;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Item 5: parallelForEach over extents. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ParallelForEachTest {
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
    void shouldCutOneRangeOrMoreRangesThanComputeUnits() {
        for (int units = 1; units <= 64; units++) {
            for (long total = 1; total <= 40_000; total += total < 2_000 ? 1 : 97) {
                long chunk = AcceleratorView.rangeSize(total, units);
                long ranges = (total + chunk - 1) / chunk;
                assertTrue(chunk >= 1, "range size for " + total + " on " + units);
                assertTrue(ranges == 1 || ranges > units || ranges == total,
                        total + " work-items on " + units + " units cut into " + ranges + " ranges of " + chunk);
                assertTrue(ranges <= Math.max((long) units * AcceleratorView.RANGES_PER_UNIT, units + 1),
                        total + " work-items on " + units + " units cut into " + ranges + " ranges");
            }
        }
    }

    @Test
    void shouldCutAOneThousandPointExtentIntoThreeRangesOnTwoUnits() {
        assertEquals(342, AcceleratorView.rangeSize(1024, 2));
        assertEquals(512, AcceleratorView.rangeSize(1024, 1), "two ranges of the minimum size on one unit");
        assertEquals(8192, AcceleratorView.rangeSize(1 << 20, 2), "64 ranges per unit once they are over the minimum");
    }

    @Test
    void shouldAddVectorsInPlaceInSvm() {
        int n = 100_000;
        FloatArrayView a = fx.floats(n);
        FloatArrayView b = fx.floats(n);
        FloatArrayView c = fx.floats(n);
        for (int i = 0; i < n; i++) {
            a.set(i, i);
            b.set(i, 2 * i);
        }
        fx.amp.parallelForEach(new Extent(n), idx -> c.set(idx.get(0), a.get(idx.get(0)) + b.get(idx.get(0)))).get();
        for (int i = 0; i < n; i++) {
            assertEquals(3f * i, c.get(i), "element " + i);
        }
    }

    @Test
    void shouldVisitEveryPointOfARank1ExtentExactlyOnce() {
        int n = 12_345;
        IntArrayView hits = fx.ints(n);
        fx.amp.parallelForEach(new Extent(n), idx -> hits.atomicFetchAdd(idx.get(0), 1)).get();
        for (int i = 0; i < n; i++) {
            assertEquals(1, hits.get(i), "point " + i);
        }
    }

    @Test
    void shouldVisitEveryPointOfARank2ExtentExactlyOnce() {
        Extent e = new Extent(123, 77);
        IntArrayView hits = fx.ints((int) e.size());
        fx.amp.parallelForEach(e, idx -> hits.atomicFetchAdd((int) e.linearize(idx), 1)).get();
        for (int i = 0; i < e.size(); i++) {
            assertEquals(1, hits.get(i), "point " + i);
        }
    }

    @Test
    void shouldVisitEveryPointOfARank3ExtentExactlyOnce() {
        Extent e = new Extent(9, 31, 17);
        IntArrayView hits = fx.ints((int) e.size());
        fx.amp.parallelForEach(e, idx -> hits.atomicFetchAdd((int) e.linearize(idx), 1)).get();
        for (int i = 0; i < e.size(); i++) {
            assertEquals(1, hits.get(i), "point " + i);
        }
    }

    @Test
    void shouldWriteExactlyOneKernelDispatchPacketPerCall() {
        AcceleratorView v = fx.accelerator.createView();
        try {
            Queue q = v.queue();
            long before = q.loadWriteIndexScacquire();
            v.parallelForEach(new Extent(100_000), idx -> { }).get();
            assertEquals(before + 1, q.loadWriteIndexScacquire());
        } finally {
            v.close();
        }
    }

    @Test
    void shouldGiveAReadyFutureAndNoPacketForAZeroExtent() {
        AcceleratorView v = fx.accelerator.createView();
        try {
            long before = v.queue().loadWriteIndexScacquire();
            CompletionFuture f = v.parallelForEach(new Extent(10, 0), idx -> {
                throw new AssertionError("no work-item exists");
            });
            assertTrue(f.isReady());
            f.get();
            assertEquals(before, v.queue().loadWriteIndexScacquire());
        } finally {
            v.close();
        }
    }

    @Test
    void shouldThrowAClearErrorForAnOversizedExtent() {
        HsaException e = assertThrows(HsaException.class,
                () -> fx.amp.parallelForEach(new Extent(100_000, 100_000), idx -> { }));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("10000000000 points"), e.getMessage());
    }

    @Test
    void shouldThrowAClearErrorForANegativeExtent() {
        HsaException e = assertThrows(HsaException.class,
                () -> fx.amp.parallelForEach(new Extent(-1), idx -> { }));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldWaitInTheWaitingVariant() {
        IntArrayView out = fx.ints(1000);
        fx.amp.parallelForEachAndWait(new Extent(1000), idx -> out.set(idx.get(0), idx.get(0) + 1));
        assertEquals(1000, out.get(999));
    }

    @Test
    void shouldRethrowAKernelFailureFromTheWaitingVariant() {
        HsaException e = assertThrows(HsaException.class, () -> fx.amp.parallelForEachAndWait(new Extent(10), idx -> {
            throw new IllegalStateException("bad point");
        }));
        assertEquals(HsaStatus.EXCEPTION, e.status());
    }

    @Test
    void shouldRunOnAChosenView() {
        AcceleratorView v = fx.accelerator.createView();
        try {
            IntArrayView out = fx.ints(64);
            v.parallelForEach(new Extent(64), idx -> out.set(idx.get(0), 7)).get();
            assertEquals(7, out.get(63));
        } finally {
            v.close();
        }
    }

    @Test
    void shouldGiveEachKernelClassItsOwnLoopCopy() {
        IndexKernel k1 = idx -> { };
        IndexKernel k2 = idx -> { };
        assertSame(IndexLoops.forKernelClass(k1.getClass()), IndexLoops.forKernelClass(k1.getClass()));
        assertNotSame(IndexLoops.forKernelClass(k1.getClass()), IndexLoops.forKernelClass(k2.getClass()));
        assertNotSame(IndexLoops.forKernelClass(k1.getClass()).getClass(),
                IndexLoops.forKernelClass(k2.getClass()).getClass());
    }

    @Test
    void shouldReleaseTheClosureWhenTheDispatchCompletes() {
        AcceleratorView v = fx.accelerator.createView();
        try {
            int[] captured = new int[1];
            CompletionFuture last = null;
            for (int i = 0; i < 50; i++) {
                last = v.parallelForEach(new Extent(10), idx -> captured.clone());
            }
            last.get();
            v.wait(org.hsa4j.signal.WaitState.BLOCKED);
            assertEquals(0, v.launchesInFlight());
        } finally {
            v.close();
        }
    }

    @Test
    void shouldPassIndicesOfTheExtentsRank() {
        IntArrayView ranks = fx.ints(1);
        fx.amp.parallelForEach(new Extent(2, 2, 2), idx -> ranks.atomicFetchMax(0, idx.rank())).get();
        assertEquals(3, ranks.get(0));
    }
}
