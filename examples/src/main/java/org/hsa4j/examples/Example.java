package org.hsa4j.examples;

import java.io.PrintStream;

/** A self-checking example program: runs, checks its own result, prints what it proved and a timing line. */
public interface Example {
    /** The name {@code ./hsa4j run NAME} knows it by. */
    String name();

    /** One line: what the example demonstrates. */
    String description();

    /**
     * Runs the example at full size, or at a small size for CI when {@code small}.
     *
     * @throws AssertionError when the result is wrong
     */
    void run(PrintStream out, boolean small) throws Exception;
}
