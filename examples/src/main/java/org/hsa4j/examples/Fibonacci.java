package org.hsa4j.examples;

import java.io.PrintStream;
import java.lang.foreign.ValueLayout;

import org.hsa4j.amp.Accelerator;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.ContextKernel;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.LongArrayView;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
import org.hsa4j.services.memory.DeviceHeap;

/**
 * Device-side new and delete from a C++AMP kernel (HCC's fibonacci sample): each index of a
 * parallelForEach allocates a {@code long[k]} on the device heap ({@code new long[k]}, zeroed)
 * through its kernel context, computes fib(k-1) by recursion memoised in that array, keeps the
 * result and deletes the array. The kernel runs a few times to warm up (every run after the first
 * reuses the blocks the one before freed), then is timed; the host checks every number. Baseline:
 * the same recursion with Java's {@code new long[k]} on one host thread.
 */
public final class Fibonacci implements Example {
    private static final int MAX_TERMS = 92;
    private static final int WARMUP_RUNS = 5;
    private static final int TIMED_RUNS = 10;

    @Override
    public String name() {
        return "fibonacci";
    }

    @Override
    public String description() {
        return "a C++AMP kernel whose indices new an array on the device heap, recurse on it for a Fibonacci number, "
                + "and delete it";
    }

    @Override
    public void run(PrintStream out, boolean small) {
        int n = small ? 1024 : 16384;
        try (HsaRuntime rt = HsaRuntime.init(); Services services = Services.start(rt); Amp amp = Amp.on(rt)) {
            DeviceHeap heap = services.deviceHeap();
            Accelerator acc = amp.defaultAccelerator();
            LongArrayView results = acc.newLongs(n);
            ContextKernel kernel = (idx, ctx) -> {
                int k = terms(idx.get(0));
                long memo = heap.newArray(ctx, ValueLayout.JAVA_LONG, k);
                results.set(idx, fib(ctx.svm(), memo, k - 1));
                heap.delete(ctx, memo);
            };

            long first = System.nanoTime();
            amp.parallelForEachAndWait(new Extent(n), kernel);
            long firstRun = System.nanoTime() - first;
            check(results, n);
            for (int r = 1; r < WARMUP_RUNS; r++) {
                amp.parallelForEachAndWait(new Extent(n), kernel);
            }
            results.zero();
            long start = System.nanoTime();
            for (int r = 0; r < TIMED_RUNS; r++) {
                amp.parallelForEachAndWait(new Extent(n), kernel);
            }
            long steady = (System.nanoTime() - start) / TIMED_RUNS;
            check(results, n);

            long hostSum = 0;
            for (int r = 0; r < WARMUP_RUNS; r++) {
                hostSum = onHost(n);
            }
            long hostStart = System.nanoTime();
            for (int r = 0; r < TIMED_RUNS; r++) {
                hostSum = onHost(n);
            }
            long host = (System.nanoTime() - hostStart) / TIMED_RUNS;
            long kernelSum = 0;
            for (int i = 0; i < n; i++) {
                kernelSum += results.get(i);
            }
            if (hostSum != kernelSum) {
                throw new AssertionError("the host baseline summed " + hostSum + ", the kernel " + kernelSum);
            }

            out.printf("fibonacci: %,d indices of a parallelForEach, %d runs, each new'd a long[2..%d] on the device "
                    + "heap through its kernel context, recursed on it up to fib(%d) = %,d and deleted it; all "
                    + "%,d results correct%n", n, WARMUP_RUNS + TIMED_RUNS, MAX_TERMS, MAX_TERMS - 1,
                    fib(new long[MAX_TERMS], MAX_TERMS - 1), n);
            out.printf("fibonacci: steady state %.2f us per index (new + recursion + delete, %d runs after %d warm-up "
                    + "runs; first run %.2f us) against %.2f us with Java's new on one host thread (baseline)%n",
                    steady / 1e3 / n, TIMED_RUNS, WARMUP_RUNS, firstRun / 1e3 / n, host / 1e3 / n);
        }
    }

    /** Terms index {@code i} computes: 2 to {@link #MAX_TERMS}. */
    private static int terms(int i) {
        return 2 + i % (MAX_TERMS - 1);
    }

    /** fib(m) by recursion memoised in the zeroed device array at {@code memo}. */
    private static long fib(Svm svm, long memo, int m) {
        if (m < 2) {
            return m;
        }
        long at = memo + 8L * m;
        long v = svm.getLong(at);
        if (v == 0) {
            v = fib(svm, memo, m - 1) + fib(svm, memo, m - 2);
            svm.setLong(at, v);
        }
        return v;
    }

    /** fib(m) by the same recursion memoised in a Java array. */
    private static long fib(long[] memo, int m) {
        if (m < 2) {
            return m;
        }
        long v = memo[m];
        if (v == 0) {
            v = fib(memo, m - 1) + fib(memo, m - 2);
            memo[m] = v;
        }
        return v;
    }

    /** The baseline: every index's work on the calling thread, with Java's new; returns a checksum. */
    private static long onHost(int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            int k = terms(i);
            sum += fib(new long[k], k - 1);
        }
        return sum;
    }

    private static void check(LongArrayView results, int n) {
        long[] expected = new long[MAX_TERMS + 1];
        expected[1] = 1;
        for (int j = 2; j <= MAX_TERMS; j++) {
            expected[j] = expected[j - 1] + expected[j - 2];
        }
        for (int i = 0; i < n; i++) {
            int k = terms(i);
            if (results.get(i) != expected[k - 1]) {
                throw new AssertionError("index " + i + ": fib(" + (k - 1) + ") = " + results.get(i) + ", expected "
                        + expected[k - 1]);
            }
        }
    }
}
