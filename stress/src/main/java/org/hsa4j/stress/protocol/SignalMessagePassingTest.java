package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.stress.StressRuntime;
import org.hsa4j.testsupport.SignalRing;
import org.hsa4j.testsupport.SvmSlots;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Message passing through a signal: the producer writes data into SVM with a plain store and
 * then sets a signal with {@code storeScrelease}; the consumer reads the signal with
 * {@code loadScacquire} and then the data with a plain load. Seeing the flag but not the data
 * would mean the release store or the acquire load is weaker than the spec's.
 */
@JCStressTest
@Description("signal storeScrelease / loadScacquire publishes plain SVM data")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the consumer ran first")
@Outcome(id = "0, 42", expect = ACCEPTABLE, desc = "data seen before the flag: allowed, nothing ordered it")
@Outcome(id = "1, 42", expect = ACCEPTABLE, desc = "flag and data")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "flag seen but data stale: the signal does not publish")
@State
public class SignalMessagePassingTest {
    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, Integer.BYTES);
    static final SignalRing SIGNALS = SignalRing.of(RT, 1);

    final long data = SLOTS.next();
    final Signal flag = SIGNALS.next(0);

    /** Writes the data, then sets the flag with release. */
    @Actor
    public void producer() {
        SVM.setInt(data, 42);
        flag.storeScrelease(1);
    }

    /** Reads the flag with acquire, then the data. */
    @Actor
    public void consumer(II_Result r) {
        r.r1 = (int) flag.loadScacquire();
        r.r2 = SVM.getInt(data);
    }
}
