package org.hsa4j.examples;

import java.io.PrintStream;

import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CppMemoryOrder;
import org.hsa4j.amp.Extent;
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
            IntArrayView a = HostArrays.ints(amp, n);
            IntArrayView b = HostArrays.ints(amp, n);
            IntArrayView c = HostArrays.ints(amp, n);
            for (int i = 0; i < n; i++) {
                a.set(i, i);
                b.set(i, 3 * i);
            }

            long start = System.nanoTime();
            Bounded.await(amp.parallelForEach(new Extent(n), idx -> {
                int i = idx.get(0);
                int aPlusOne = a.atomicFetchAdd(i, 1, CppMemoryOrder.ACQ_REL) + 1;
                int bMinusOne = b.atomicFetchSub(i, 1, CppMemoryOrder.ACQ_REL) - 1;
                c.atomicStore(i, aPlusOne + bMinusOne, CppMemoryOrder.RELEASE);
            }), "the atomic add kernel");
            long elapsed = System.nanoTime() - start;

            for (int i = 0; i < n; i++) {
                if (a.atomicLoad(i, CppMemoryOrder.ACQUIRE) != i + 1 || b.atomicLoad(i, CppMemoryOrder.ACQUIRE) != 3 * i - 1
                        || c.atomicLoad(i, CppMemoryOrder.ACQUIRE) != 4 * i) {
                    throw new AssertionError("element " + i + ": a=" + a.get(i) + " b=" + b.get(i) + " c=" + c.get(i));
                }
            }
            out.printf("atomic_int: c = (a + 1) + (b - 1) over %,d atomic ints in SVM; a, b and c all as expected%n", n);
            out.printf("atomic_int: %.2f ms, %.1f M elements/s (3 atomics each)%n", elapsed / 1e6,
                    n / (elapsed / 1e3));
        }
    }
}
