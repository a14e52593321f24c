package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;

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
 * {@link CompletionFuture#then} runs its continuation exactly once, after the future's work, however
 * the call races with the future's completion (which a compute unit, or the forwarding waiter of
 * the future's signal, brings about on its own thread).
 *
 * <p>The future's work is a one-point {@code parallelForEach} of the C++AMP layer whose kernel
 * writes {@link #PAYLOAD} into the state with a plain store. Each continuation counts its runs and
 * records what it read of the payload. The arbiter waits (bounded) for the futures {@code then}
 * returned and reads the counts and payloads: {@code "1 1"} for the run counts and
 * {@code "42 42"} for the payloads, in one string.
 *
 * <ul>
 * <li>{@link TwoThens}: one actor dispatches the work, publishes the future and calls {@code then};
 * the other waits (bounded) for the future and calls {@code then} on it too. Both calls race with
 * each other and with the kernel's completion.
 * <li>{@link ThenVersusCompletion}: one actor dispatches a kernel that waits (bounded) for a gate
 * flag and then calls {@code then}; the other opens the gate. The future completes before, during
 * or after the {@code then} call, as the two actors' timing has it.
 * </ul>
 *
 * <p>The layer is not closed (like the runtime): its continuation thread is a daemon that parks
 * when idle. Submitting a dispatch waits for queue space without a time limit inside the layer;
 * every kernel here ends within the {@link BoundedWait} patience, so that wait is bounded too.
 */
public class CompletionFutureThenTest {
    /** What the future's kernel writes. */
    static final int PAYLOAD = 42;
    /** One work-item. */
    static final Extent ONE = new Extent(1);

    static final HsaRuntime RT = StressRuntime.start();
    static final Amp AMP = Amp.on(RT);
    static final AcceleratorView VIEW = AMP.defaultView();

    private CompletionFutureThenTest() {
    }

    /** What a continuation saw; one per {@code then} call of a sample. */
    static final class Continuation implements Runnable {
        final AtomicInteger runs = new AtomicInteger();
        volatile int payloadSeen = -1;
        private final Work work;

        Continuation(Work work) {
            this.work = work;
        }

        @Override
        public void run() {
            runs.incrementAndGet();
            payloadSeen = work.payload;
        }

        /** Runs and payload seen, "runs/payload". */
        String seen() {
            return runs.get() + "/" + payloadSeen;
        }
    }

    /** The future's work: the kernel's plain write, and an optional gate it waits for first. */
    static final class Work {
        int payload;
        volatile boolean gateOpen;
        volatile boolean kernelTimedOut;
    }

    /** Waits (bounded) for both continuation futures, then reports "runs1/payload1 runs2/payload2". */
    static String verdict(CompletionFuture next1, CompletionFuture next2, Continuation c1, Continuation c2, Work work) {
        if (next1 == null || next2 == null) {
            return "NO_FUTURE";
        }
        if (!BoundedWait.until(() -> next1.isReady() && next2.isReady())) {
            return BoundedWait.TIMEOUT + " " + c1.seen() + " " + c2.seen();
        }
        if (work.kernelTimedOut) {
            return "KERNEL " + BoundedWait.TIMEOUT;
        }
        String failed = next1.isFailed() || next2.isFailed() ? " FAILED" : "";
        return c1.seen() + " " + c2.seen() + failed;
    }

    /** Two actors call {@code then} on the same future while its kernel completes. */
    @JCStressTest
    @Description("two threads call then() on one completion_future while its kernel completes: each continuation runs once, after the kernel")
    @Outcome(id = "THEN, THEN, 1/42 1/42", expect = ACCEPTABLE, desc = "each continuation ran once and saw the kernel's write")
    @Outcome(id = ".*, 0/.*|.* 0/-?[0-9]+.*", expect = FORBIDDEN, desc = "a continuation never ran")
    @Outcome(id = ".*, [2-9]/.*|.* [2-9]/-?[0-9]+.*", expect = FORBIDDEN, desc = "a continuation ran more than once")
    @Outcome(id = ".*/0 .*|.*/0", expect = FORBIDDEN, desc = "a continuation ran before the kernel's write was visible")
    @Outcome(id = ".*TIMEOUT.*", expect = FORBIDDEN, desc = "the future was never published or a continuation future never completed")
    @Outcome(expect = FORBIDDEN, desc = "anything else (a failed future)")
    @State
    public static class TwoThens {
        final Work work = new Work();
        final Continuation c1 = new Continuation(work);
        final Continuation c2 = new Continuation(work);
        volatile CompletionFuture future;
        volatile CompletionFuture next1;
        volatile CompletionFuture next2;

        /** Dispatches the work, publishes its future, chains the first continuation. */
        @Actor
        public void dispatcher(LLL_Result r) {
            Work w = work;
            CompletionFuture f = VIEW.parallelForEach(ONE, idx -> w.payload = PAYLOAD);
            future = f;
            next1 = f.then(c1);
            r.r1 = "THEN";
        }

        /** Waits for the future to be published, chains the second continuation. */
        @Actor
        public void chainer(LLL_Result r) {
            if (!BoundedWait.until(() -> future != null)) {
                r.r2 = BoundedWait.TIMEOUT;
                return;
            }
            next2 = future.then(c2);
            r.r2 = "THEN";
        }

        /** Waits for both continuations and reports what they saw. */
        @Arbiter
        public void arbiter(LLL_Result r) {
            r.r3 = verdict(next1, next2, c1, c2, work);
        }
    }

    /** One actor calls {@code then} while the other releases the kernel that completes the future. */
    @JCStressTest
    @Description("then() races with the completion of its completion_future: the continuation runs once, after the kernel")
    @Outcome(id = "THEN, OPENED, 1/42", expect = ACCEPTABLE, desc = "the continuation ran once and saw the kernel's write")
    @Outcome(id = ".*, 0/.*", expect = FORBIDDEN, desc = "the continuation never ran")
    @Outcome(id = ".*, [2-9]/.*", expect = FORBIDDEN, desc = "the continuation ran more than once")
    @Outcome(id = ".*/0", expect = FORBIDDEN, desc = "the continuation ran before the kernel's write was visible")
    @Outcome(id = ".*TIMEOUT.*", expect = FORBIDDEN, desc = "the kernel's gate or the continuation future never completed")
    @Outcome(expect = FORBIDDEN, desc = "anything else (a failed future)")
    @State
    public static class ThenVersusCompletion {
        final Work work = new Work();
        final Continuation c = new Continuation(work);
        volatile CompletionFuture next;

        /** The gated kernel: waits for the gate (bounded), then writes the payload. */
        static void gated(Work w) {
            if (BoundedWait.until(() -> w.gateOpen)) {
                w.payload = PAYLOAD;
            } else {
                w.kernelTimedOut = true;
            }
        }

        /** Dispatches the gated work and chains the continuation. */
        @Actor
        public void chainer(LLL_Result r) {
            Work w = work;
            CompletionFuture f = VIEW.parallelForEach(ONE, idx -> gated(w));
            next = f.then(c);
            r.r1 = "THEN";
        }

        /** Opens the gate. */
        @Actor
        public void completer(LLL_Result r) {
            work.gateOpen = true;
            r.r2 = "OPENED";
        }

        /** Waits for the continuation and reports what it saw. */
        @Arbiter
        public void arbiter(LLL_Result r) {
            CompletionFuture n = next;
            if (n == null) {
                r.r3 = "NO_FUTURE";
            } else if (!BoundedWait.until(n::isReady)) {
                r.r3 = BoundedWait.TIMEOUT + " " + c.seen();
            } else if (work.kernelTimedOut) {
                r.r3 = "KERNEL " + BoundedWait.TIMEOUT;
            } else {
                r.r3 = c.seen() + (n.isFailed() ? " FAILED" : "");
            }
        }
    }
}
