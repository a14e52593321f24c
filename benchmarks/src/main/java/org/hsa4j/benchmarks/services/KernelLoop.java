package org.hsa4j.benchmarks.services;

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
 * One kernel made ready once per trial and dispatched again and again: its kernel object, its
 * kernarg block (up to four 64-bit arguments) and its completion signal are reused, so a dispatch
 * costs only the packet and the wait. The services benchmarks run their calls inside such kernels.
 */
final class KernelLoop {
    private final Queue queue;
    private final long kernelObject;
    private final long kernarg;
    private final Signal done;
    private final HsaRuntime rt;

    KernelLoop(HsaRuntime rt, Queue queue, KernelDescriptor descriptor, Kernel kernel) {
        this.rt = rt;
        this.queue = queue;
        Executable exe = rt.createExecutable().define("bench", descriptor.kernarg(32), kernel).freeze();
        this.kernelObject = exe.symbol("bench").kernelObject();
        this.kernarg = rt.kernargPool().allocate(32);
        this.done = rt.createSignal(0);
    }

    /** Kernel argument {@code i}. */
    static long arg(WorkItem wi, int i) {
        return wi.kernarg().get(ValueLayout.JAVA_LONG, 8L * i);
    }

    /** Dispatches {@code grid} work-items in workgroups of {@code workgroup} with {@code args}, waits for the end. */
    void run(int grid, int workgroup, int groupBytes, long... args) {
        for (int i = 0; i < args.length; i++) {
            rt.svm().setLong(kernarg + 8L * i, args[i]);
        }
        done.storeRelaxed(1);
        long id = queue.reserveSlot();
        KernelDispatchPacket p = queue.kernelDispatchPacket(id);
        p.clearBody();
        p.workgroupSize(workgroup, 1, 1).gridSize(grid, 1, 1).kernelObject(kernelObject).kernargAddress(kernarg)
                .completionSignal(done.handle());
        p.groupSegmentSize(groupBytes);
        p.publish(PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM), 1);
        queue.ringDoorbell(id);
        while (done.waitScacquire(SignalCondition.EQ, 0, 1_000_000_000L, WaitState.BLOCKED) != 0) {
            Thread.onSpinWait();
        }
    }
}
