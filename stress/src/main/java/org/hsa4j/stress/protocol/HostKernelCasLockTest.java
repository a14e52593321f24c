package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
 * A spin lock in SVM shared by the host and a kernel (the binary-tree node lock of the seed
 * programs): each side takes the lock with a system-scope compare-and-swap (acquire), increments
 * a plain counter, and unlocks with a system-scope release store. One actor dispatches a
 * one-work-item kernel that does this and waits for it; the other does it on the host. If the
 * lock excludes and its orders carry the counter, the arbiter finds 2.
 *
 * <p>Slot layout: {@link #LOCK}, {@link #COUNTER}, {@link #KERNEL_TIMED_OUT} (set by a kernel whose
 * bounded spin ran out) and {@link #KERNARG} (the slot's own address, the kernel's argument).
 */
@JCStressTest
@Description("host and kernel increment a plain counter under a system-scope CAS lock: no lost update")
@Outcome(id = "DONE, DONE, 2", expect = ACCEPTABLE, desc = "both increments under the lock")
@Outcome(id = "DONE, DONE, 1", expect = FORBIDDEN, desc = "an increment was lost: the lock did not exclude or order")
@Outcome(id = ".*TIMEOUT.*", expect = FORBIDDEN, desc = "a side never got the lock or the kernel never completed")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class HostKernelCasLockTest {
    /** Offset of the lock word (0 free, 1 held). */
    static final long LOCK = 0;
    /** Offset of the plain counter. */
    static final long COUNTER = 4;
    /** Offset of the flag a kernel sets when its spin ran out. */
    static final long KERNEL_TIMED_OUT = 8;
    /** Offset of the kernarg segment (8 bytes: the slot address). */
    static final long KERNARG = 16;

    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, KERNARG + Long.BYTES);
    static final SignalRing SIGNALS = SignalRing.of(RT, 1);
    static final PacketSubmitter SUBMITTER = PacketSubmitter.onNewQueue(RT.gpuAgent(), 64);
    static final long KERNEL = RT.createExecutable()
            .define("locked_increment", KernelDescriptor.withKernarg(Long.BYTES), HostKernelCasLockTest::kernel)
            .freeze().symbol("locked_increment").kernelObject();

    final long slot = SLOTS.next();
    final Signal completion = SIGNALS.next(1);

    public HostKernelCasLockTest() {
        SVM.setLong(slot + KERNARG, slot);
    }

    /** Takes the lock, increments the counter, unlocks; false when the lock never came free. */
    static boolean lockedIncrement(Svm svm, long slot) {
        long deadline = BoundedWait.deadline();
        for (int i = 0; svm.atomicCompareExchangeInt(slot + LOCK, 0, 1, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) != 0; i++) {
            if (System.nanoTime() - deadline > 0) {
                return BoundedWait.timedOut();
            }
            BoundedWait.pause(i);
        }
        svm.setInt(slot + COUNTER, svm.getInt(slot + COUNTER) + 1);
        svm.atomicStoreInt(slot + LOCK, 0, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        return true;
    }

    /** The kernel: the locked increment through the GPU agent's view of SVM. */
    static void kernel(WorkItem wi) {
        long slot = wi.kernarg().get(ValueLayout.JAVA_LONG, 0);
        if (!lockedIncrement(wi.svm(), slot)) {
            wi.svm().setInt(slot + KERNEL_TIMED_OUT, 1);
        }
    }

    /** Dispatches the kernel and waits for it. */
    @Actor
    public void device(LLL_Result r) {
        r.r1 = SUBMITTER.dispatch(KERNEL, slot + KERNARG, completion)
                && BoundedWait.untilSignal(completion, SignalCondition.EQ, 0) ? "DONE" : BoundedWait.TIMEOUT;
    }

    /** The locked increment on the host. */
    @Actor
    public void host(LLL_Result r) {
        r.r2 = lockedIncrement(SVM, slot) ? "DONE" : BoundedWait.TIMEOUT;
    }

    /** Reads the counter. */
    @Arbiter
    public void arbiter(LLL_Result r) {
        r.r3 = SVM.getInt(slot + KERNEL_TIMED_OUT) != 0 ? "KERNEL " + BoundedWait.TIMEOUT : SVM.getInt(slot + COUNTER);
    }
}
