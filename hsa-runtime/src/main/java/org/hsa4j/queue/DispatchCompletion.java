package org.hsa4j.queue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.hsa4j.idle.Idler;
import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The end of one dispatch made with {@link Queue#dispatch}: a {@link Future} over the packet's
 * pooled completion signal.
 *
 * <p>A wait ({@link #join()}, {@link #get()}, {@link #isDone()} that answers true) that sees the
 * dispatch end records the outcome and gives the signal and kernarg block back to the queue's pool,
 * where the next launch re-arms them; so {@link #signal()} names this dispatch's signal only until
 * then. A failed dispatch (its queue's error, an aborted kernel) makes every wait throw its
 * {@link HsaException}. Waits are bounded or interruptible: {@link #join()} returns when the
 * dispatch ends, throws INVALID_RUNTIME_STATE on interrupt, and a kernel that waits for its own
 * dispatch (which cannot end before the kernel returns) fails at once with ERROR.
 */
public final class DispatchCompletion implements Future<Void> {
    /** Longest single signal wait; a loop of them re-checks the interrupt and the outcome. */
    private static final long CHUNK_NANOS = 100_000_000L;

    /** Where {@link #pooled} goes back once the end was seen. */
    private final CompletionPool pool;
    private final long queueId;
    private final long packetId;
    private final boolean barrierBit;
    private final Signal signal;
    /** The pooled resources to give back once a wait saw the end, or null (none, or given back); the settler's. */
    private CompletionPool.Slot pooled;
    /** Set once a wait saw the end (after {@link #failure}). */
    private volatile boolean settled;
    /** Taken by the one caller that settles. */
    @SuppressWarnings("unused")
    private volatile boolean claimed;
    private static final VarHandle CLAIMED;

    static {
        try {
            CLAIMED = MethodHandles.lookup().findVarHandle(DispatchCompletion.class, "claimed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** The failure a wait saw, or null; written before {@link #settled} is set. */
    private volatile HsaException failure;

    DispatchCompletion(CompletionPool pool, CompletionPool.Slot pooled, Signal signal, long queueId, long packetId,
                       boolean barrierBit) {
        this.pool = pool;
        this.pooled = pooled;
        this.signal = signal;
        this.queueId = queueId;
        this.packetId = packetId;
        this.barrierBit = barrierBit;
    }

    /** The packet's id in its queue. */
    public long packetId() {
        return packetId;
    }

    /**
     * The packet's completion signal (for a barrier packet's dependency, say); it goes back to the
     * queue's pool once a wait has seen the dispatch end, so use it only before that.
     */
    public Signal signal() {
        return signal;
    }

    /** Waits (BLOCKED) until the dispatch ended; throws its failure. */
    public void join() {
        join(WaitState.BLOCKED);
    }

    /**
     * Waits until the dispatch ended, spinning ({@code ACTIVE}) or parking ({@code BLOCKED}) as the
     * signal wait does; throws its failure.
     *
     * @throws HsaException the dispatch's failure; ERROR when a kernel waits for its own dispatch;
     *                      INVALID_RUNTIME_STATE when the thread is interrupted (its status stays set)
     */
    public void join(WaitState state) {
        if (!await(state, Long.MAX_VALUE)) {
            throw new HsaException(HsaStatus.INVALID_RUNTIME_STATE, "interrupted while waiting for packet "
                    + packetId + " of queue " + queueId);
        }
    }

    /** Waits at most {@code timeout}; true when the dispatch ended (its failure throws), false on timeout or interrupt. */
    public boolean join(long timeout, TimeUnit unit) {
        return await(WaitState.BLOCKED, unit.toNanos(timeout));
    }

    @Override
    public Void get() throws InterruptedException, ExecutionException {
        try {
            if (!await(WaitState.BLOCKED, Long.MAX_VALUE)) {
                Thread.interrupted();
                throw new InterruptedException("interrupted while waiting for packet " + packetId);
            }
        } catch (HsaException e) {
            throw new ExecutionException(e);
        }
        return null;
    }

    @Override
    public Void get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        boolean ended;
        try {
            ended = await(WaitState.BLOCKED, unit.toNanos(timeout));
        } catch (HsaException e) {
            throw new ExecutionException(e);
        }
        if (!ended) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for packet " + packetId);
            }
            throw new TimeoutException("packet " + packetId + " of queue " + queueId + " did not complete in time");
        }
        return null;
    }

    /** True once the dispatch ended (also when it failed); a true answer gives the signal back. */
    @Override
    public boolean isDone() {
        if (settled) {
            return true;
        }
        HsaException failed = signal.failure();
        if (failed != null) {
            settle(failed);
            return true;
        }
        if (signal.loadScacquire() == 0) {
            settle(null);
            return true;
        }
        return false;
    }

    /** A published packet cannot be taken back: always false. */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return false;
    }

    @Override
    public boolean isCancelled() {
        return false;
    }

    /** True when the dispatch ended in time; throws its failure; false on timeout or interrupt. */
    private boolean await(WaitState state, long timeoutNanos) {
        if (settled) {
            return outcome();
        }
        if (ComputeUnitThread.current() != null) {
            refuseWaitOnItself();
        }
        long chunk = Math.min(Math.max(timeoutNanos, 0), CHUNK_NANOS);
        if (waitedForEnd(state, chunk)) {
            return outcome();
        }
        long deadline = System.nanoTime() + Math.min(timeoutNanos - chunk, Long.MAX_VALUE / 4);
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || Thread.currentThread().isInterrupted()) {
                return false;
            }
            if (waitedForEnd(state, Math.min(left, CHUNK_NANOS))) {
                return outcome();
            }
        }
    }

    /** One bounded signal wait; true once the end was seen (here or by another waiter) and settled. */
    private boolean waitedForEnd(WaitState state, long nanos) {
        long v;
        try {
            v = signal.waitScacquire(SignalCondition.EQ, 0, nanos, state);
        } catch (HsaException e) {
            settle(e);
            return true;
        }
        if (settled) {
            return true;
        }
        if (v == 0) {
            settle(null);
            return true;
        }
        return false;
    }

    /** Records the outcome and gives the pooled resources back, once (the first caller wins). */
    private void settle(HsaException failed) {
        if (!CLAIMED.compareAndSet(this, false, true)) {
            // the winner is between its claim and its next three stores
            Idler idler = pool.idleStrategy().idler().blocker(this);
            while (!settled) {
                idler.idle();
            }
            return;
        }
        failure = failed;
        CompletionPool.Slot give = pooled;
        pooled = null;
        settled = true;
        if (give != null) {
            pool.give(give);
        }
    }

    private boolean outcome() {
        HsaException f = failure;
        if (f != null) {
            throw f;
        }
        return true;
    }

    /**
     * A kernel waiting for the dispatch that runs it, or for a later barrier-bit packet of its own
     * queue, would wait forever: those cannot end before it returns.
     */
    private void refuseWaitOnItself() {
        if (!(ComputeUnitThread.current().currentWork() instanceof RunningPacket running)
                || running.queueId() != queueId) {
            return;
        }
        if (running.packetId() == packetId || (barrierBit && packetId > running.packetId())) {
            throw new HsaException(HsaStatus.ERROR, "a kernel (packet " + running.packetId() + " of queue " + queueId
                    + ") waits for " + (running.packetId() == packetId ? "its own dispatch" : "packet " + packetId
                    + ", queued behind it with the barrier bit") + ", which cannot end before that kernel returns:"
                    + " the wait would never return");
        }
    }

    @Override
    public String toString() {
        return "DispatchCompletion[packet " + packetId + " of queue " + queueId + (settled ? ", done]" : "]");
    }
}
