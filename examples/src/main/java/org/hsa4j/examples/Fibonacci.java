package org.hsa4j.examples;

import java.io.PrintStream;
import java.lang.foreign.ValueLayout;

import org.hsa4j.memory.Svm;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
import org.hsa4j.services.memory.DeviceHeap;

/**
 * Device-side new and delete: each work-item allocates a {@code long[k]} on the device heap
 * ({@code new long[k]}), fills it with the first {@code k} Fibonacci numbers, keeps the last one
 * and deletes the array; the kernel runs twice, the second time on the blocks the first freed.
 * The host checks every number.
 */
public final class Fibonacci implements Example {
    private static final int MAX_TERMS = 92;

    @Override
    public String name() {
        return "fibonacci";
    }

    @Override
    public String description() {
        return "each work-item allocates an array with device-side new, computes Fibonacci numbers in it, and deletes it";
    }

    @Override
    public void run(PrintStream out, boolean small) {
        int n = small ? 1024 : 16384;
        try (HsaRuntime rt = HsaRuntime.init(); Services services = Services.start(rt)) {
            DeviceHeap heap = services.deviceHeap();
            Queue queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
            long results = rt.hostMalloc(8L * n);

            long start = System.nanoTime();
            for (int round = 0; round < 2; round++) {
                KernelLaunch.run(rt, queue, wi -> {
                    int i = (int) wi.flatGlobalId();
                    int k = 2 + i % (MAX_TERMS - 1);
                    Svm svm = wi.svm();
                    long fib = heap.newArray(wi, ValueLayout.JAVA_LONG, k);
                    svm.setLong(fib, 0);
                    svm.setLong(fib + 8, 1);
                    for (int j = 2; j < k; j++) {
                        svm.setLong(fib + 8L * j, svm.getLong(fib + 8L * (j - 1)) + svm.getLong(fib + 8L * (j - 2)));
                    }
                    svm.setLong(KernelLaunch.arg(wi, 0) + 8L * i, svm.getLong(fib + 8L * (k - 1)));
                    heap.delete(wi, fib);
                }, n, 64, results);
            }
            long elapsed = System.nanoTime() - start;
            queue.destroy();

            long[] expected = new long[MAX_TERMS + 1];
            expected[1] = 1;
            for (int j = 2; j <= MAX_TERMS; j++) {
                expected[j] = expected[j - 1] + expected[j - 2];
            }
            Svm host = rt.svm();
            for (int i = 0; i < n; i++) {
                int k = 2 + i % (MAX_TERMS - 1);
                if (host.getLong(results + 8L * i) != expected[k - 1]) {
                    throw new AssertionError("work-item " + i + ": fib(" + (k - 1) + ") = "
                            + host.getLong(results + 8L * i) + ", expected " + expected[k - 1]);
                }
            }
            out.printf("fibonacci: %,d work-items, twice, each new'd a long[2..%d] on the device heap, filled it with "
                    + "Fibonacci numbers up to fib(%d) = %,d and deleted it; all %,d results correct%n", n,
                    MAX_TERMS, MAX_TERMS - 1, expected[MAX_TERMS - 1], n);
            out.printf("fibonacci: %.2f ms for %,d new/delete pairs, %.2f us per work-item%n", elapsed / 1e6, 2 * n,
                    elapsed / 1e3 / (2 * n));
        }
    }
}
