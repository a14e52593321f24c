package org.hsa4j.examples;

import java.io.PrintStream;

import org.hsa4j.amp.AcceleratorView;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CompletionFuture;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.IntArrayView;
import org.hsa4j.runtime.HsaRuntime;

/**
 * Three kernels in a chain (k1 writes a, k2 doubles it into b, k3 adds one into c), run two ways:
 * with {@code thenCompose}, where the host's continuation thread launches each kernel when the one
 * before completes; and with dependencies, where each kernel goes on its own view behind a
 * barrier-AND packet on the one before, so the whole chain is queued at once and the agents
 * resolve it with no host round trip. Prints the cost per kernel of each.
 */
public final class AsyncChain implements Example {
    @Override
    public String name() {
        return "async_chain";
    }

    @Override
    public String description() {
        return "kernels k1 -> k2 -> k3 chained with then() and with dependency (barrier-AND) packets; cost per kernel";
    }

    @Override
    public void run(PrintStream out, boolean small) {
        int n = 1024;
        int chains = small ? 20 : 300;
        try (HsaRuntime rt = HsaRuntime.init(); Amp amp = Amp.on(rt)) {
            IntArrayView a = amp.defaultAccelerator().newInts(n);
            IntArrayView b = amp.defaultAccelerator().newInts(n);
            IntArrayView c = amp.defaultAccelerator().newInts(n);
            Extent e = new Extent(n);

            AcceleratorView view = amp.defaultView();
            int warmups = chains / 3;
            Timing.Figure then = Timing.rounds(chains, warmups, k -> {
                int seed = k;
                CompletionFuture chain = view.parallelForEach(e, idx -> a.set(idx.get(0), idx.get(0) + seed))
                        .thenCompose(() -> view.parallelForEach(e, idx -> b.set(idx.get(0), 2 * a.get(idx.get(0)))))
                        .thenCompose(() -> view.parallelForEach(e, idx -> c.set(idx.get(0), b.get(idx.get(0)) + 1)));
                Bounded.await(chain, "then() chain " + k);
                check(c, n, seed);
            });

            Timing.Figure dep;
            AcceleratorView v1 = amp.defaultAccelerator().createView();
            AcceleratorView v2 = amp.defaultAccelerator().createView();
            AcceleratorView v3 = amp.defaultAccelerator().createView();
            try {
                dep = Timing.rounds(chains, warmups, k -> {
                    int seed = -k;
                    CompletionFuture k1 = v1.parallelForEach(e, idx -> a.set(idx.get(0), idx.get(0) + seed));
                    CompletionFuture k2 = v2.parallelForEachAfter(k1, e, idx -> b.set(idx.get(0), 2 * a.get(idx.get(0))));
                    CompletionFuture k3 = v3.parallelForEachAfter(k2, e, idx -> c.set(idx.get(0), b.get(idx.get(0)) + 1));
                    Bounded.await(k3, "dependency chain " + k);
                    check(c, n, seed);
                });
            } finally {
                v1.close();
                v2.close();
                v3.close();
            }
            // baseline: one kernel of the same size on its own, dispatched and waited for
            Timing.Figure single = Timing.rounds(chains, warmups, k ->
                    Bounded.await(view.parallelForEach(e, idx -> c.set(idx.get(0), idx.get(0))), "single kernel " + k));

            out.printf("async_chain: %d chains of k1 -> k2 -> k3 over %d elements in each form; every c[i] = 2 (i + seed) + 1%n",
                    chains, n);
            out.printf("async_chain: steady state (median after %d warm-up chains), per kernel: then() %.1f us, "
                    + "dependency packets %.1f us; baseline: one kernel dispatched and waited for alone %.1f us%n",
                    warmups, then.steadyMicros() / 3, dep.steadyMicros() / 3, single.steadyMicros());
            out.printf("async_chain: first chain (cold JIT), per kernel: then() %.1f us, dependency packets %.1f us%n",
                    then.firstMicros() / 3, dep.firstMicros() / 3);
        }
    }

    private static void check(IntArrayView c, int n, int seed) {
        for (int i = 0; i < n; i++) {
            if (c.get(i) != 2 * (i + seed) + 1) {
                throw new AssertionError("c[" + i + "] = " + c.get(i) + " for seed " + seed);
            }
        }
    }
}
