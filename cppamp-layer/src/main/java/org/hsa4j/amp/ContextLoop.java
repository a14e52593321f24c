package org.hsa4j.amp;

/** Runs a {@link ContextKernel} over a contiguous row-major range of an extent ({@link ContextLoops}). */
interface ContextLoop {
    /**
     * Runs {@code kernel} at the row-major positions {@code from} (inclusive) to {@code to}
     * (exclusive) of an extent of rank {@code rank} whose sizes along dimensions 1 and 2 are
     * {@code d1} and {@code d2}, moving {@code ctx} to each position before the call.
     */
    void run(ContextKernel kernel, KernelContext ctx, int rank, int d1, int d2, long from, long to);
}
