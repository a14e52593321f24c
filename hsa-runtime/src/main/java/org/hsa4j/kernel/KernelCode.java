package org.hsa4j.kernel;

import org.hsa4j.memory.Allocation;

/** A loaded kernel: symbol, descriptor, code, and the SVM kernel object its handle points to. */
public final class KernelCode {
    private final String name;
    private final KernelDescriptor descriptor;
    private final Kernel kernel;
    Allocation object;
    volatile boolean released;

    KernelCode(String name, KernelDescriptor descriptor, Kernel kernel) {
        this.name = name;
        this.descriptor = descriptor;
        this.kernel = kernel;
    }

    /** The symbol name. */
    public String name() {
        return name;
    }

    /** The kernel descriptor. */
    public KernelDescriptor descriptor() {
        return descriptor;
    }

    /** The code. */
    public Kernel kernel() {
        return kernel;
    }

    /** The kernel object handle that goes into a dispatch packet. */
    public long handle() {
        return object.base();
    }

    /** True once its executable was destroyed: dispatches of it are refused. */
    public boolean isReleased() {
        return released;
    }

    @Override
    public String toString() {
        return "kernel " + name;
    }
}
