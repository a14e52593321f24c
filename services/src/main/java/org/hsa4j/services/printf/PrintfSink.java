package org.hsa4j.services.printf;

/**
 * Where printf output goes. Each call of {@link #write} carries the whole output of one printf
 * call (of one lane), and the printf service never calls it from two threads at once, so outputs
 * never interleave.
 */
@FunctionalInterface
public interface PrintfSink {
    /** Writes the output of one printf call. */
    void write(String text);

    /** The host's standard output (one {@code print} per call). */
    PrintfSink STDOUT = text -> {
        System.out.print(text);
        System.out.flush();
    };
}
