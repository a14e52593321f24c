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
 * Barrier-OR completion while the packet processor runs, with dependencies
 * {@code [a, 0, b, 0, 0]} (a zero handle counts as NOT satisfied for OR). The submitter publishes
 * the packet on a queue of the GPU agent and then drops {@code b} to 0; the other actor first
 * looks at the completion signal and, if it is already 0, at {@code b}, and then drops {@code a}
 * to 0. The arbiter waits (bounded) for the completion signal.
 *
 * <p>The barrier must complete, and only after some dependency was 0: while {@code a} is 1 (the
 * other actor's look comes before it drops {@code a}) a completed barrier must be explained by
 * {@code b}, and since the processor saw {@code b = 0} before it decremented the completion signal
 * with release, an acquire load of {@code b} after seeing the completion must read 0. A processor
 * that took the zero handles for satisfied dependencies would complete at once: EARLY.
 */
@JCStressTest
@Description("barrier-OR completes once some dependency was observed at 0, never earlier; zero handles never satisfy it")
@Outcome(id = "SUBMITTED, PENDING, COMPLETED", expect = ACCEPTABLE, desc = "looked before completion; completed later")
@Outcome(id = "SUBMITTED, AFTER_B, COMPLETED", expect = ACCEPTABLE, desc = "completed once b dropped to 0, and b reads 0")
@Outcome(id = ".*, EARLY, .*", expect = FORBIDDEN, desc = "completed while no dependency was 0 (or b's drop not visible after it)")
@Outcome(id = ".*TIMEOUT.*", expect = FORBIDDEN, desc = "the queue stayed full, or the barrier never completed (a dependency change was missed)")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class BarrierOrCompletionTest {
    static final HsaRuntime RT = StressRuntime.start();
    static final PacketSubmitter SUBMITTER = PacketSubmitter.onNewQueue(RT.gpuAgent(), 16);
    static final SignalRing SIGNALS = SignalRing.of(RT, 3);
    static final short HEADER = PacketHeader.of(PacketType.BARRIER_OR, false, FenceScope.SYSTEM, FenceScope.SYSTEM);

    final Signal a = SIGNALS.next(1);
    final Signal b = SIGNALS.next(1);
    final Signal completion = SIGNALS.next(1);

    /** Publishes the barrier, then drops {@code b} to 0. */
    @Actor
    public void submitter(LLL_Result r) {
        boolean submitted = SUBMITTER.barrier(HEADER, completion, a.handle(), 0, b.handle(), 0, 0);
        b.storeScrelease(0);
        r.r1 = submitted ? "SUBMITTED" : BoundedWait.TIMEOUT;
    }

    /** Looks at the completion signal (and then b) while {@code a} is 1, then drops {@code a} to 0. */
    @Actor
    public void releaser(LLL_Result r) {
        if (completion.loadScacquire() != 0) {
            r.r2 = "PENDING";
        } else {
            r.r2 = b.loadScacquire() == 0 ? "AFTER_B" : "EARLY";
        }
        a.subtractScrelease(1);
    }

    /** Waits for the barrier to complete. */
    @Arbiter
    public void arbiter(LLL_Result r) {
        r.r3 = BoundedWait.untilSignal(completion, SignalCondition.EQ, 0) ? "COMPLETED" : BoundedWait.TIMEOUT;
    }
}
