package org.hsa4j.examples;

import java.io.PrintStream;

import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CppMemoryOrder;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.Index;
import org.hsa4j.amp.IndexKernel;
import org.hsa4j.amp.IntArrayView;
import org.hsa4j.runtime.HsaRuntime;

/**
 * Vector add on atomic ints in SVM: each work-item increments {@code a[i]} and decrements
 * {@code b[i]} with atomic read-modify-writes, then stores {@code c[i] = a[i] + b[i]} with a
 * release store, so {@code c = (a + 1) + (b - 1)}.
 */
public final class AtomicInt implements Example {
    @Override
    public String name() {
        return "atomic_int";
    }

    @Override
    public String description() {
        return "vector add on atomic ints in SVM: c = (a + 1) + (b - 1) with fetch-add, fetch-sub and release stores";
    }

    @Override
    public void run(PrintStream out, boolean small) {
        int n = small ? 1 << 12 : 1 << 20;
        try (HsaRuntime rt = HsaRuntime.init(); Amp amp = Amp.on(rt)) {
            IntArrayView a = amp.defaultAccelerator().newInts(n);
            IntArrayView b = amp.defaultAccelerator().newInts(n);
            IntArrayView c = amp.defaultAccelerator().newInts(n);
            for (int i = 0; i < n; i++) {
                a.set(i, i);
                b.set(i, 3 * i);
            }

            IndexKernel kernel = idx -> {
                int i = idx.get(0);
                int aPlusOne = a.atomicFetchAdd(i, 1, CppMemoryOrder.ACQ_REL) + 1;
                int bMinusOne = b.atomicFetchSub(i, 1, CppMemoryOrder.ACQ_REL) - 1;
                c.atomicStore(i, aPlusOne + bMinusOne, CppMemoryOrder.RELEASE);
            };
            int rounds = small ? 5 : 10;
            int warmups = 2;
            Timing.Figure gpu = Timing.rounds(rounds, warmups, k -> {
                Bounded.await(amp.parallelForEach(new Extent(n), kernel), "the atomic add kernel");
                check(a, b, c, n, k + 1);
            });
            // baseline: the same atomics from one host thread in a plain loop over the same views
            Timing.Figure host = Timing.rounds(rounds, warmups, k -> {
                for (int i = 0; i < n; i++) {
                    kernel.run(new Index(i));
                }
                check(a, b, c, n, rounds + k + 1);
            });
            out.printf("atomic_int: c = (a + 1) + (b - 1) over %,d atomic ints in SVM, %d times; a, b and c all as expected%n",
                    n, rounds);
            out.printf("atomic_int: steady state (median after %d warm-ups) %.2f ms, %.1f M elements/s (3 atomics each); "
                    + "baseline: one host thread's loop of the same atomics %.2f ms; first run %.2f ms%n", warmups,
                    gpu.steadyMillis(), n / (gpu.steadyNanos() / 1e3), host.steadyMillis(), gpu.firstMillis());
        }
    }

    /** After {@code adds} rounds: a = i + adds, b = 3i - adds, c = 4i. */
    private static void check(IntArrayView a, IntArrayView b, IntArrayView c, int n, int adds) {
        for (int i = 0; i < n; i++) {
            if (a.atomicLoad(i, CppMemoryOrder.ACQUIRE) != i + adds || b.atomicLoad(i, CppMemoryOrder.ACQUIRE) != 3 * i - adds
                    || c.atomicLoad(i, CppMemoryOrder.ACQUIRE) != 4 * i) {
                throw new AssertionError("element " + i + " after " + adds + " rounds: a=" + a.get(i) + " b=" + b.get(i)
                        + " c=" + c.get(i));
            }
        }
    }
}
