package org.hsa4j.services;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.Kernel;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.runtime.HsaRuntime;

/**
 * Dispatches one-dimensional kernels for the services tests with the queue's launch call
 * ({@link Queue#launch}), passing 64-bit kernel arguments read back with {@link #arg}.
 */
public final class Kernels {
    private Kernels() {
    }

    /** A kernel body that gets its work-item and the SVM address of its results (kernel argument 0). */
    @FunctionalInterface
    public interface Body {
        /** Runs the body. */
        void run(WorkItem wi, long out);
    }

    /** Kernel argument {@code i}. */
    public static long arg(WorkItem wi, int i) {
        return wi.kernarg().get(ValueLayout.JAVA_LONG, 8L * i);
    }

    /** Launches {@code kernel} over {@code grid} work-items in workgroups of {@code workgroup}; returns its completion. */
    public static DispatchCompletion launch(HsaRuntime rt, Queue queue, Kernel kernel, int grid, int workgroup, long... args) {
        return launch(rt, queue, KernelDescriptor.EMPTY, 0, kernel, grid, workgroup, args);
    }

    /**
     * Launches with a descriptor (barriers, group segment): {@code groupBytes} of group segment per
     * workgroup.
     */
    public static DispatchCompletion launch(HsaRuntime rt, Queue queue, KernelDescriptor descriptor, int groupBytes,
                                            Kernel kernel, int grid, int workgroup, long... args) {
        Executable exe = rt.createExecutable()
                .define("k", descriptor.kernarg(8 * Math.max(1, args.length)).group(groupBytes), kernel).freeze();
        return queue.launch(exe.symbol("k").kernelObject()).grid(grid).workgroup(workgroup).groupSegment(groupBytes)
                .args(args).dispatch();
    }

    /** Waits until the dispatch ended; its failure throws; an interrupt (test timeout) fails the test. */
    public static void await(DispatchCompletion done) {
        while (!done.join(100, TimeUnit.MILLISECONDS)) {
            if (Thread.currentThread().isInterrupted()) {
                fail("interrupted while waiting for a kernel");
            }
        }
    }

    /** Runs {@code body} in one work-item, passing it {@code out} (an SVM address for its results). */
    public static void run(HsaRuntime rt, Queue queue, Body body, long out) {
        await(launch(rt, queue, wi -> body.run(wi, arg(wi, 0)), 1, 1, out));
    }

    /** Launches and waits. */
    public static void run(HsaRuntime rt, Queue queue, Kernel kernel, int grid, int workgroup, long... args) {
        await(launch(rt, queue, kernel, grid, workgroup, args));
    }
}
