package org.hsa4j.kernel;

import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.ComputeUnitThread;

/** A loaded kernel: symbol, descriptor, code, and the SVM kernel object its handle points to. */
public final class KernelCode {
    private final String name;
    private final KernelDescriptor descriptor;
    private final Kernel kernel;
    /** How a workgroup without barriers runs: the kernel class's own work-item loop, or one workgroup call. */
    final WorkgroupRunner runner;
    /** The same in fidelity mode's last-first order ({@link GroupModel}); a {@link WorkgroupKernel} keeps its one call. */
    final WorkgroupRunner lastFirst;
    Allocation object;
    volatile boolean released;

    KernelCode(String name, KernelDescriptor descriptor, Kernel kernel) {
        this.name = name;
        this.descriptor = descriptor;
        this.kernel = kernel;
        this.runner = KernelLoops.forKernel(kernel);
        this.lastFirst = (w, cx, cy, cz) -> GroupModel.runLastFirst(kernel, w, cx, cy, cz);
    }

    KernelCode(String name, KernelDescriptor descriptor, WorkgroupSetup setup) {
        this.name = name;
        this.descriptor = descriptor;
        this.kernel = wi -> setup.prepare(wi.group).execute(wi);
        this.runner = KernelLoops.forSetup(setup);
        this.lastFirst = (w, cx, cy, cz) -> {
            w.localX = 0;
            w.localY = 0;
            w.localZ = 0;
            GroupModel.runLastFirst(setup.prepare(w.group), w, cx, cy, cz);
        };
    }

    KernelCode(String name, KernelDescriptor descriptor, WorkgroupKernel kernel) {
        this.name = name;
        this.descriptor = descriptor;
        this.kernel = wi -> kernel.execute(wi.group);
        this.runner = (w, cx, cy, cz) -> {
            w.localX = 0;
            w.localY = 0;
            w.localZ = 0;
            ComputeUnitThread.checkAbort();
            kernel.execute(w.group);
        };
        this.lastFirst = runner;
    }

    /** The symbol name. */
    public String name() {
        return name;
    }

    /** The kernel descriptor. */
    public KernelDescriptor descriptor() {
        return descriptor;
    }

    /** The code: the per-work-item kernel (for a {@link WorkgroupKernel}, a call of it for the item's whole group). */
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
