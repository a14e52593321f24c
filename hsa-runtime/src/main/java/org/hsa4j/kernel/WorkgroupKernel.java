package org.hsa4j.kernel;

/**
 * Kernel code with a per-workgroup entry point: called once per workgroup with the whole group's
 * range ({@link Workgroup#from}, {@link Workgroup#to}), for kernels that loop over their
 * work-items themselves (a tile of a matrix multiply, say) and take their checked views once per
 * group. Defined with {@link Executable#defineWorkgroup}; it cannot use workgroup barriers.
 */
@FunctionalInterface
public interface WorkgroupKernel {
    /** Runs one workgroup. */
    void execute(Workgroup group);
}
