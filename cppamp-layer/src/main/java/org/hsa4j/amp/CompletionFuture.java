package org.hsa4j.amp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.HsaStatus;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * The completion of an asynchronous operation ({@code hc::completion_future}): a kernel dispatch,
 * a marker, or a continuation.
 *
 * <h2>What backs it</h2>
 * A pending future owns an HSA signal with value 1 (from a pool), which is the completion signal
 * of its packet (or, for a continuation, is decremented by the continuation thread). Everything
 * observable is derived from that signal: the future completes when the signal reaches 0 (success)
 * or is failed (the packet's queue or kernel failed; the failure is kept). Because a future is a
 * signal, any future can be a dependency of a barrier-AND packet ({@link
 * AcceleratorView#createBlockingMarker}), and a chain of dispatches never needs the host.
 *
 * <h2>Who completes it</h2>
 * A pooled signal carries one permanent waiter that forwards to the future owning it (see
 * {@link FutureSignals}), set before the packet is published, so the thread that decrements or
 * fails the signal (a compute unit, for a kernel) completes the future right after, with a few
 * field writes and no waiter registration; a host thread that sees the signal first completes it
 * itself (completion is idempotent). Continuations are never run there: {@link #then} and friends
 * hand them to the layer's single continuation thread. No thread per callback, and the callback
 * list, the dispatch's launch (its captured values) and its dependencies are all dropped the moment
 * the future completes, so no capture outlives its dispatch (HCC's futures held dangling captures).
 *
 * <h2>When its signal is recycled</h2>
 * A reference count guards the signal: one reference for the completion itself, one per barrier
 * packet that names it as a dependency, one per host thread waiting on it. The last release
 * returns the signal to the pool, so a 64-byte SVM slot is reused as soon as nothing can read it.
 * Completed futures keep their outcome and timestamps in fields.
 *
 * <h2>Failures</h2>
 * A kernel that throws, a bad packet, a failed dependency or a continuation that throws fail the
 * future; {@link #get()} rethrows it as an {@link HsaException} whose cause chain holds the original
 * exception, and every future chained to this one fails with the same cause.
 */
public final class CompletionFuture {
    private static final int PENDING = 0;
    private static final int SUCCEEDED = 1;
    private static final int FAILED = 2;

    private final Amp amp;
    private final Object what;
    private final AtomicInteger refs;
    private volatile FutureSignals.Slot slot;
    private volatile int state;
    private HsaException failure;
    private long begin;
    private long end;
    private List<Consumer<CompletionFuture>> callbacks;
    private AcceleratorView launchView;
    private Launch launch;
    private int launchSlot;
    private Object[] held;

    private CompletionFuture(Amp amp, Object what, int state, HsaException failure) {
        this.amp = amp;
        this.what = what;
        this.state = state;
        this.failure = failure;
        this.refs = new AtomicInteger(state == PENDING ? 1 : 0);
    }

    /** A pending future whose signal (value 1) comes from the pool and is watched from now on. */
    static CompletionFuture pending(Amp amp, Object what) {
        CompletionFuture f = new CompletionFuture(amp, what, PENDING, null);
        f.slot = amp.signals().acquire(f);
        adopt(amp, f);
        return f;
    }

    /** A future that is already complete. */
    static CompletionFuture ready(Amp amp, Object what) {
        return new CompletionFuture(amp, what, SUCCEEDED, null);
    }

    /** A future that has already failed with {@code failure}. */
    static CompletionFuture failed(Amp amp, Object what, HsaException failure) {
        CompletionFuture f = new CompletionFuture(amp, what, FAILED, Objects.requireNonNull(failure));
        adopt(amp, f);
        return f;
    }

    /** Makes {@code f} part of the then() continuation running on this thread, if one is. */
    private static void adopt(Amp amp, CompletionFuture f) {
        Nest n = amp.continuations().currentNest();
        if (n != null) {
            n.adopt(f);
        }
    }

    // ---- waiting --------------------------------------------------------------------------------

    /**
     * Waits until complete (spinning first, {@link WaitState#ACTIVE}) and rethrows a failure.
     *
     * @throws HsaException the failure of the operation, with the original exception as its cause
     */
    public void get() {
        wait(WaitState.ACTIVE);
        if (state == FAILED) {
            throw failureForGet();
        }
    }

    /** Waits until complete, spinning ({@code ACTIVE}) or soon parking ({@code BLOCKED}); never throws the failure. */
    public void wait(WaitState mode) {
        Objects.requireNonNull(mode, "mode");
        awaitDone(mode, Long.MAX_VALUE);
    }

    /** Waits at most {@code timeout}; true when complete. */
    public boolean waitFor(Duration timeout) {
        return awaitDone(WaitState.BLOCKED, Math.max(0, timeout.toNanos()));
    }

    /** Waits at most {@code timeout} {@code unit}s; true when complete. */
    public boolean waitFor(long timeout, TimeUnit unit) {
        return awaitDone(WaitState.BLOCKED, Math.max(0, unit.toNanos(timeout)));
    }

    /** True once complete (successfully or not). */
    public boolean isReady() {
        if (state != PENDING) {
            return true;
        }
        if (retain()) {
            try {
                poll();
            } finally {
                release();
            }
        }
        return state != PENDING;
    }

    /** True once complete with a failure. */
    public boolean isFailed() {
        return isReady() && state == FAILED;
    }

    /** The failure, once failed; null otherwise. */
    public HsaException failure() {
        return state == FAILED ? failure : null;
    }

    /** Runtime timestamp (ns) at which the operation started; 0 until complete or if never started. */
    public long beginTimestamp() {
        return state != PENDING ? begin : 0;
    }

    /** Runtime timestamp (ns) at which the operation ended; 0 until complete or if never ended. */
    public long endTimestamp() {
        return state != PENDING ? end : 0;
    }

    /** Ticks per second of the timestamps. */
    public static long tickFrequency() {
        return HsaRuntime.TIMESTAMP_FREQUENCY;
    }

    private boolean awaitDone(WaitState mode, long timeoutNanos) {
        if (state != PENDING) {
            return true;
        }
        if (!retain()) {
            return true;
        }
        try {
            long start = System.nanoTime();
            ContinuationExecutor helper = amp.continuations();
            boolean onHelper = helper.isCurrentThread();
            // tasks run here while a continuation waits belong to no nest of the waiting one
            Nest waiting = onHelper ? helper.enter(null) : null;
            try {
                return helpOrWait(helper, onHelper, mode, timeoutNanos, start);
            } finally {
                if (onHelper) {
                    helper.enter(waiting);
                }
            }
        } finally {
            release();
        }
    }

    private boolean helpOrWait(ContinuationExecutor helper, boolean onHelper, WaitState mode, long timeoutNanos,
                               long start) {
        while (state == PENDING) {
            long left = timeoutNanos == Long.MAX_VALUE ? Long.MAX_VALUE
                    : timeoutNanos - (System.nanoTime() - start);
            if (left <= 0) {
                return false;
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new HsaException(HsaStatus.INVALID_RUNTIME_STATE, "interrupted while waiting for " + what);
            }
            if (onHelper && helper.runOne()) {
                continue;
            }
            try {
                long slice = onHelper ? Math.min(left, 50_000) : left;
                slot.signal.waitScacquire(SignalCondition.LT, 1, slice, mode);
            } catch (HsaException e) {
                // the signal was failed: poll() below records it
            }
            poll();
        }
        return true;
    }

    // ---- chaining -------------------------------------------------------------------------------

    /**
     * Runs {@code continuation} on the layer's continuation thread once this future has succeeded,
     * and returns a future that completes when it has run and every future it made meanwhile (its
     * dispatches, markers and nested then() chains) has completed. May be called any number of times,
     * before or after completion. If this future fails, the continuation does not run and the returned
     * future fails with the same cause; if the continuation throws, or a future it made fails, the
     * returned future fails with that cause, so a failure deep in a then()-inside-then() chain reaches
     * the outermost future. (A continuation must not wait, through a future it makes, for the future
     * this call returns: that one waits for it.)
     */
    public CompletionFuture then(Runnable continuation) {
        Objects.requireNonNull(continuation, "continuation");
        CompletionFuture next = pending(amp, new Described("continuation of ", what));
        whenDone(f -> amp.continuations().execute(() -> f.runContinuation(continuation, next)));
        return next;
    }

    /**
     * Once this future has succeeded, calls {@code next} on the continuation thread (typically to
     * dispatch another kernel) and returns a future that completes with the future {@code next}
     * returns. Failures flow through as with {@link #then}.
     */
    public CompletionFuture thenCompose(Supplier<CompletionFuture> next) {
        Objects.requireNonNull(next, "next");
        CompletionFuture outer = pending(amp, new Described("composition after ", what));
        whenDone(f -> amp.continuations().execute(() -> f.runComposition(next, outer)));
        return outer;
    }

    /** A {@link CompletableFuture} completed (on the continuation thread) when this future completes. */
    public CompletableFuture<Void> toCompletableFuture() {
        CompletableFuture<Void> cf = new CompletableFuture<>();
        whenDone(f -> amp.continuations().execute(() -> {
            if (f.state == FAILED) {
                cf.completeExceptionally(f.failureForGet());
            } else {
                cf.complete(null);
            }
        }));
        return cf;
    }

    private void runContinuation(Runnable continuation, CompletionFuture next) {
        Signal s = next.slot.signal;
        if (state == FAILED) {
            s.fail(failure);
            return;
        }
        s.recordStart(amp.runtime().timestamp());
        ContinuationExecutor ex = amp.continuations();
        Nest nest = new Nest(amp, s);
        Nest outer = ex.enter(nest);
        try {
            continuation.run();
        } catch (Throwable t) {
            nest.fail(new HsaException(HsaStatus.EXCEPTION, "continuation of " + what + " threw " + t, t));
        } finally {
            ex.enter(outer);
        }
        nest.arrive(null);
    }

    /**
     * A then() continuation and the futures made on the continuation thread while it ran: its future
     * (whose signal is {@code signal}) succeeds when the continuation and all of them have, and fails
     * with the first failure among them. Touched on the continuation thread only: each adopted
     * future's completion is handed there, which also keeps a deep nest from completing recursively.
     */
    static final class Nest {
        private final Amp amp;
        private final Signal signal;
        private int open = 1;
        private boolean settled;

        Nest(Amp amp, Signal signal) {
            this.amp = amp;
            this.signal = signal;
        }

        void adopt(CompletionFuture child) {
            open++;
            child.whenDone(c -> amp.continuations().execute(() -> arrive(c)));
        }

        /** One part is done: the continuation itself (null) or an adopted future. */
        void arrive(CompletionFuture child) {
            if (child != null && child.state == FAILED) {
                fail(child.failure);
            }
            if (--open == 0 && !settled) {
                settled = true;
                signal.recordEnd(amp.runtime().timestamp());
                signal.subtractScrelease(1);
            }
        }

        void fail(HsaException cause) {
            if (!settled) {
                settled = true;
                signal.fail(cause);
            }
        }
    }

    private void runComposition(Supplier<CompletionFuture> next, CompletionFuture outer) {
        Signal s = outer.slot.signal;
        if (state == FAILED) {
            s.fail(failure);
            return;
        }
        CompletionFuture inner;
        try {
            inner = Objects.requireNonNull(next.get(), "the composed supplier returned null");
        } catch (Throwable t) {
            s.fail(new HsaException(HsaStatus.EXCEPTION, "composition after " + what + " threw " + t, t));
            return;
        }
        inner.whenDone(g -> {
            if (g.state == FAILED) {
                s.fail(g.failure);
            } else {
                s.recordStart(g.begin);
                s.recordEnd(g.end);
                s.subtractScrelease(1);
            }
        });
    }

    /**
     * Calls {@code callback} once complete, on the completing thread, or now on the caller if
     * already complete. Callbacks must be short and must not block (they run on compute units).
     */
    void whenDone(Consumer<CompletionFuture> callback) {
        synchronized (this) {
            if (state == PENDING) {
                if (callbacks == null) {
                    callbacks = new ArrayList<>(2);
                }
                callbacks.add(callback);
                return;
            }
        }
        callback.accept(this);
    }

    /** Frees {@code slot} of {@code view}'s launch table at completion; called before publishing. */
    void holdLaunch(AcceleratorView view, int slot, Launch l) {
        launchView = view;
        launchSlot = slot;
        launch = l;
    }

    /**
     * Releases {@code things} at completion: retained dependency futures, and stand-in signals;
     * called before publishing.
     */
    void hold(Object[] things) {
        held = things;
    }

    // ---- completion -----------------------------------------------------------------------------

    /** Completes the future if its signal says so; idempotent, called by waiters of any thread. */
    void poll() {
        if (state != PENDING) {
            return;
        }
        FutureSignals.Slot sl = slot;
        if (sl == null) {
            return;
        }
        Signal s = sl.signal;
        HsaException f = s.failure();
        if (f != null) {
            finish(FAILED, f, s);
        } else if (s.loadScacquire() <= 0) {
            finish(SUCCEEDED, null, s);
        }
    }

    private void finish(int outcome, HsaException cause, Signal s) {
        List<Consumer<CompletionFuture>> cbs;
        synchronized (this) {
            if (state != PENDING) {
                return;
            }
            begin = s.startTimestamp();
            end = s.endTimestamp();
            failure = cause;
            cbs = callbacks;
            callbacks = null;
            state = outcome;
        }
        if (launch != null) {
            launchView.releaseSlot(launchSlot, launch);
            launch = null;
            launchView = null;
        }
        Object[] h = held;
        held = null;
        if (h != null) {
            for (Object o : h) {
                if (o instanceof CompletionFuture d) {
                    d.release();
                } else if (o instanceof FutureSignals.Slot standIn) {
                    amp.signals().recycle(standIn);
                }
            }
        }
        release();
        if (cbs != null) {
            for (Consumer<CompletionFuture> cb : cbs) {
                cb.accept(this);
            }
        }
    }

    /** Fails a pending future that never reached a queue. */
    void failUnsubmitted(HsaException cause) {
        FutureSignals.Slot sl = slot;
        if (sl != null && state == PENDING) {
            sl.signal.fail(cause);
            poll();
        }
    }

    /** Takes a reference on the signal; false when it is already released (the future is complete). */
    boolean retain() {
        while (true) {
            int r = refs.get();
            if (r == 0) {
                return false;
            }
            if (refs.compareAndSet(r, r + 1)) {
                return true;
            }
        }
    }

    /** Drops a reference; the last one recycles the signal. */
    void release() {
        if (refs.decrementAndGet() == 0) {
            FutureSignals.Slot sl = slot;
            slot = null;
            amp.signals().recycle(sl);
        }
    }

    /** The signal, while a reference is held. */
    Signal signal() {
        return slot.signal;
    }

    /** True once complete successfully (no waiting). */
    boolean succeeded() {
        return state == SUCCEEDED;
    }

    /** The failure of a completed future (no waiting). */
    HsaException failureCause() {
        return failure;
    }

    private HsaException failureForGet() {
        return new HsaException(failure.status(), what + " failed: " + failure.getMessage(), failure);
    }

    /** A description made into text only when shown. */
    record Described(String prefix, Object subject) {
        @Override
        public String toString() {
            return prefix + subject;
        }
    }

    @Override
    public String toString() {
        return "CompletionFuture[" + what + ", " + switch (state) {
            case PENDING -> "pending";
            case SUCCEEDED -> "ready";
            default -> "failed: " + failure.getMessage();
        } + "]";
    }
}
