package org.hsa4j.signal;

import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.idle.Idler;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * {@code hsa_signal_group_t}: a fixed set of signals that one thread waits on together with
 * {@link #waitAnyScacquire}. Waiting spins for a bounded time, then registers one waiter on every
 * member, looks at every member again with volatile loads, and parks only if none is satisfied;
 * this is {@link Signal}'s Dekker argument once per member, so no wake-up is lost. Parked, it
 * re-checks at least every {@link SignalManager#recheckNanos()} of its members, which bounds how
 * long a change made behind the API goes unseen.
 */
public final class SignalGroup implements AutoCloseable {
    private final List<Signal> signals;
    private final long recheckNanos;
    private volatile boolean destroyed;

    /** The outcome of a wait: which member satisfied its condition, and the value observed. */
    public record Satisfied(int index, Signal signal, long value) {
    }

    /** {@code hsa_signal_group_create}. */
    public SignalGroup(List<Signal> signals) {
        if (signals == null || signals.isEmpty()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "a signal group needs at least one signal");
        }
        for (Signal s : signals) {
            if (s == null || s.isDestroyed()) {
                throw new HsaException(HsaStatus.INVALID_SIGNAL, "a signal group member is null or destroyed");
            }
        }
        this.signals = List.copyOf(signals);
        this.recheckNanos = this.signals.stream().mapToLong(Signal::recheckNanos).min().orElseThrow();
    }

    /** The members, in order. */
    public List<Signal> signals() {
        checkLive();
        return signals;
    }

    /**
     * {@code hsa_signal_group_destroy}: later uses fail with INVALID_SIGNAL_GROUP; the member
     * signals stay alive, and a wait already in progress finishes as it would have.
     *
     * @throws HsaException INVALID_SIGNAL_GROUP when already destroyed
     */
    public void destroy() {
        synchronized (this) {
            if (destroyed) {
                throw new HsaException(HsaStatus.INVALID_SIGNAL_GROUP, "the signal group has already been destroyed");
            }
            destroyed = true;
        }
    }

    /** True once destroyed. */
    public boolean isDestroyed() {
        return destroyed;
    }

    /** Destroys the group unless it already is, for try-with-resources. */
    @Override
    public void close() {
        synchronized (this) {
            destroyed = true;
        }
    }

    private void checkLive() {
        if (destroyed) {
            throw new HsaException(HsaStatus.INVALID_SIGNAL_GROUP, "the signal group has been destroyed");
        }
    }

    /**
     * {@code hsa_signal_group_wait_any_scacquire}: waits until some member {@code i} satisfies
     * {@code conditions[i]} against {@code compareValues[i]}; returns it, or null when
     * {@code timeoutNanos} passed or the thread was interrupted first.
     */
    public Satisfied waitAnyScacquire(SignalCondition[] conditions, long[] compareValues, WaitState state,
                                      long timeoutNanos) {
        return waitAny(conditions, compareValues, state, timeoutNanos, true);
    }

    /** {@code hsa_signal_group_wait_any_relaxed}: as {@link #waitAnyScacquire} with relaxed loads. */
    public Satisfied waitAnyRelaxed(SignalCondition[] conditions, long[] compareValues, WaitState state,
                                    long timeoutNanos) {
        return waitAny(conditions, compareValues, state, timeoutNanos, false);
    }

    private Satisfied waitAny(SignalCondition[] conditions, long[] values, WaitState state, long timeoutNanos,
                              boolean acquire) {
        checkLive();
        if (state == null) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "a wait needs a wait state");
        }
        if (conditions == null || values == null || conditions.length != signals.size()
                || values.length != signals.size()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT,
                    "need one condition and one compare value per member (" + signals.size() + ")");
        }
        for (int i = 0; i < conditions.length; i++) {
            if (conditions[i] == null) {
                throw new HsaException(HsaStatus.INVALID_ARGUMENT, "condition " + i + " is null");
            }
        }
        Satisfied found = poll(conditions, values, acquire);
        if (found != null || timeoutNanos <= 0) {
            return found;
        }
        long deadline = System.nanoTime() + Math.min(timeoutNanos, Long.MAX_VALUE / 4);
        SignalManager manager = signals.get(0).slots.manager;
        Idler idler = (state == WaitState.ACTIVE ? manager.activeWait : manager.blockedWait).idler().blocker(this);
        Thread thread = Thread.currentThread();
        SignalWaiter self = null;
        try {
            while (true) {
                found = poll(conditions, values, acquire || self != null);
                if (found != null) {
                    return found;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0 || thread.isInterrupted()) {
                    return null;
                }
                if (self == null && idler.parksNext()) {
                    // registered before the look that precedes the park, so a change is never missed
                    self = s -> LockSupport.unpark(thread);
                    for (Signal s : signals) {
                        s.addWaiter(self);
                    }
                    continue;
                }
                idler.idle(Math.min(remaining, recheckNanos));
            }
        } finally {
            if (self != null) {
                for (Signal s : signals) {
                    s.removeWaiter(self);
                }
            }
        }
    }

    private Satisfied poll(SignalCondition[] conditions, long[] values, boolean acquire) {
        for (int i = 0; i < conditions.length; i++) {
            Signal s = signals.get(i);
            long v = acquire ? s.loadScacquire() : s.loadRelaxed();
            if (conditions[i].test(v, values[i])) {
                VarHandle.acquireFence();
                if (s.isDestroyed()) {
                    throw new HsaException(HsaStatus.INVALID_SIGNAL, "signal " + s + " in the group has been destroyed");
                }
                return new Satisfied(i, s, v);
            }
            HsaException failure = s.failure();
            if (failure != null) {
                throw new HsaException(failure.status(), "signal " + s + " in the group failed: " + failure.getMessage(), failure);
            }
        }
        return null;
    }
}
