package org.hsa4j.kernel;

import org.hsa4j.memory.ComputeUnitThread;

/**
 * The work-item loop every kernel class gets a private copy of. Never used as such:
 * {@link KernelLoops} defines its class file again as a hidden class per kernel class, so the
 * {@code kernel.execute} call below is seen by exactly one kernel class and the JIT inlines the
 * kernel into the loop.
 */
final class WorkItemLoopTemplate implements WorkgroupRunner {
    /**
     * Work-items between two abort checks: a whole row of the default maximum workgroup. The check
     * is an opaque load, which the JIT treats as a compiler barrier: inside the inner loop it would
     * force the kernel's loop-invariant loads (its views, their segments) to be redone for every
     * work-item. The chunk must also be long: the JIT splits a counted loop into pre, main and post
     * loops and unrolls and vectorises only the main one, so a loop of 64 work-items spent most of
     * its time outside it (a 16M-element vector add ran 1.6x a plain loop with chunks of 64, 1.1x
     * with chunks of 1,024). An abort therefore waits for at most 1,024 work-items of this unit.
     */
    static final int CHUNK = 1024;

    private final Kernel kernel;

    WorkItemLoopTemplate(Kernel kernel) {
        this.kernel = kernel;
    }

    @Override
    public void run(WorkItem w, int cx, int cy, int cz) {
        Kernel k = kernel;
        if (cy == 1 && cz == 1) {
            w.localY = 0;
            w.localZ = 0;
            for (int from = 0; from < cx; from += CHUNK) {
                ComputeUnitThread.checkAbort();
                int to = Math.min(cx, from + CHUNK);
                for (int x = from; x < to; x++) {
                    w.localX = x;
                    k.execute(w);
                }
            }
            return;
        }
        for (int z = 0; z < cz; z++) {
            w.localZ = z;
            for (int y = 0; y < cy; y++) {
                w.localY = y;
                for (int from = 0; from < cx; from += CHUNK) {
                    ComputeUnitThread.checkAbort();
                    int to = Math.min(cx, from + CHUNK);
                    for (int x = from; x < to; x++) {
                        w.localX = x;
                        k.execute(w);
                    }
                }
            }
        }
    }
}
