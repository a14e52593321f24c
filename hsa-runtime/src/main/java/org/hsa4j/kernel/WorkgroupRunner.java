package org.hsa4j.kernel;

/** How a kernel's workgroup runs on a compute unit: a loop over its work-items, or one call for the whole group. */
interface WorkgroupRunner {
    /** Runs the workgroup bound to {@code w}, of {@code cx * cy * cz} work-items. */
    void run(WorkItem w, int cx, int cy, int cz);
}
