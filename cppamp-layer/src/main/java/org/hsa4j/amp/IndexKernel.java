package org.hsa4j.amp;

/** The body of a {@code parallelForEach} over an {@link Extent}: runs once per point of the domain. */
@FunctionalInterface
public interface IndexKernel {
    /** Runs the work-item at {@code idx}. */
    void run(Index idx);
}
