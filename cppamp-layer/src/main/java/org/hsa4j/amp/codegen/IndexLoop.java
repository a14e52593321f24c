package org.hsa4j.amp.codegen;

import org.hsa4j.amp.IndexKernel;

/**
 * Runs an {@link IndexKernel} over a contiguous row-major range of an extent. Every kernel class
 * gets its own copy of the loop ({@link IndexLoops}), so the kernel call inside is monomorphic.
 */
public interface IndexLoop {
    /**
     * Runs {@code kernel} at the row-major positions {@code from} (inclusive) to {@code to}
     * (exclusive) of an extent of rank {@code rank} whose sizes along dimensions 1 and 2 are
     * {@code d1} and {@code d2} (1 when absent).
     */
    void run(IndexKernel kernel, int rank, int d1, int d2, long from, long to);
}
