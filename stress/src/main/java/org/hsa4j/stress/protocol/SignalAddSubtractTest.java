package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.stress.StressRuntime;
import org.hsa4j.testsupport.SignalRing;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.J_Result;

/**
 * Concurrent read-modify-writes on one signal: one actor adds 2 with relaxed order, the other
 * subtracts 1 with scacq_screl order. Whatever the order names say, a signal RMW is atomic, so
 * the arbiter must find 1.
 */
@JCStressTest
@Description("signal addRelaxed and subtractScacqScrel from two threads lose no update")
@Outcome(id = "1", expect = ACCEPTABLE, desc = "both updates applied")
@Outcome(id = "2", expect = FORBIDDEN, desc = "the subtract was lost")
@Outcome(id = "-1", expect = FORBIDDEN, desc = "the add was lost")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class SignalAddSubtractTest {
    static final HsaRuntime RT = StressRuntime.start();
    static final SignalRing SIGNALS = SignalRing.of(RT, 1);

    final Signal counter = SIGNALS.next(0);

    /** Adds 2. */
    @Actor
    public void adder() {
        counter.addRelaxed(2);
    }

    /** Subtracts 1. */
    @Actor
    public void subtracter() {
        counter.subtractScacqScrel(1);
    }

    /** Reads the final value. */
    @Arbiter
    public void arbiter(J_Result r) {
        r.r1 = counter.loadScacquire();
    }
}
