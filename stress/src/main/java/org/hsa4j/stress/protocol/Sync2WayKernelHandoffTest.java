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
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * The sync_2way flag handoff with a real kernel on the device side: one actor dispatches a
 * one-work-item kernel (and waits for it) that waits for the flag to read 1 (acquire, bounded),
 * reads the host's payload, writes a reply and stores the flag 2 (release); the other actor is the
 * host, which writes the payload, stores the flag 1 (release) and waits for 2 (acquire, bounded)
 * before it reads the reply. The arbiter reads the payload the kernel saw.
 *
 * <p>Slot layout: {@link #FLAG}, {@link #PAYLOAD}, {@link #REPLY}, {@link #SEEN} (the payload the
 * kernel read, or -1 when its wait ran out) and {@link #KERNARG} (the slot address).
 */
@JCStressTest
@Description("sync_2way with a kernel: host flag=1 (release) -> kernel waits (acquire), answers flag=2 (release) -> host waits (acquire)")
@Outcome(id = "DONE, 43, 42", expect = ACCEPTABLE, desc = "both handoffs carried their data")
@Outcome(id = {"DONE, 0, 42", "DONE, 1, 0", "DONE, 0, 0"}, expect = FORBIDDEN, desc = "a side saw the flag but stale data")
@Outcome(id = ".*TIMEOUT.*|.*, -1", expect = FORBIDDEN, desc = "a flag store was never seen or the kernel never completed")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class Sync2WayKernelHandoffTest {
    /** Offset of the flag: 0 idle, 1 request posted, 2 answered. */
    static final long FLAG = 0;
    /** Offset of the host's payload. */
    static final long PAYLOAD = 4;
    /** Offset of the kernel's reply. */
    static final long REPLY = 8;
    /** Offset of the payload as the kernel read it. */
    static final long SEEN = 12;
    /** Offset of the kernarg segment (8 bytes: the slot address). */
    static final long KERNARG = 16;

    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, KERNARG + Long.BYTES);
    static final SignalRing SIGNALS = SignalRing.of(RT, 1);
    static final PacketSubmitter SUBMITTER = PacketSubmitter.onNewQueue(RT.gpuAgent(), 64);
    static final long KERNEL = RT.createExecutable()
            .define("sync_2way_device", KernelDescriptor.withKernarg(Long.BYTES), Sync2WayKernelHandoffTest::kernel)
            .freeze().symbol("sync_2way_device").kernelObject();

    final long slot = SLOTS.next();
    final Signal completion = SIGNALS.next(1);

    public Sync2WayKernelHandoffTest() {
        SVM.setLong(slot + KERNARG, slot);
    }

    /** The kernel: wait for the request, read it, reply, answer the flag. */
    static void kernel(WorkItem wi) {
        Svm svm = wi.svm();
        long slot = wi.kernarg().get(ValueLayout.JAVA_LONG, 0);
        if (!BoundedWait.untilIntAcquire(svm, slot + FLAG, 1)) {
            svm.setInt(slot + SEEN, -1);
            return;
        }
        int payload = svm.getInt(slot + PAYLOAD);
        svm.setInt(slot + SEEN, payload);
        svm.setInt(slot + REPLY, payload + 1);
        svm.storeIntRelease(slot + FLAG, 2);
    }

    /** Dispatches the kernel and waits for it. */
    @Actor
    public void device(LLL_Result r) {
        r.r1 = SUBMITTER.dispatch(KERNEL, slot + KERNARG, completion)
                && BoundedWait.untilSignal(completion, SignalCondition.EQ, 0) ? "DONE" : BoundedWait.TIMEOUT;
    }

    /** Posts the payload, raises the flag, waits for the answer and reads the reply. */
    @Actor
    public void host(LLL_Result r) {
        SVM.setInt(slot + PAYLOAD, 42);
        SVM.storeIntRelease(slot + FLAG, 1);
        r.r2 = BoundedWait.untilIntAcquire(SVM, slot + FLAG, 2) ? SVM.getInt(slot + REPLY) : BoundedWait.TIMEOUT;
    }

    /** Reads the payload the kernel saw. */
    @Arbiter
    public void arbiter(LLL_Result r) {
        r.r3 = SVM.getInt(slot + SEEN);
    }
}
