package org.hsa4j.benchmarks.services;

import java.lang.foreign.ValueLayout;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.Kernel;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.queue.Queue;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.WaitState;

/**
 * One kernel made ready once per trial and dispatched again and again with the queue's launch call,
 * whose pooled completion signal and kernarg block are reused, so a dispatch costs only the packet
 * and the wait. The services benchmarks run their calls inside such kernels.
 */
final class KernelLoop {
    private final Queue queue;
    private final long kernelObject;

    KernelLoop(HsaRuntime rt, Queue queue, KernelDescriptor descriptor, Kernel kernel) {
        this.queue = queue;
        Executable exe = rt.createExecutable().define("bench", descriptor.kernarg(32), kernel).freeze();
        this.kernelObject = exe.symbol("bench").kernelObject();
    }

    /** Kernel argument {@code i}. */
    static long arg(WorkItem wi, int i) {
        return wi.kernarg().get(ValueLayout.JAVA_LONG, 8L * i);
    }

    /** Dispatches {@code grid} work-items in workgroups of {@code workgroup} with {@code args}, waits for the end. */
    void run(int grid, int workgroup, int groupBytes, long... args) {
        queue.launch(kernelObject).grid(grid).workgroup(workgroup).groupSegment(groupBytes).args(args).dispatch()
                .join(WaitState.BLOCKED);
    }
}
