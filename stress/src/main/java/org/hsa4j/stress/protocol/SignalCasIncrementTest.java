package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
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
 * Two compare-and-swap increment loops on one signal, one with {@code casScacqScrel}, one with
 * {@code casRelaxed}. A CAS succeeds only against the current value and returns the value it
 * found, so both increments land: the arbiter must find 2.
 */
@JCStressTest
@Description("signal casScacqScrel / casRelaxed increment loops from two threads lose no update")
@Outcome(id = "DONE, DONE, 2", expect = ACCEPTABLE, desc = "both increments applied")
@Outcome(id = "DONE, DONE, 1", expect = FORBIDDEN, desc = "an increment was lost: a CAS succeeded on a stale value")
@Outcome(id = ".*TIMEOUT.*", expect = FORBIDDEN, desc = "a CAS loop never succeeded")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class SignalCasIncrementTest {
    static final HsaRuntime RT = StressRuntime.start();
    static final SignalRing SIGNALS = SignalRing.of(RT, 1);
    /** Failed CAS attempts after which a loop reports TIMEOUT (two contenders need at most a few). */
    static final int MAX_ATTEMPTS = 1_000_000;

    final Signal counter = SIGNALS.next(0);

    /** Increments with casScacqScrel. */
    @Actor
    public void first(LLL_Result r) {
        long seen = counter.loadRelaxed();
        for (int i = 0; i < MAX_ATTEMPTS; i++) {
            long witness = counter.casScacqScrel(seen, seen + 1);
            if (witness == seen) {
                r.r1 = "DONE";
                return;
            }
            seen = witness;
        }
        BoundedWait.timedOut();
        r.r1 = BoundedWait.TIMEOUT;
    }

    /** Increments with casRelaxed. */
    @Actor
    public void second(LLL_Result r) {
        long seen = counter.loadRelaxed();
        for (int i = 0; i < MAX_ATTEMPTS; i++) {
            long witness = counter.casRelaxed(seen, seen + 1);
            if (witness == seen) {
                r.r2 = "DONE";
                return;
            }
            seen = witness;
        }
        BoundedWait.timedOut();
        r.r2 = BoundedWait.TIMEOUT;
    }

    /** Reads the final value. */
    @Arbiter
    public void arbiter(LLL_Result r) {
        r.r3 = counter.loadScacquire();
    }
}
