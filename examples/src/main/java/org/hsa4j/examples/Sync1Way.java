package org.hsa4j.examples;

import java.io.PrintStream;

import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CompletionFuture;
import org.hsa4j.amp.CppMemoryOrder;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.IndexKernel;
import org.hsa4j.amp.IntArrayView;
import org.hsa4j.runtime.HsaRuntime;

/**
 * The CPU waits for the GPU: every work-item atomically increments one counter in SVM until it
 * reaches 1,048,576, while a host thread polls the counter with acquire loads and reports
 * progress. The host never sees the counter go backwards, and sees the final count before the
 * kernel's completion is even looked at.
 */
public final class Sync1Way implements Example {
    @Override
    public String name() {
        return "sync_1way";
    }

    @Override
    public String description() {
        return "the CPU waits for the GPU: work-items increment an SVM counter, the host polls it with acquire loads";
    }

    @Override
    public void run(PrintStream out, boolean small) {
        int target = small ? 1 << 16 : 1 << 20;
        int workItems = 1024;
        int perItem = target / workItems;
        try (HsaRuntime rt = HsaRuntime.init(); Amp amp = Amp.on(rt)) {
            IntArrayView counter = amp.defaultAccelerator().newInts(1);

            IndexKernel count = idx -> {
                for (int i = 0; i < perItem; i++) {
                    counter.atomicFetchAdd(0, 1, CppMemoryOrder.RELAXED);
                }
            };
            // warm-up runs (the first is the cold figure), then the watched run
            Timing.Figure warm = Timing.rounds(4, 1, k -> {
                counter.set(0, 0);
                Bounded.await(amp.parallelForEach(new Extent(workItems), count), "a warm-up count");
                if (counter.get(0) != target) {
                    throw new AssertionError("warm-up counter is " + counter.get(0) + ", expected " + target);
                }
            });
            // baseline: one host thread making the same relaxed increments on the same counter
            Timing.Figure host = Timing.rounds(4, 1, k -> {
                counter.set(0, 0);
                for (int i = 0; i < target; i++) {
                    counter.atomicFetchAdd(0, 1, CppMemoryOrder.RELAXED);
                }
            });
            counter.set(0, 0);
            long start = System.nanoTime();
            CompletionFuture kernel = amp.parallelForEach(new Extent(workItems), count);

            long deadline = Bounded.deadline();
            int seen = 0;
            int polls = 0;
            int quarter = target / 4;
            int nextReport = quarter;
            while (seen < target) {
                int now = counter.atomicLoad(0, CppMemoryOrder.ACQUIRE);
                polls++;
                if (now < seen) {
                    throw new AssertionError("counter went backwards: " + seen + " then " + now);
                }
                seen = now;
                if (seen >= nextReport) {
                    out.printf("sync_1way: host sees %,d of %,d (%d%%) after %,d polls%n", seen, target,
                            100L * seen / target, polls);
                    nextReport = (seen / quarter + 1) * quarter;
                }
                if (kernel.isFailed()) {
                    kernel.get();
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("counter stuck at " + seen + " of " + target);
                }
                Thread.onSpinWait();
            }
            long elapsed = System.nanoTime() - start;
            Bounded.await(kernel, "the counting kernel");
            if (counter.get(0) != target) {
                throw new AssertionError("counter is " + counter.get(0) + ", expected " + target);
            }
            out.printf("sync_1way: %d work-items counted to %,d with system-scope atomics; the host watched it rise "
                    + "monotonically over %,d acquire polls%n", workItems, target, polls);
            out.printf("sync_1way: watched run after warm-up %.1f ms, %.1f M increments/s (unwatched steady state %.1f ms,"
                    + " first run %.1f ms); baseline: one host thread's increments %.1f ms%n", elapsed / 1e6,
                    target / (elapsed / 1e3), warm.steadyMillis(), warm.firstMillis(), host.steadyMillis());
        }
    }
}
