package org.hsa4j.amp;

/**
 * A kernel that cannot finish before the host opens it: work-items spin (bounded, 30 s) on an SVM
 * flag. Lets tests hold work in flight without sleeping.
 */
final class Gate {
    private final IntArrayView flag;

    Gate(AmpFixture fx) {
        flag = fx.ints(1);
    }

    /** A kernel that waits for {@link #open()}. */
    IndexKernel kernel() {
        IntArrayView f = flag;
        return idx -> {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (f.atomicLoad(0, CppMemoryOrder.ACQUIRE) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the gate was never opened");
                }
                Thread.onSpinWait();
            }
        };
    }

    /** Lets waiting kernels finish. */
    void open() {
        flag.atomicStore(0, 1, CppMemoryOrder.RELEASE);
    }
}
