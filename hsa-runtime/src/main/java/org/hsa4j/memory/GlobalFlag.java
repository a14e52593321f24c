package org.hsa4j.memory;

/** Flags of a global-segment memory pool ({@code hsa_region_global_flag_t}). */
public enum GlobalFlag {
    /** The pool can hold kernel arguments. */
    KERNARG,
    /** Coherent while kernels run: host and agents may synchronize mid-kernel with atomics. */
    FINE_GRAINED,
    /** Coherent only at synchronization points (kernel boundaries, system-scope packet fences). */
    COARSE_GRAINED
}
