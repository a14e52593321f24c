package org.hsa4j.memory;

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
 * Dispatches a one-dimensional kernel through a queue with the spec's submission protocol
 * (reserve, write body, publish header with a release store, ring the doorbell), passing up to a
 * few 64-bit kernel arguments (read them with {@link #arg}). For the memory tests, which need a
 * kernel to touch SVM.
 */
final class KernelLauncher {
    private KernelLauncher() {
    }

    /** Kernel argument {@code i} (a 64-bit value: an SVM address or a count). */
    static long arg(WorkItem wi, int i) {
        return wi.kernarg().get(ValueLayout.JAVA_LONG, 8L * i);
    }

    /** Launches {@code kernel} over {@code grid} work-items in workgroups of {@code workgroup}; returns the completion signal. */
    static Signal launch(HsaRuntime rt, Queue queue, Kernel kernel, int grid, int workgroup, long... args) {
        int kernargBytes = 8 * Math.max(1, args.length);
        Executable exe = rt.createExecutable().define("test_kernel", KernelDescriptor.withKernarg(kernargBytes), kernel)
                .freeze();
        long kernarg = rt.kernargPool().allocate(kernargBytes);
        for (int i = 0; i < args.length; i++) {
            rt.svm().setLong(kernarg + 8L * i, args[i]);
        }
        Signal done = rt.createSignal(1);
        long id = queue.reserveSlot();
        KernelDispatchPacket packet = queue.kernelDispatchPacket(id);
        packet.clearBody();
        packet.workgroupSize(workgroup, 1, 1).gridSize(grid, 1, 1)
                .kernelObject(exe.symbol("test_kernel").kernelObject())
                .kernargAddress(kernarg)
                .completionSignal(done.handle());
        packet.publish(PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM), 1);
        queue.ringDoorbell(id);
        return done;
    }

    /** Host side: waits (bounded by 20 s, then fails the test) until the int at {@code flag} is {@code value}, with acquire loads. */
    static void hostAwait(HsaRuntime rt, long flag, int value) {
        long end = System.nanoTime() + 20_000_000_000L;
        while (rt.svm().loadIntAcquire(flag) != value) {
            if (System.nanoTime() - end > 0) {
                fail("the kernel never set its flag");
            }
            Thread.onSpinWait();
        }
    }

    /** Waits until {@code done} reaches 0; a failed signal throws; an interrupt (test timeout) fails the test. */
    static void await(Signal done) {
        while (done.waitScacquire(SignalCondition.EQ, 0, 100_000_000L, WaitState.BLOCKED) != 0) {
            if (Thread.currentThread().isInterrupted()) {
                fail("interrupted while waiting for a kernel");
            }
        }
    }
}
