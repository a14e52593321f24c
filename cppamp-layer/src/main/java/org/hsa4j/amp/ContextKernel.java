package org.hsa4j.amp;

/**
 * The body of a {@code parallelForEach} over an {@link Extent} that needs more than its index: it
 * also gets the {@link KernelContext}, through which it calls the host services. Runs once per
 * point of the domain, compiled into its own loop copy as an {@link IndexKernel} is.
 */
@FunctionalInterface
public interface ContextKernel {
    /** Runs the work-item at {@code idx}; {@code ctx} is valid only during this call. */
    void run(Index idx, KernelContext ctx);
}
