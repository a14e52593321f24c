package org.hsa4j.examples.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.testsupport.SvmSlots;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.L_Result;

/**
 * An example of a user's own jcstress test against the hsa4j API: a one-slot mailbox in SVM.
 * The poster writes a two-field message with plain stores and then raises the mailbox's flag with
 * an HSA screlease store ({@link Svm#storeIntRelease}); the reader checks the flag with an
 * scacquire load ({@link Svm#loadIntAcquire}) and, if it is up, reads the message. The reader
 * must never see a raised flag with a torn or stale message.
 *
 * <p>Run it with {@code ./hsa4j stress --examples -t MailboxStress} (see the README's section on
 * stress testing). The pattern to copy:
 * <ul>
 * <li>one runtime per test class, started once in a static field with a small configuration and
 * never closed (its compute units are daemon threads that park when idle);</li>
 * <li>jcstress makes a new state object for every sample, millions per run, so a state must not
 * {@code hostMalloc} its memory: take a zeroed per-state slot from an {@link SvmSlots} of the
 * {@code hsa4j-test-support} artifact, which carves them round-robin from one allocation made up
 * front ({@code SignalRing} does the same for signals);</li>
 * <li>at most two actors (plus an arbiter): jcstress silently skips tests with more actors than
 * the machine has CPUs;</li>
 * <li>if an actor waits for the other, bound the wait ({@code BoundedWait} of the same artifact)
 * and report a FORBIDDEN "TIMEOUT" outcome.</li>
 * </ul>
 */
@JCStressTest
@Description("mailbox: message by plain stores, flag by storeIntRelease; loadIntAcquire of the flag sees the whole message")
@Outcome(id = "EMPTY", expect = ACCEPTABLE, desc = "the reader looked before the flag was raised")
@Outcome(id = "42, 43", expect = ACCEPTABLE, desc = "flag up and the whole message there")
@Outcome(expect = FORBIDDEN, desc = "flag up but the message torn or stale")
@State
public class MailboxStress {
    static final HsaRuntime RT = HsaRuntime.init(RuntimeConfig.builderFromEnvironment().computeUnits(1).build());
    static final Svm SVM = RT.svm();

    /** Mailbox layout: the flag, then the two fields of the message. */
    static final long FLAG = 0;
    static final long FIRST = 8;
    static final long SECOND = 16;
    static final long BOX_BYTES = 24;

    /** Per-state mailboxes: far more slots than jcstress keeps states alive at once. */
    static final SvmSlots BOXES = SvmSlots.of(RT, BOX_BYTES);

    /** This sample's mailbox, zeroed. */
    final long box = BOXES.next();

    /** Writes the message, then raises the flag with release. */
    @Actor
    public void poster() {
        SVM.setLong(box + FIRST, 42);
        SVM.setLong(box + SECOND, 43);
        SVM.storeIntRelease(box + FLAG, 1);
    }

    /** Checks the flag with acquire; reads the message if it is up. */
    @Actor
    public void reader(L_Result r) {
        r.r1 = SVM.loadIntAcquire(box + FLAG) == 0 ? "EMPTY" : SVM.getLong(box + FIRST) + ", " + SVM.getLong(box + SECOND);
    }
}
