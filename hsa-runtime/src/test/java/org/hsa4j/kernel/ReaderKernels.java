package org.hsa4j.kernel;

import java.lang.foreign.ValueLayout;

/** A code object for {@link CodeObjectReaderTest}: loaded from its class file's bytes, never by name. */
public final class ReaderKernels {
    /** Set at load to the address of the program variable "counter". */
    @ExternalVariable("counter")
    static long counter;

    private ReaderKernels() {
    }

    /** Adds kernarg 0 to the counter variable, through a helper class of the same code object. */
    @KernelSymbol(kernargSize = 8)
    static void addToCounter(WorkItem wi) {
        ReaderHelper.add(wi, counter, wi.kernarg().get(ValueLayout.JAVA_LONG, 0));
    }

    /** The counter's address as this copy of the class sees it. */
    public static long counterAddress() {
        return counter;
    }
}
