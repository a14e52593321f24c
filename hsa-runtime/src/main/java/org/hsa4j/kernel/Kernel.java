package org.hsa4j.kernel;

/**
 * Kernel code: called once per work-item of a dispatch with that work-item's ids, segments and
 * memory view. Kernels without barriers run their work-items as a plain loop on a compute unit;
 * kernels whose descriptor declares barriers run each work-item as a continuation that yields at
 * {@link WorkgroupBarrier#await()}.
 */
@FunctionalInterface
public interface Kernel {
    /** Runs one work-item. */
    void execute(WorkItem workItem);
}
