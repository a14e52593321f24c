package org.hsa4j.stress.mutant;

import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * Puts the parties of a twin run (host thread, kernels) in a fixed order. The step counter is a
 * signal used only with RELAXED operations: signal memory is runtime-internal and coherent, and a
 * relaxed operation neither releases nor acquires, so the ordering the steps give costs the cache
 * model nothing: whatever a party sees of the data comes only from the operations under test.
 * That is what makes a weakened twin fail every time instead of now and then.
 */
final class Steps {
    /** How long one step may take before the run is declared broken. */
    static final long PATIENCE_NANOS = 5_000_000_000L;
    private static final long SLICE_NANOS = 1_000_000L;

    private final Signal counter;

    Steps(Signal counter) {
        this.counter = counter;
        counter.storeRelaxed(0);
    }

    /** Announces that step {@code n} is done (relaxed store: no release). */
    void reach(long n) {
        counter.storeRelaxed(n);
    }

    /** Waits (bounded, relaxed: no acquire) until step {@code n} is done. */
    void await(long n) {
        long deadline = System.nanoTime() + PATIENCE_NANOS;
        while (counter.waitRelaxed(SignalCondition.GTE, n, SLICE_NANOS, WaitState.BLOCKED) < n) {
            if (System.nanoTime() - deadline > 0) {
                throw new TwinTimeoutException("step " + n + " did not come within "
                        + PATIENCE_NANOS / 1_000_000 + " ms (at step " + counter.loadRelaxed() + ")");
            }
        }
    }
}
