package org.hsa4j.services;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.ValueLayout;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.Kernel;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * Dispatches one-dimensional kernels for the services tests with the spec's submission protocol
 * (reserve, write the body, publish the header with a release store, ring the doorbell), passing
 * 64-bit kernel arguments read back with {@link #arg}.
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

    /** Launches {@code kernel} over {@code grid} work-items in workgroups of {@code workgroup}; returns its completion signal. */
    public static Signal launch(HsaRuntime rt, Queue queue, Kernel kernel, int grid, int workgroup, long... args) {
        return launch(rt, queue, KernelDescriptor.EMPTY, 0, kernel, grid, workgroup, args);
    }

    /**
     * Launches with a descriptor (barriers, group segment): {@code groupBytes} of group segment per
     * workgroup.
     */
    public static Signal launch(HsaRuntime rt, Queue queue, KernelDescriptor descriptor, int groupBytes, Kernel kernel,
                                int grid, int workgroup, long... args) {
        int kernargBytes = 8 * Math.max(1, args.length);
        Executable exe = rt.createExecutable()
                .define("k", descriptor.kernarg(kernargBytes).group(groupBytes), kernel).freeze();
        long kernarg = rt.kernargPool().allocate(kernargBytes);
        for (int i = 0; i < args.length; i++) {
            rt.svm().setLong(kernarg + 8L * i, args[i]);
        }
        Signal done = rt.createSignal(1);
        long id = queue.reserveSlot();
        KernelDispatchPacket packet = queue.kernelDispatchPacket(id);
        packet.clearBody();
        packet.workgroupSize(workgroup, 1, 1).gridSize(grid, 1, 1)
                .kernelObject(exe.symbol("k").kernelObject())
                .kernargAddress(kernarg)
                .completionSignal(done.handle());
        packet.groupSegmentSize(groupBytes);
        packet.publish(PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM), 1);
        queue.ringDoorbell(id);
        return done;
    }

    /** Waits until {@code done} reaches 0; a failed signal throws; an interrupt (test timeout) fails the test. */
    public static void await(Signal done) {
        while (done.waitScacquire(SignalCondition.EQ, 0, 100_000_000L, WaitState.BLOCKED) != 0) {
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
