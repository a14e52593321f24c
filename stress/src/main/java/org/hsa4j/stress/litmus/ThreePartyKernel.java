package org.hsa4j.stress.litmus;

import java.lang.foreign.ValueLayout;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.stress.PacketSubmitter;
import org.hsa4j.testsupport.BoundedWait;
import org.hsa4j.testsupport.SignalRing;
import org.hsa4j.testsupport.SvmSlots;
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * The middle thread of the three-party shapes (WRC, ISA2), played by a one-work-item kernel on
 * the GPU agent, so that the test itself needs only two jcstress actors (jcstress skips tests
 * with more actors than CPUs, and these machines have two).
 *
 * <p>The kernel reads location {@code read} with {@code readOrder}, stores 1 into {@code write}
 * with {@code writeOrder}, and records what it read at {@link Litmus#KERNEL_SAW}. The first actor
 * dispatches it before doing its own stores, so the kernel runs concurrently with both actors;
 * the arbiter waits (bounded) for its completion and reports what it saw.
 */
final class ThreePartyKernel {
    private final HsaRuntime rt;
    private final SvmSlots slots;
    private final SignalRing signals;
    private final PacketSubmitter submitter;
    private final long kernelObject;

    private ThreePartyKernel(HsaRuntime rt, long read, long write, MemoryOrder readOrder, MemoryOrder writeOrder) {
        this.rt = rt;
        this.slots = SvmSlots.of(rt, Litmus.SLOT_BYTES);
        this.signals = SignalRing.of(rt, 1);
        this.submitter = PacketSubmitter.onNewQueue(rt.gpuAgent(), 1024);
        this.kernelObject = rt.createExecutable()
                .define("middle", KernelDescriptor.withKernarg(Long.BYTES), wi -> middle(wi, read, write, readOrder, writeOrder))
                .freeze().symbol("middle").kernelObject();
    }

    /** A kernel that reads {@code read} and then writes {@code write}, both offsets into the slot. */
    static ThreePartyKernel of(HsaRuntime rt, long read, long write, MemoryOrder readOrder, MemoryOrder writeOrder) {
        return new ThreePartyKernel(rt, read, write, readOrder, writeOrder);
    }

    private static void middle(WorkItem wi, long read, long write, MemoryOrder readOrder, MemoryOrder writeOrder) {
        Svm svm = wi.svm();
        long slot = wi.kernarg().get(ValueLayout.JAVA_LONG, 0);
        int seen = svm.atomicLoadInt(slot + read, readOrder, MemoryScope.SYSTEM);
        svm.atomicStoreInt(slot + write, 1, writeOrder, MemoryScope.SYSTEM);
        svm.setInt(slot + Litmus.KERNEL_SAW, seen);
    }

    /** A fresh slot whose kernarg points at itself. */
    long slot() {
        long slot = slots.next();
        rt.svm().setLong(slot + Litmus.KERNARG, slot);
        return slot;
    }

    /** A fresh completion signal (value 1). */
    Signal completion() {
        return signals.next(1);
    }

    /** Dispatches the kernel over {@code slot}; a full queue shows up later as the arbiter's TIMEOUT. */
    void dispatch(long slot, Signal completion) {
        submitter.dispatch(kernelObject, slot + Litmus.KERNARG, completion);
    }

    /** Waits for the kernel and stores what it saw into {@code r.r1} ("TIMEOUT" if it never finished). */
    void collect(long slot, Signal completion, LLL_Result r) {
        r.r1 = BoundedWait.untilSignal(completion, SignalCondition.EQ, 0)
                ? rt.svm().getInt(slot + Litmus.KERNEL_SAW) : BoundedWait.TIMEOUT;
    }
}
