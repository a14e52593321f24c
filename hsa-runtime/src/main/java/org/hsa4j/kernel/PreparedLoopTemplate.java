package org.hsa4j.kernel;

import org.hsa4j.memory.ComputeUnitThread;

/**
 * The work-item loop of a {@link WorkgroupSetup}, copied per setup class as
 * {@link WorkItemLoopTemplate} is per kernel class: the kernel the setup returns is of one class
 * per setup, so the call below stays monomorphic and inlines, with the views it captured held in
 * registers across the group.
 */
final class PreparedLoopTemplate implements WorkgroupRunner {
    /** Work-items between two abort checks, as in {@link WorkItemLoopTemplate} (which says why so many). */
    private static final int CHUNK = WorkItemLoopTemplate.CHUNK;

    private final WorkgroupSetup setup;

    PreparedLoopTemplate(WorkgroupSetup setup) {
        this.setup = setup;
    }

    @Override
    public void run(WorkItem w, int cx, int cy, int cz) {
        w.localX = 0;
        w.localY = 0;
        w.localZ = 0;
        Kernel k = setup.prepare(w.group);
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
