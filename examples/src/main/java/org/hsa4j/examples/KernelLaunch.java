package org.hsa4j.examples;

import java.lang.foreign.ValueLayout;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.Kernel;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.queue.Queue;
import org.hsa4j.runtime.HsaRuntime;

/**
 * Launches a one-dimensional raw kernel (one that gets its {@link WorkItem}, as the GPU services
 * need) with the queue's launch call ({@link Queue#dispatch}), passing 64-bit kernel arguments that
 * {@link #arg} reads back, and waits for it with a bounded wait.
 */
final class KernelLaunch {
    private KernelLaunch() {
    }

    /** Kernel argument {@code i} of the running dispatch. */
    static long arg(WorkItem wi, int i) {
        return wi.kernarg().get(ValueLayout.JAVA_LONG, 8L * i);
    }

    /** Runs {@code kernel} over {@code grid} work-items in workgroups of {@code workgroup} and waits for it. */
    static void run(HsaRuntime rt, Queue queue, Kernel kernel, int grid, int workgroup, long... args) {
        Executable exe = rt.createExecutable()
                .define("kernel", KernelDescriptor.withKernarg(8 * Math.max(1, args.length)), kernel)
                .freeze();
        Bounded.await(queue.dispatch(exe.symbol("kernel").kernelObject(), grid, workgroup, args),
                "a kernel of " + grid + " work-items");
    }
}
