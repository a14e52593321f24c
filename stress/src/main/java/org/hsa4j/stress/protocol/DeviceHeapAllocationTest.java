package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
import org.hsa4j.services.memory.DeviceHeap;
import org.hsa4j.services.memory.HeapStatus;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.stress.PacketSubmitter;
import org.hsa4j.stress.StressRuntime;
import org.hsa4j.testsupport.BoundedWait;
import org.hsa4j.testsupport.SignalRing;
import org.hsa4j.testsupport.SvmSlots;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * The device allocator never hands one block out twice: two kernels, one on each of two GPU
 * agents (so they really run at the same time, each on its agent's compute unit), each
 * {@code malloc} one block of the same size class ({@value #SIZE_1} and {@value #SIZE_2} bytes,
 * both the {@value #BLOCK}-byte class) from the services' default {@link DeviceHeap}. The two
 * kernels meet first (each counts itself in and waits, bounded, for the other), so their mallocs
 * start together; both work-items have flat id 0, so both start at the same bitmap word of the
 * same chunk: they race for the chunk's free count and for the same bits. The arbiter checks that both got a block and
 * that the two blocks neither coincide nor overlap, then dispatches a kernel that frees both
 * (each free must succeed: a block handed out twice would also show as a double free) and waits
 * for it, so the heap does not grow with the samples and later samples race for the freed bits.
 * The free kernel runs on a third GPU agent: behind a malloc kernel still waiting for its partner
 * on agent 1 or 2, it could wait for an actor that is itself busy running this arbiter.
 *
 * <p>Slot layout: {@link #KERNARG_1} and {@link #KERNARG_2} (each: the slot's address and the
 * kernel's number), {@link #KERNARG_FREE} (the slot's address), {@link #ARRIVED} (the meeting
 * count), {@link #KERNEL_TIMED_OUT} (set by a kernel whose wait for the other ran out),
 * {@link #POINTER_1} and {@link #POINTER_2} (the blocks), {@link #FREE_STATUS_1} and
 * {@link #FREE_STATUS_2} (the frees' {@link HeapStatus}).
 */
@JCStressTest
@Description("two kernels on two agents malloc from the same device heap size class: the blocks differ and do not overlap")
@Outcome(id = "ALLOCATED, ALLOCATED, DISTINCT", expect = ACCEPTABLE, desc = "two different, non-overlapping blocks, both freed cleanly")
@Outcome(id = ".*SAME.*|.*OVERLAP.*", expect = FORBIDDEN, desc = "one block (or overlapping memory) handed out twice")
@Outcome(id = ".*NULL.*", expect = FORBIDDEN, desc = "a malloc returned 0 with memory to spare")
@Outcome(id = ".*FREE.*", expect = FORBIDDEN, desc = "freeing a block handed out failed (double free, foreign or interior pointer)")
@Outcome(id = ".*TIMEOUT.*", expect = FORBIDDEN, desc = "a kernel never completed, or never met the other")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class DeviceHeapAllocationTest {
    /** Offset of kernel 1's kernarg segment: u64 the slot's address, u64 the kernel's number (1). */
    static final long KERNARG_1 = 0;
    /** Offset of kernel 2's kernarg segment (number 2). */
    static final long KERNARG_2 = 16;
    /** Offset of the free kernel's kernarg segment: u64 the slot's address. */
    static final long KERNARG_FREE = 32;
    /** Offset of the int each malloc kernel increments on arrival. */
    static final long ARRIVED = 40;
    /** Offset of the int a malloc kernel sets when the other never arrived. */
    static final long KERNEL_TIMED_OUT = 44;
    /** Offset of the block kernel 1 got. */
    static final long POINTER_1 = 48;
    /** Offset of the block kernel 2 got. */
    static final long POINTER_2 = 56;
    /** Offset of the status of freeing block 1. */
    static final long FREE_STATUS_1 = 64;
    /** Offset of the status of freeing block 2. */
    static final long FREE_STATUS_2 = 68;
    /** Bytes of a slot. */
    static final long SLOT_BYTES = 72;
    /** Kernel 1's request. */
    static final long SIZE_1 = 48;
    /** Kernel 2's request. */
    static final long SIZE_2 = 64;
    /** The size class both requests fall in: distinct blocks are at least this far apart. */
    static final long BLOCK = 64;
    /** A free status no free returns: the free kernel did not get that far. */
    static final int NOT_FREED = Integer.MIN_VALUE;

    static final HsaRuntime RT = HsaRuntime.init(StressRuntime.config().toBuilder().gpuAgents(3).build());
    static final Svm SVM = RT.svm();
    static final Services SERVICES = Services.start(RT);
    static final DeviceHeap HEAP = SERVICES.deviceHeap();
    static final SvmSlots SLOTS = SvmSlots.of(RT, SLOT_BYTES);
    static final SignalRing SIGNALS = SignalRing.of(RT, 3);
    static final PacketSubmitter AGENT_1 = PacketSubmitter.onNewQueue(RT.gpuAgents().get(0), 64);
    static final PacketSubmitter AGENT_2 = PacketSubmitter.onNewQueue(RT.gpuAgents().get(1), 64);
    static final PacketSubmitter FREER = PacketSubmitter.onNewQueue(RT.gpuAgents().get(2), 64);
    static final long MALLOC_KERNEL = RT.createExecutable()
            .define("malloc_one", KernelDescriptor.withKernarg(2 * Long.BYTES), DeviceHeapAllocationTest::mallocOne)
            .freeze().symbol("malloc_one").kernelObject();
    static final long FREE_KERNEL = RT.createExecutable()
            .define("free_two", KernelDescriptor.withKernarg(Long.BYTES), DeviceHeapAllocationTest::freeTwo)
            .freeze().symbol("free_two").kernelObject();

    final long slot = SLOTS.next();
    final Signal done1 = SIGNALS.next(1);
    final Signal done2 = SIGNALS.next(1);
    final Signal freed = SIGNALS.next(1);

    public DeviceHeapAllocationTest() {
        SVM.setLong(slot + KERNARG_1, slot);
        SVM.setLong(slot + KERNARG_1 + Long.BYTES, 1);
        SVM.setLong(slot + KERNARG_2, slot);
        SVM.setLong(slot + KERNARG_2 + Long.BYTES, 2);
        SVM.setLong(slot + KERNARG_FREE, slot);
        SVM.setInt(slot + FREE_STATUS_1, NOT_FREED);
        SVM.setInt(slot + FREE_STATUS_2, NOT_FREED);
    }

    /**
     * The malloc kernel: waits for the other kernel (bounded), then mallocs its size and writes the
     * block's address with a plain store.
     */
    static void mallocOne(WorkItem wi) {
        MemorySegment k = wi.kernarg();
        long s = k.get(ValueLayout.JAVA_LONG, 0);
        boolean first = k.get(ValueLayout.JAVA_LONG, Long.BYTES) == 1;
        Svm svm = wi.svm();
        svm.atomicAddInt(s + ARRIVED, 1, MemoryOrder.ACQ_REL, MemoryScope.SYSTEM);
        if (!BoundedWait.untilIntAcquire(svm, s + ARRIVED, 2)) {
            svm.setInt(s + KERNEL_TIMED_OUT, 1);
            return;
        }
        svm.setLong(s + (first ? POINTER_1 : POINTER_2), HEAP.malloc(wi, first ? SIZE_1 : SIZE_2));
    }

    /** The free kernel: frees both blocks of the slot (one, if they are the same) and records the statuses. */
    static void freeTwo(WorkItem wi) {
        long s = wi.kernarg().get(ValueLayout.JAVA_LONG, 0);
        Svm svm = wi.svm();
        long a = svm.getLong(s + POINTER_1);
        long b = svm.getLong(s + POINTER_2);
        svm.setInt(s + FREE_STATUS_1, HEAP.free(wi, a));
        svm.setInt(s + FREE_STATUS_2, a == b ? HeapStatus.OK : HEAP.free(wi, b));
    }

    /** Runs the malloc kernel on {@code submitter}'s agent and waits for it. */
    static String allocate(PacketSubmitter submitter, long kernarg, Signal done) {
        return submitter.dispatch(MALLOC_KERNEL, kernarg, done)
                && BoundedWait.untilSignal(done, SignalCondition.EQ, 0) ? "ALLOCATED" : BoundedWait.TIMEOUT;
    }

    /** malloc on the first GPU agent. */
    @Actor
    public void kernel1(LLL_Result r) {
        r.r1 = allocate(AGENT_1, slot + KERNARG_1, done1);
    }

    /** malloc on the second GPU agent. */
    @Actor
    public void kernel2(LLL_Result r) {
        r.r2 = allocate(AGENT_2, slot + KERNARG_2, done2);
    }

    /** Compares the blocks, then frees them. */
    @Arbiter
    public void arbiter(LLL_Result r) {
        if (SVM.getInt(slot + KERNEL_TIMED_OUT) != 0) {
            r.r3 = "KERNEL " + BoundedWait.TIMEOUT;
            return;
        }
        long a = SVM.getLong(slot + POINTER_1);
        long b = SVM.getLong(slot + POINTER_2);
        String verdict = a == 0 || b == 0 ? "NULL" : a == b ? "SAME" : Math.abs(a - b) < BLOCK ? "OVERLAP" : "DISTINCT";
        if (!FREER.dispatch(FREE_KERNEL, slot + KERNARG_FREE, freed)
                || !BoundedWait.untilSignal(freed, SignalCondition.EQ, 0)) {
            r.r3 = verdict + " FREE " + BoundedWait.TIMEOUT;
            return;
        }
        int s1 = SVM.getInt(slot + FREE_STATUS_1);
        int s2 = SVM.getInt(slot + FREE_STATUS_2);
        r.r3 = s1 == HeapStatus.OK && s2 == HeapStatus.OK ? verdict
                : verdict + " FREE " + HeapStatus.name(s1) + " " + HeapStatus.name(s2);
    }
}
