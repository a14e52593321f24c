package org.hsa4j.kernel;

import org.hsa4j.memory.ComputeUnitThread;

/**
 * The work-item loop every kernel class gets a private copy of. Never used as such:
 * {@link KernelLoops} defines its class file again as a hidden class per kernel class, so the
 * {@code kernel.execute} call below is seen by exactly one kernel class and the JIT inlines the
 * kernel into the loop.
 */
final class WorkItemLoopTemplate implements WorkgroupRunner {
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
            for (int x = 0; x < cx; x++) {
                w.localX = x;
                ComputeUnitThread.checkAbort();
                k.execute(w);
            }
            return;
        }
        for (int z = 0; z < cz; z++) {
            w.localZ = z;
            for (int y = 0; y < cy; y++) {
                w.localY = y;
                for (int x = 0; x < cx; x++) {
                    w.localX = x;
                    ComputeUnitThread.checkAbort();
                    k.execute(w);
                }
            }
        }
    }
}
