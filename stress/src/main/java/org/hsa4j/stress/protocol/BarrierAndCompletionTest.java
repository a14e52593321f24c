package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.stress.PacketSubmitter;
import org.hsa4j.stress.StressRuntime;
import org.hsa4j.testsupport.BoundedWait;
import org.hsa4j.testsupport.SignalRing;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * Barrier-AND completion while the packet processor runs, with dependencies
 * {@code [a, 0, b, 0, 0]} (a zero handle counts as satisfied for AND). The submitter publishes the
 * packet on a queue of the GPU agent and then drops {@code b} to 0; the other actor first looks
 * at the completion signal, while {@code a} is still 1 so that the barrier cannot have completed,
 * and then drops {@code a} to 0. The arbiter waits (bounded) for the completion signal: the
 * barrier must complete, and must not have completed before both dependencies were 0.
 */
@JCStressTest
@Description("barrier-AND completes once every dependency was observed at 0, never earlier; zero handles are satisfied")
@Outcome(id = "SUBMITTED, PENDING, COMPLETED", expect = ACCEPTABLE, desc = "completed after both dependencies dropped to 0")
@Outcome(id = ".*, EARLY, .*", expect = FORBIDDEN, desc = "completed while a was still 1")
@Outcome(id = ".*TIMEOUT.*", expect = FORBIDDEN, desc = "the queue stayed full, or the barrier never completed (a dependency change was missed)")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class BarrierAndCompletionTest {
    static final HsaRuntime RT = StressRuntime.start();
    static final PacketSubmitter SUBMITTER = PacketSubmitter.onNewQueue(RT.gpuAgent(), 16);
    static final SignalRing SIGNALS = SignalRing.of(RT, 3);
    static final short HEADER = PacketHeader.of(PacketType.BARRIER_AND, false, FenceScope.SYSTEM, FenceScope.SYSTEM);

    final Signal a = SIGNALS.next(1);
    final Signal b = SIGNALS.next(1);
    final Signal completion = SIGNALS.next(1);

    /** Publishes the barrier, then drops {@code b} to 0. */
    @Actor
    public void submitter(LLL_Result r) {
        boolean submitted = SUBMITTER.barrier(HEADER, completion, a.handle(), 0, b.handle(), 0, 0);
        b.subtractScrelease(1);
        r.r1 = submitted ? "SUBMITTED" : BoundedWait.TIMEOUT;
    }

    /** Looks at the completion signal while {@code a} is 1, then drops {@code a} to 0. */
    @Actor
    public void releaser(LLL_Result r) {
        r.r2 = completion.loadScacquire() == 0 ? "EARLY" : "PENDING";
        a.storeScrelease(0);
    }

    /** Waits for the barrier to complete. */
    @Arbiter
    public void arbiter(LLL_Result r) {
        r.r3 = BoundedWait.untilSignal(completion, SignalCondition.EQ, 0) ? "COMPLETED" : BoundedWait.TIMEOUT;
    }
}
