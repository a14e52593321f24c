package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.lang.foreign.ValueLayout;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
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
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LL_Result;

/**
 * A kernel's writes are visible once its completion signal is seen at 0: one actor dispatches a
 * one-work-item kernel that writes two ints into SVM with plain stores; the other waits on the
 * completion signal (scacquire, bounded) and reads them. The packet processor's release fence at
 * system scope and the screlease decrement of the completion signal must carry the writes.
 *
 * <p>Slot layout: {@link #KERNARG} holds the kernel's only argument, the address of the data at
 * {@link #DATA}.
 */
@JCStressTest
@Description("completion signal observed at 0 (waitScacquire), then the host sees the kernel's plain writes")
@Outcome(id = "DISPATCHED, 42 43", expect = ACCEPTABLE, desc = "completion seen, both writes visible")
@Outcome(id = {"DISPATCHED, 0 0", "DISPATCHED, 42 0", "DISPATCHED, 0 43"}, expect = FORBIDDEN, desc = "completion seen but a kernel write missing")
@Outcome(id = ".*TIMEOUT.*", expect = FORBIDDEN, desc = "the queue stayed full or the kernel never completed")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class CompletionSignalThenDataTest {
    /** Offset of the kernarg segment (8 bytes: the data address). */
    static final long KERNARG = 0;
    /** Offset of the two ints the kernel writes. */
    static final long DATA = 8;

    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, DATA + 2 * Integer.BYTES);
    static final SignalRing SIGNALS = SignalRing.of(RT, 1);
    static final PacketSubmitter SUBMITTER = PacketSubmitter.onNewQueue(RT.gpuAgent(), 1024);
    static final long KERNEL = RT.createExecutable()
            .define("write_two_ints", KernelDescriptor.withKernarg(Long.BYTES), CompletionSignalThenDataTest::writeTwoInts)
            .freeze().symbol("write_two_ints").kernelObject();

    final long slot = SLOTS.next();
    final Signal completion = SIGNALS.next(1);

    public CompletionSignalThenDataTest() {
        SVM.setLong(slot + KERNARG, slot + DATA);
    }

    /** The kernel: plain stores of 42 and 43. */
    static void writeTwoInts(WorkItem wi) {
        long data = wi.kernarg().get(ValueLayout.JAVA_LONG, 0);
        Svm svm = wi.svm();
        svm.setInt(data, 42);
        svm.setInt(data + Integer.BYTES, 43);
    }

    /** Dispatches the kernel. */
    @Actor
    public void host(LL_Result r) {
        r.r1 = SUBMITTER.dispatch(KERNEL, slot + KERNARG, completion) ? "DISPATCHED" : BoundedWait.TIMEOUT;
    }

    /** Waits for completion, then reads the kernel's writes. */
    @Actor
    public void waiter(LL_Result r) {
        if (BoundedWait.untilSignal(completion, SignalCondition.EQ, 0)) {
            r.r2 = SVM.getInt(slot + DATA) + " " + SVM.getInt(slot + DATA + Integer.BYTES);
        } else {
            r.r2 = BoundedWait.TIMEOUT;
        }
    }
}
