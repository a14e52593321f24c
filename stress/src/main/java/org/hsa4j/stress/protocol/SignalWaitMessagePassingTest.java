package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.stress.StressRuntime;
import org.hsa4j.testsupport.BoundedWait;
import org.hsa4j.testsupport.SignalRing;
import org.hsa4j.testsupport.SvmSlots;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.L_Result;

/**
 * Message passing through a signal wait: the consumer blocks in {@code waitScacquire(NE, 0)}
 * (looping over early returns, bounded) and then reads the data. The wait must end, which also
 * checks that the producer's {@code storeScrelease} wakes a waiter that may have parked, and the
 * data must be there once it does.
 */
@JCStressTest
@Description("signal waitScacquire returns after storeScrelease and sees the data written before it")
@Outcome(id = "42", expect = ACCEPTABLE, desc = "the wait ended and the data was there")
@Outcome(id = "0", expect = FORBIDDEN, desc = "the wait ended but the data was stale")
@Outcome(id = BoundedWait.TIMEOUT, expect = FORBIDDEN, desc = "the wait never saw the store: a lost wake-up")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class SignalWaitMessagePassingTest {
    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, Integer.BYTES);
    static final SignalRing SIGNALS = SignalRing.of(RT, 1);

    final long data = SLOTS.next();
    final Signal flag = SIGNALS.next(0);

    /** Writes the data, then sets the flag with release (which wakes waiters). */
    @Actor
    public void producer() {
        SVM.setInt(data, 42);
        flag.storeScrelease(1);
    }

    /** Waits for the flag with acquire, then reads the data. */
    @Actor
    public void consumer(L_Result r) {
        r.r1 = BoundedWait.untilSignal(flag, SignalCondition.NE, 0) ? String.valueOf(SVM.getInt(data)) : BoundedWait.TIMEOUT;
    }
}
