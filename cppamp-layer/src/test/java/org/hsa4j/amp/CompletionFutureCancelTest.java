package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;

import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 23 part 5: cancelling a kernel that is already running. One compute unit, so the ranges of a
 * dispatch run one after another and which of them had started at the cancel is known.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CompletionFutureCancelTest {
    private static AmpFixture fx;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start(RuntimeConfig.builder().gpuAgents(1).computeUnits(1).build());
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void shouldFinishTheStartedRangeAndSkipTheRestWhenARunningKernelIsCancelled() {
        int total = 64 * 1024;
        long chunk = AcceleratorView.rangeSize(total, 1);
        assertTrue(chunk < total, "the dispatch has more than one range");
        IntArrayView counts = fx.ints(2);
        Gate gate = new Gate(fx);
        IndexKernel wait = gate.kernel();
        AcceleratorView v = fx.accelerator.createView();
        try {
            CompletionFuture k = v.parallelForEach(new Extent(total), idx -> {
                if (idx.get(0) == 0) {
                    counts.atomicStore(1, 1, CppMemoryOrder.RELEASE);
                    wait.run(idx);
                }
                counts.atomicFetchAdd(0, 1);
            });
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (counts.atomicLoad(1, CppMemoryOrder.ACQUIRE) == 0) {
                assertTrue(System.nanoTime() - deadline < 0, "the kernel never started");
                Thread.onSpinWait();
            }
            assertTrue(k.cancel(true));
            assertThrows(CancellationException.class, k::get);
            gate.open();
            v.parallelForEach(new Extent(1), idx -> { }).get();
            assertEquals(chunk, counts.get(0), "the started range runs to its end and no other range starts");
        } finally {
            gate.open();
            v.close();
        }
        assertEquals(0, v.launchesInFlight());
    }
}
