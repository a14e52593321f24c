package org.hsa4j.amp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.queue.RunningPacket;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

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
 * hand them to the layer's single continuation thread. No thread per callback (the stage methods
 * below take one virtual thread per future that uses them), and the callback
 * list, the dispatch's launch (its captured values) and its dependencies are all dropped the moment
 * the future completes, so no capture outlives its dispatch (HCC's futures held dangling captures).
 *
 * <h2>When its signal is recycled</h2>
 * A reference count guards the signal: one reference for the completion itself, one per barrier
 * packet that names it as a dependency, one per host thread waiting on it. The last release
 * returns the signal to the pool, so a 64-byte SVM slot is reused as soon as nothing can read it.
 * A cancelled future keeps the completion reference (and its launch and dependencies) until its
 * signal finishes, that is until its packet retires, since the agent still writes the signal.
 * Completed futures keep their outcome and timestamps in fields.
 *
 * <h2>Failures</h2>
 * A kernel that throws, a bad packet, a failed dependency or a continuation that throws fail the
 * future; {@link #get()} rethrows it as an {@link HsaException} whose cause chain holds the original
 * exception, and every future chained to this one fails with the same cause.
 *
 * <h2>As a CompletionStage and a Future</h2>
 * It is a {@code CompletionStage<Void>}: the stage methods delegate to a {@link CompletableFuture}
 * made on first use and completed, when this future completes, by a task of its own on a virtual
 * thread ({@link #STAGE_EXECUTOR}), never on a compute unit and never on the continuation thread.
 * That decides where user code runs, by the JDK's rule: a non-async method ({@code thenApply},
 * {@code handle}, ...) runs its function on the caller if this future is already complete, else on
 * that virtual thread; so a function that blocks there stalls only its own chain, never another
 * future's continuation or a kernel. The {@code *Async} methods without an executor use
 * {@link #STAGE_EXECUTOR} too (a fresh virtual thread per task); those with one use it. The stages
 * they return are plain CompletableFutures (completing them does not touch this future). A function
 * given to a stage method of this future sees a failure as the {@link HsaException} itself (stages
 * further down see it in a {@code CompletionException}, as with any CompletableFuture); a
 * cancellation reaches them as a {@link CancellationException}. The layer's own {@link #then}, whose
 * continuations run in order on the single continuation thread, is unchanged; {@code
 * thenCompose(Supplier)} and the stage's {@code thenCompose(Function)} differ in the lambda's arity.
 *
 * <p>It is a {@code Future<Void>} with one difference from that interface's contract, kept for
 * C++AMP's {@code completion_future::get()} and every caller of it: {@link #get()} throws the
 * failure as an unchecked {@link HsaException}, not an {@code ExecutionException}. {@link
 * #get(long, TimeUnit)} follows the contract exactly (ExecutionException, TimeoutException,
 * InterruptedException).
 *
 * <h2>Cancellation</h2>
 * {@link #cancel} completes a pending future at once as cancelled: {@link #isCancelled()}, {@link
 * #get()} throws {@link CancellationException}, and every future and stage chained to it afterwards
 * fails (a dispatch made later with this future as a dependency gets a failed barrier dependency, as
 * for a failed future). What it does to the work: a packet cannot be taken back from an AQL queue,
 * so the packet stays and retires in order (work behind it on its view waits for it, then runs). A
 * kernel still waiting (for its dependencies or for earlier packets) runs none of its body; a kernel
 * already running skips the ranges and tiles not yet started, and those started run to their end
 * (tiled kernels that fall back to per-work-item barrier continuations run in full), so some of its
 * writes may land after cancel returns. A then() continuation not yet started does not run. A
 * barrier packet queued before the cancel with this future as a dependency sees the signal, not the
 * host's outcome: it waits for the packet to retire and then lets its own work run. The signal, the
 * launch table slot and the dependencies are freed when the packet retires, not at cancel.
 * {@code mayInterruptIfRunning} is ignored: kernels are not interrupted.
 */
public final class CompletionFuture implements CompletionStage<Void>, Future<Void> {
    /** Where stage completions and the stage's default async tasks run: a virtual thread per task. */
    static final Executor STAGE_EXECUTOR = task -> Thread.ofVirtual().name("hsa4j-amp-stage").start(task);

    private static final int PENDING = 0;
    private static final int SUCCEEDED = 1;
    private static final int FAILED = 2;
    private static final int CANCELLED = 3;

    private final Amp amp;
    private final Object what;
    private final AtomicInteger refs;
    private volatile FutureSignals.Slot slot;
    private volatile int state;
    /** True once the signal has finished and the launch, dependencies and signal were let go. */
    private volatile boolean retired;
    private volatile Stage stage;
    private HsaException failure;
    private long begin;
    private long end;
    private List<Consumer<CompletionFuture>> callbacks;
    /** The queue and packet id of the packet that completes this future, or -1 (not a view's packet). */
    private volatile long queueId = -1;
    private volatile long packetId = -1;
    private AcceleratorView launchView;
    private Launch launch;
    private int launchSlot;
    private Object[] held;

    private CompletionFuture(Amp amp, Object what, int state, HsaException failure) {
        this.amp = amp;
        this.what = what;
        this.state = state;
        this.retired = state != PENDING;
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
     * Waits until complete (spinning first, {@link WaitState#ACTIVE}) and rethrows a failure, as
     * C++AMP's {@code completion_future::get()}: unchecked, unlike {@link Future#get()}'s contract.
     *
     * @return null
     * @throws HsaException the failure of the operation, with the original exception as its cause
     * @throws CancellationException when cancelled
     */
    @Override
    public Void get() {
        wait(WaitState.ACTIVE);
        return outcome();
    }

    /**
     * Waits at most {@code timeout} {@code unit}s (parking soon) as {@link Future#get(long, TimeUnit)} says.
     *
     * @throws TimeoutException when not complete in time
     * @throws ExecutionException when failed; its cause is the {@link HsaException}
     * @throws CancellationException when cancelled
     * @throws InterruptedException when interrupted while waiting
     */
    @Override
    public Void get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        boolean done;
        try {
            done = awaitDone(WaitState.BLOCKED, Math.max(0, unit.toNanos(timeout)));
        } catch (HsaException e) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for " + what);
            }
            throw e;
        }
        if (!done) {
            throw new TimeoutException(what + " did not complete in " + timeout + " " + unit);
        }
        try {
            return outcome();
        } catch (HsaException e) {
            throw new ExecutionException(e.getMessage(), e);
        }
    }

    private Void outcome() {
        int st = state;
        if (st == CANCELLED) {
            throw cancellation();
        }
        if (st == FAILED) {
            throw failureForGet();
        }
        return null;
    }

    private CancellationException cancellation() {
        CancellationException c = new CancellationException(what + " was cancelled");
        c.initCause(failure);
        return c;
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

    /** True once complete with a failure or cancelled. */
    public boolean isFailed() {
        return isReady() && state != SUCCEEDED;
    }

    /** The failure, once failed or cancelled; null otherwise. */
    public HsaException failure() {
        int st = state;
        return st == FAILED || st == CANCELLED ? failure : null;
    }

    // ---- Future ---------------------------------------------------------------------------------

    /** As {@link #isReady()}. */
    @Override
    public boolean isDone() {
        return isReady();
    }

    /** True once cancelled by {@link #cancel}. */
    @Override
    public boolean isCancelled() {
        return state == CANCELLED;
    }

    /**
     * Completes this future as cancelled if it is still pending; what that does to its kernel or
     * continuation is in the class comment. Returns false when it had already completed.
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        poll();
        List<Consumer<CompletionFuture>> cbs;
        Launch l;
        synchronized (this) {
            if (state != PENDING) {
                return false;
            }
            failure = new HsaException(HsaStatus.ERROR, what + " was cancelled");
            cbs = callbacks;
            callbacks = null;
            l = launch;
            state = CANCELLED;
        }
        if (l != null) {
            l.cancelled = true;
        }
        if (cbs != null) {
            for (Consumer<CompletionFuture> cb : cbs) {
                cb.accept(this);
            }
        }
        return true;
    }

    /** RUNNING, SUCCESS, FAILED or CANCELLED, without waiting. */
    @Override
    public State state() {
        if (!isReady()) {
            return State.RUNNING;
        }
        return switch (state) {
            case SUCCEEDED -> State.SUCCESS;
            case CANCELLED -> State.CANCELLED;
            default -> State.FAILED;
        };
    }

    /**
     * Null once succeeded.
     *
     * @throws IllegalStateException when not complete or not succeeded
     */
    @Override
    public Void resultNow() {
        if (state() != State.SUCCESS) {
            throw new IllegalStateException(this + " has not succeeded");
        }
        return null;
    }

    /**
     * The {@link HsaException} once failed.
     *
     * @throws IllegalStateException when not complete or not failed (a cancelled future has not failed)
     */
    @Override
    public Throwable exceptionNow() {
        if (state() != State.FAILED) {
            throw new IllegalStateException(this + " has not failed");
        }
        return failureForGet();
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

    /** Records the packet that completes this future: packet {@code packet} of queue {@code queue}. */
    void submittedAt(long queue, long packet) {
        queueId = queue;
        packetId = packet;
    }

    /**
     * Refuses a wait that can never end: a kernel waiting for its own packet or a later one of the
     * in-order queue it runs from (every packet of a view has the barrier bit, so that packet starts only after the
     * waiting kernel ends), as {@code parallelForEachAndWait} on its own view from inside a kernel.
     */
    private void refuseWaitOnOwnQueue() {
        ComputeUnitThread unit = ComputeUnitThread.current();
        if (unit != null && unit.currentWork() instanceof RunningPacket running && queueId >= 0
                && running.queueId() == queueId && packetId >= running.packetId()) {
            throw new HsaException(HsaStatus.ERROR, "a kernel (packet " + running.packetId() + " of queue " + queueId
                    + ") waits for " + what + " (packet " + packetId + " of the same in-order queue), which cannot "
                    + "complete before that kernel ends: the wait would never return");
        }
    }

    private boolean awaitDone(WaitState mode, long timeoutNanos) {
        if (state != PENDING) {
            return true;
        }
        refuseWaitOnOwnQueue();
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

    /**
     * A new {@link CompletableFuture} completed with this future's outcome on a virtual thread of
     * its own (see the class comment), never on the continuation thread; completing it by hand does
     * not touch this future or other stages.
     */
    @Override
    public CompletableFuture<Void> toCompletableFuture() {
        CompletableFuture<Void> st = stage();
        CompletableFuture<Void> cf = st.newIncompleteFuture();
        st.whenComplete((v, t) -> {
            if (t == null) {
                cf.complete(null);
            } else if (t instanceof CancellationException) {
                cf.cancel(false);
            } else {
                cf.completeExceptionally(t);
            }
        });
        return cf;
    }

    private void runContinuation(Runnable continuation, CompletionFuture next) {
        Signal s = next.slot.signal;
        if (state != SUCCEEDED) {
            s.fail(failure);
            return;
        }
        if (next.state == CANCELLED) {
            s.subtractScrelease(1);
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
            if (child != null && child.state != SUCCEEDED) {
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
        if (state != SUCCEEDED) {
            s.fail(failure);
            return;
        }
        if (outer.state == CANCELLED) {
            s.subtractScrelease(1);
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
            if (g.state != SUCCEEDED) {
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
     * Releases {@code things} at completion: retained dependency futures, stand-in signals, and
     * runnables run once (a native dispatch's kernarg segment); called before publishing.
     */
    void hold(Object[] things) {
        held = things;
    }

    // ---- completion -----------------------------------------------------------------------------

    /** Completes the future if its signal says so; idempotent, called by waiters of any thread. */
    void poll() {
        if (retired) {
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
        List<Consumer<CompletionFuture>> cbs = null;
        synchronized (this) {
            if (retired) {
                return;
            }
            retired = true;
            begin = s.startTimestamp();
            end = s.endTimestamp();
            if (state == PENDING) {
                failure = cause;
                cbs = callbacks;
                callbacks = null;
                state = outcome;
            }
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
                } else if (o instanceof Runnable onRetire) {
                    onRetire.run();   // e.g. a native dispatch's kernarg segment
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

    /** Completes a pending future made for an outside stage: succeeded if {@code failure} is null, else failed. */
    void completeFromOutside(Throwable failure) {
        Signal s = slot.signal;
        if (failure == null) {
            long now = amp.runtime().timestamp();
            s.recordStart(now);
            s.recordEnd(now);
            s.subtractScrelease(1);
        } else {
            s.fail(new HsaException(HsaStatus.EXCEPTION, what + " failed: " + failure, failure));
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

    // ---- CompletionStage ------------------------------------------------------------------------

    /** The stage this future completes, made on first use (see the class comment). */
    private CompletableFuture<Void> stage() {
        Stage st = stage;
        if (st != null) {
            return st;
        }
        synchronized (this) {
            if (stage != null) {
                return stage;
            }
            st = new Stage();
            stage = st;
        }
        Stage made = st;
        if (state != PENDING) {
            completeStage(made);
        } else {
            whenDone(f -> STAGE_EXECUTOR.execute(() -> f.completeStage(made)));
        }
        return made;
    }

    private void completeStage(Stage st) {
        switch (state) {
            case SUCCEEDED -> st.complete(null);
            case CANCELLED -> st.cancel(false);
            default -> st.completeExceptionally(failureForGet());
        }
    }

    /** A CompletableFuture whose default executor, and its dependents', is {@link #STAGE_EXECUTOR}. */
    static final class Stage extends CompletableFuture<Void> {
        @Override
        public Executor defaultExecutor() {
            return STAGE_EXECUTOR;
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new StageOf<>();
        }
    }

    /** A dependent of a {@link Stage}, with the same default executor. */
    static final class StageOf<U> extends CompletableFuture<U> {
        @Override
        public Executor defaultExecutor() {
            return STAGE_EXECUTOR;
        }

        @Override
        public <V> CompletableFuture<V> newIncompleteFuture() {
            return new StageOf<>();
        }
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public <U> CompletionStage<U> thenApply(Function<? super Void, ? extends U> fn) {
        return stage().thenApply(fn);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public <U> CompletionStage<U> thenApplyAsync(Function<? super Void, ? extends U> fn) {
        return stage().thenApplyAsync(fn);
    }

    /** Runs on {@code executor}. */
    @Override
    public <U> CompletionStage<U> thenApplyAsync(Function<? super Void, ? extends U> fn, Executor executor) {
        return stage().thenApplyAsync(fn, executor);
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public CompletionStage<Void> thenAccept(Consumer<? super Void> action) {
        return stage().thenAccept(action);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public CompletionStage<Void> thenAcceptAsync(Consumer<? super Void> action) {
        return stage().thenAcceptAsync(action);
    }

    /** Runs on {@code executor}. */
    @Override
    public CompletionStage<Void> thenAcceptAsync(Consumer<? super Void> action, Executor executor) {
        return stage().thenAcceptAsync(action, executor);
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public CompletionStage<Void> thenRun(Runnable action) {
        return stage().thenRun(action);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public CompletionStage<Void> thenRunAsync(Runnable action) {
        return stage().thenRunAsync(action);
    }

    /** Runs on {@code executor}. */
    @Override
    public CompletionStage<Void> thenRunAsync(Runnable action, Executor executor) {
        return stage().thenRunAsync(action, executor);
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public <U, V> CompletionStage<V> thenCombine(CompletionStage<? extends U> other, BiFunction<? super Void, ? super U, ? extends V> fn) {
        return stage().thenCombine(other, fn);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public <U, V> CompletionStage<V> thenCombineAsync(CompletionStage<? extends U> other, BiFunction<? super Void, ? super U, ? extends V> fn) {
        return stage().thenCombineAsync(other, fn);
    }

    /** Runs on {@code executor}. */
    @Override
    public <U, V> CompletionStage<V> thenCombineAsync(CompletionStage<? extends U> other, BiFunction<? super Void, ? super U, ? extends V> fn, Executor executor) {
        return stage().thenCombineAsync(other, fn, executor);
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public <U> CompletionStage<Void> thenAcceptBoth(CompletionStage<? extends U> other, BiConsumer<? super Void, ? super U> action) {
        return stage().thenAcceptBoth(other, action);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public <U> CompletionStage<Void> thenAcceptBothAsync(CompletionStage<? extends U> other, BiConsumer<? super Void, ? super U> action) {
        return stage().thenAcceptBothAsync(other, action);
    }

    /** Runs on {@code executor}. */
    @Override
    public <U> CompletionStage<Void> thenAcceptBothAsync(CompletionStage<? extends U> other, BiConsumer<? super Void, ? super U> action, Executor executor) {
        return stage().thenAcceptBothAsync(other, action, executor);
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public CompletionStage<Void> runAfterBoth(CompletionStage<?> other, Runnable action) {
        return stage().runAfterBoth(other, action);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public CompletionStage<Void> runAfterBothAsync(CompletionStage<?> other, Runnable action) {
        return stage().runAfterBothAsync(other, action);
    }

    /** Runs on {@code executor}. */
    @Override
    public CompletionStage<Void> runAfterBothAsync(CompletionStage<?> other, Runnable action, Executor executor) {
        return stage().runAfterBothAsync(other, action, executor);
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public <U> CompletionStage<U> applyToEither(CompletionStage<? extends Void> other, Function<? super Void, U> fn) {
        return stage().applyToEither(other, fn);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public <U> CompletionStage<U> applyToEitherAsync(CompletionStage<? extends Void> other, Function<? super Void, U> fn) {
        return stage().applyToEitherAsync(other, fn);
    }

    /** Runs on {@code executor}. */
    @Override
    public <U> CompletionStage<U> applyToEitherAsync(CompletionStage<? extends Void> other, Function<? super Void, U> fn, Executor executor) {
        return stage().applyToEitherAsync(other, fn, executor);
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public CompletionStage<Void> acceptEither(CompletionStage<? extends Void> other, Consumer<? super Void> action) {
        return stage().acceptEither(other, action);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public CompletionStage<Void> acceptEitherAsync(CompletionStage<? extends Void> other, Consumer<? super Void> action) {
        return stage().acceptEitherAsync(other, action);
    }

    /** Runs on {@code executor}. */
    @Override
    public CompletionStage<Void> acceptEitherAsync(CompletionStage<? extends Void> other, Consumer<? super Void> action, Executor executor) {
        return stage().acceptEitherAsync(other, action, executor);
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public CompletionStage<Void> runAfterEither(CompletionStage<?> other, Runnable action) {
        return stage().runAfterEither(other, action);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public CompletionStage<Void> runAfterEitherAsync(CompletionStage<?> other, Runnable action) {
        return stage().runAfterEitherAsync(other, action);
    }

    /** Runs on {@code executor}. */
    @Override
    public CompletionStage<Void> runAfterEitherAsync(CompletionStage<?> other, Runnable action, Executor executor) {
        return stage().runAfterEitherAsync(other, action, executor);
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public <U> CompletionStage<U> thenCompose(Function<? super Void, ? extends CompletionStage<U>> fn) {
        return stage().thenCompose(fn);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public <U> CompletionStage<U> thenComposeAsync(Function<? super Void, ? extends CompletionStage<U>> fn) {
        return stage().thenComposeAsync(fn);
    }

    /** Runs on {@code executor}. */
    @Override
    public <U> CompletionStage<U> thenComposeAsync(Function<? super Void, ? extends CompletionStage<U>> fn, Executor executor) {
        return stage().thenComposeAsync(fn, executor);
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public <U> CompletionStage<U> handle(BiFunction<? super Void, Throwable, ? extends U> fn) {
        return stage().handle(fn);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public <U> CompletionStage<U> handleAsync(BiFunction<? super Void, Throwable, ? extends U> fn) {
        return stage().handleAsync(fn);
    }

    /** Runs on {@code executor}. */
    @Override
    public <U> CompletionStage<U> handleAsync(BiFunction<? super Void, Throwable, ? extends U> fn, Executor executor) {
        return stage().handleAsync(fn, executor);
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public CompletionStage<Void> whenComplete(BiConsumer<? super Void, ? super Throwable> action) {
        return stage().whenComplete(action);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public CompletionStage<Void> whenCompleteAsync(BiConsumer<? super Void, ? super Throwable> action) {
        return stage().whenCompleteAsync(action);
    }

    /** Runs on {@code executor}. */
    @Override
    public CompletionStage<Void> whenCompleteAsync(BiConsumer<? super Void, ? super Throwable> action, Executor executor) {
        return stage().whenCompleteAsync(action, executor);
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public CompletionStage<Void> exceptionally(Function<Throwable, ? extends Void> fn) {
        return stage().exceptionally(fn);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public CompletionStage<Void> exceptionallyAsync(Function<Throwable, ? extends Void> fn) {
        return stage().exceptionallyAsync(fn);
    }

    /** Runs on {@code executor}. */
    @Override
    public CompletionStage<Void> exceptionallyAsync(Function<Throwable, ? extends Void> fn, Executor executor) {
        return stage().exceptionallyAsync(fn, executor);
    }

    /** Runs on the caller if complete, else on this future's stage thread (never the continuation thread). */
    @Override
    public CompletionStage<Void> exceptionallyCompose(Function<Throwable, ? extends CompletionStage<Void>> fn) {
        return stage().exceptionallyCompose(fn);
    }

    /** Runs on a fresh virtual thread ({@link #STAGE_EXECUTOR}). */
    @Override
    public CompletionStage<Void> exceptionallyComposeAsync(Function<Throwable, ? extends CompletionStage<Void>> fn) {
        return stage().exceptionallyComposeAsync(fn);
    }

    /** Runs on {@code executor}. */
    @Override
    public CompletionStage<Void> exceptionallyComposeAsync(Function<Throwable, ? extends CompletionStage<Void>> fn, Executor executor) {
        return stage().exceptionallyComposeAsync(fn, executor);
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
            case CANCELLED -> "cancelled";
            default -> "failed: " + failure.getMessage();
        } + "]";
    }
}
