package org.hsa4j.kernel;

/**
 * A per-work-item kernel prepared once per workgroup: {@link #prepare} runs at the start of each
 * workgroup (take checked views of the kernel's arguments there: {@code group.svm().floats(...)})
 * and returns the kernel its work-items run, which captures what it prepared. So range checks
 * happen once per group and each work-item costs what a plain loop iteration costs. Defined with
 * {@link Executable#definePrepared}; it cannot use workgroup barriers.
 */
@FunctionalInterface
public interface WorkgroupSetup {
    /** Prepares workgroup {@code group}; returns the kernel each of its work-items runs. */
    Kernel prepare(Workgroup group);
}
