package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.Future;

import org.hsa4j.amp.AcceleratorView;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CompletionFuture;
import org.hsa4j.amp.Extent;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.stress.StressRuntime;
import org.hsa4j.testsupport.BoundedWait;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * {@link CompletionFuture#cancel} races with the completion of the future's kernel: exactly one of
 * them decides the outcome. A cancel that returns true leaves the future CANCELLED for good (the
 * kernel, which may already have run, cannot turn it into a success); a cancel that returns false
 * finds it SUCCESS with the kernel's write visible.
 *
 * <p>One actor dispatches a one-point kernel that waits (bounded) for a gate flag and then writes
 * {@link #PAYLOAD}, and cancels its future; the other opens the gate. The arbiter queues a no-op
 * behind the kernel on the same view and waits (bounded) for it, so the cancelled packet has
 * retired, then reports the future's state and the payload. The layer is not closed (like the
 * runtime); every kernel ends within the {@link BoundedWait} patience.
 */
public class CompletionFutureCancelTest {
    /** What the kernel writes. */
    static final int PAYLOAD = 42;
    /** One work-item. */
    static final Extent ONE = new Extent(1);

    static final HsaRuntime RT = StressRuntime.start();
    static final Amp AMP = Amp.on(RT);
    static final AcceleratorView VIEW = AMP.defaultView();

    private CompletionFutureCancelTest() {
    }

    /** cancel() ‖ the kernel's completion. */
    @JCStressTest
    @Description("cancel() races with the completion of its completion_future's kernel: one of them decides, for good")
    @Outcome(id = "CANCELLED, OPENED, CANCELLED (0|42)", expect = ACCEPTABLE,
            desc = "cancel won; the kernel had not started (0) or had run (42)")
    @Outcome(id = "LATE, OPENED, SUCCESS 42", expect = ACCEPTABLE, desc = "the kernel completed first; cancel returned false")
    @Outcome(id = "CANCELLED, .*, SUCCESS.*", expect = FORBIDDEN, desc = "cancel returned true but the future succeeded")
    @Outcome(id = "LATE, .*, CANCELLED.*", expect = FORBIDDEN, desc = "cancel returned false but the future is cancelled")
    @Outcome(id = "LATE, .*, SUCCESS 0", expect = FORBIDDEN, desc = "the future succeeded before the kernel's write was visible")
    @Outcome(id = ".*TIMEOUT.*", expect = FORBIDDEN, desc = "the kernel's gate or the packet behind it never completed")
    @Outcome(expect = FORBIDDEN, desc = "anything else (a failed future)")
    @State
    public static class CancelVersusCompletion {
        int payload;
        volatile boolean gateOpen;
        volatile boolean kernelTimedOut;
        volatile CompletionFuture future;

        /** The gated kernel: waits for the gate (bounded), then writes the payload. */
        static void gated(CancelVersusCompletion s) {
            if (BoundedWait.until(() -> s.gateOpen)) {
                s.payload = PAYLOAD;
            } else {
                s.kernelTimedOut = true;
            }
        }

        /** Dispatches the gated kernel and cancels its future. */
        @Actor
        public void canceller(LLL_Result r) {
            CancelVersusCompletion s = this;
            CompletionFuture f = VIEW.parallelForEach(ONE, idx -> gated(s));
            future = f;
            r.r1 = f.cancel(false) ? "CANCELLED" : "LATE";
        }

        /** Opens the gate. */
        @Actor
        public void completer(LLL_Result r) {
            gateOpen = true;
            r.r2 = "OPENED";
        }

        /** Waits until the kernel's packet has retired, then reports the future's state and the payload. */
        @Arbiter
        public void arbiter(LLL_Result r) {
            CompletionFuture behind = VIEW.parallelForEach(ONE, idx -> { });
            CompletionFuture f = future;
            if (!BoundedWait.until(behind::isReady)) {
                r.r3 = BoundedWait.TIMEOUT;
            } else if (kernelTimedOut) {
                r.r3 = "KERNEL " + BoundedWait.TIMEOUT;
            } else {
                Future.State state = f.state();
                r.r3 = state + " " + payload;
            }
        }
    }
}
