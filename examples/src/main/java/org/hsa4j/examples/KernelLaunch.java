package org.hsa4j.examples;

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

/**
 * Launches a one-dimensional raw kernel (one that gets its {@link WorkItem}, as the GPU services
 * need) with the spec's protocol, passing 64-bit kernel arguments that {@link #arg} reads back,
 * and waits for it with a bounded wait.
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
        int kernargBytes = 8 * Math.max(1, args.length);
        Executable exe = rt.createExecutable()
                .define("kernel", KernelDescriptor.withKernarg(kernargBytes), kernel)
                .freeze();
        long kernarg = rt.kernargPool().allocate(kernargBytes);
        for (int i = 0; i < args.length; i++) {
            rt.svm().setLong(kernarg + 8L * i, args[i]);
        }
        Signal done = rt.createSignal(1);
        try {
            long index = queue.reserveSlot();
            KernelDispatchPacket packet = queue.kernelDispatchPacket(index);
            packet.clearBody();
            packet.workgroupSize(workgroup, 1, 1)
                    .gridSize(grid, 1, 1)
                    .kernelObject(exe.symbol("kernel").kernelObject())
                    .kernargAddress(kernarg)
                    .completionSignal(done.handle());
            packet.publish(PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM), 1);
            queue.ringDoorbell(index);
            Bounded.await(done, "a kernel of " + grid + " work-items");
        } finally {
            done.destroy();
        }
    }
}
