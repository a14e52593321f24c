package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.stress.StressRuntime;
import org.hsa4j.testsupport.BoundedWait;
import org.hsa4j.testsupport.SvmSlots;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LL_Result;

/**
 * The sync_2way flag handoff, with the device side played by an actor that accesses SVM through
 * the GPU agent's view (what a kernel's {@code wi.svm()} is). The host writes a payload, stores
 * the flag 1 with release and waits (acquire, bounded) for 2; the device side waits for 1, reads
 * the payload, writes a reply and stores the flag 2 with release. Each side must see the other's
 * data once it has seen the flag.
 *
 * <p>Slot layout: {@link #FLAG}, {@link #PAYLOAD}, {@link #REPLY}.
 */
@JCStressTest
@Description("sync_2way: host flag=1 (release) -> device waits (acquire), answers flag=2 (release) -> host waits (acquire)")
@Outcome(id = "43, 42", expect = ACCEPTABLE, desc = "both handoffs carried their data")
@Outcome(id = {"0, 42", "1, 0", "0, 0"}, expect = FORBIDDEN, desc = "a side saw the flag but stale data")
@Outcome(id = ".*TIMEOUT.*", expect = FORBIDDEN, desc = "a flag store was never seen")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class Sync2WayFlagHandoffTest {
    /** Offset of the flag: 0 idle, 1 request posted, 2 answered. */
    static final long FLAG = 0;
    /** Offset of the host's payload. */
    static final long PAYLOAD = 4;
    /** Offset of the device's reply. */
    static final long REPLY = 8;

    static final HsaRuntime RT = StressRuntime.start();
    static final Svm HOST = RT.svm();
    static final Svm DEVICE = RT.gpuAgent().svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, REPLY + Integer.BYTES);

    final long slot = SLOTS.next();

    /** Posts the payload, raises the flag, waits for the answer and reads the reply. */
    @Actor
    public void host(LL_Result r) {
        HOST.setInt(slot + PAYLOAD, 42);
        HOST.storeIntRelease(slot + FLAG, 1);
        r.r1 = BoundedWait.untilIntAcquire(HOST, slot + FLAG, 2) ? HOST.getInt(slot + REPLY) : BoundedWait.TIMEOUT;
    }

    /** Waits for the request, reads the payload, replies and answers the flag. */
    @Actor
    public void device(LL_Result r) {
        if (!BoundedWait.untilIntAcquire(DEVICE, slot + FLAG, 1)) {
            r.r2 = BoundedWait.TIMEOUT;
            return;
        }
        int payload = DEVICE.getInt(slot + PAYLOAD);
        DEVICE.setInt(slot + REPLY, payload + 1);
        DEVICE.storeIntRelease(slot + FLAG, 2);
        r.r2 = payload;
    }
}
