package org.hsa4j.signal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaStatus;

/**
 * An HSA signal: a 64-bit value in a 64-byte SVM slot, with the operations and wait of
 * {@code hsa_signal_*}. A signal costs its slot and this object; it owns no thread.
 *
 * <h2>Orders</h2>
 * Method names carry the HSA order. {@code scacquire}/{@code screlease} are sequentially consistent
 * (volatile accesses); {@code relaxed} loads and silent stores are opaque; every read-modify-write
 * runs at volatile strength whatever its name says, which is a valid strengthening.
 *
 * <h2>Waking</h2>
 * A waiter spins for a bounded time, then registers a {@link SignalWaiter} and parks. Every
 * non-silent operation, after changing the value, reads the waiter list and wakes what it finds.
 * The value write and the waiter-list read on one side, and the waiter-list write and the value
 * read on the other, are all volatile, so they fall in one total order and no wake-up is lost
 * (relaxed stores add a full fence for the same reason). A value changed behind the API, by a
 * kernel writing the slot through plain memory or by a silent store, wakes nobody: parked waiters
 * re-check every {@link #RECHECK_NANOS}, so such a change is seen within that time.
 *
 * <h2>Failure</h2>
 * When the queue that would have decremented a completion signal fails, or the runtime shuts
 * down, the signal is marked failed: every wait on it throws the status instead of waiting forever.
 * A store of a new value re-arms a failed signal for reuse.
 */
public final class Signal {
    /** How long an ACTIVE wait spins before it parks (ROCR spins 200 us). */
    public static final long ACTIVE_SPIN_NANOS = 200_000;
    /** How long a BLOCKED wait spins before it parks. */
    public static final long BLOCKED_SPIN_NANOS = 5_000;
    /** Longest park between two looks at the value, bounding the cost of a change behind the API. */
    public static final long RECHECK_NANOS = 1_000_000;

    private static final VarHandle VALUE = ValueLayout.JAVA_LONG.varHandle();

    private final SignalManager manager;
    private final MemorySegment block;
    private final long offset;
    private final long handle;
    final int index;
    private volatile Object waiters;
    private volatile HsaException failure;
    private volatile boolean destroyed;

    Signal(SignalManager manager, MemorySegment block, long offset, long handle, int index) {
        this.manager = manager;
        this.block = block;
        this.offset = offset;
        this.handle = handle;
        this.index = index;
    }

    /** The opaque handle: the SVM address of the signal's slot. Goes into packets. */
    public long handle() {
        return handle;
    }

    // ---- loads ----------------------------------------------------------------------------------

    /** {@code hsa_signal_load_scacquire}: volatile load of the value. */
    public long loadScacquire() {
        checkLive();
        return (long) VALUE.getVolatile(block, offset + SignalDescriptor.VALUE);
    }

    /** {@code hsa_signal_load_relaxed}: opaque load of the value. */
    public long loadRelaxed() {
        checkLive();
        return (long) VALUE.getOpaque(block, offset + SignalDescriptor.VALUE);
    }

    // ---- stores ---------------------------------------------------------------------------------

    /** {@code hsa_signal_store_relaxed}: opaque store, then wakes waiters. Re-arms a failed signal. */
    public void storeRelaxed(long value) {
        checkLive();
        failure = null;
        VALUE.setOpaque(block, offset + SignalDescriptor.VALUE, value);
        VarHandle.fullFence();
        notifyWaiters();
    }

    /** {@code hsa_signal_store_screlease}: volatile store, then wakes waiters. Re-arms a failed signal. */
    public void storeScrelease(long value) {
        checkLive();
        failure = null;
        VALUE.setVolatile(block, offset + SignalDescriptor.VALUE, value);
        notifyWaiters();
    }

    /** {@code hsa_signal_silent_store_relaxed}: opaque store that wakes nobody. */
    public void silentStoreRelaxed(long value) {
        checkLive();
        failure = null;
        VALUE.setOpaque(block, offset + SignalDescriptor.VALUE, value);
    }

    /** {@code hsa_signal_silent_store_screlease}: volatile store that wakes nobody. */
    public void silentStoreScrelease(long value) {
        checkLive();
        failure = null;
        VALUE.setVolatile(block, offset + SignalDescriptor.VALUE, value);
    }

    // ---- exchange and compare-and-swap ----------------------------------------------------------

    /** {@code hsa_signal_exchange_scacq_screl}: returns the previous value. */
    public long exchangeScacqScrel(long value) {
        return exchange(value);
    }

    /** {@code hsa_signal_exchange_scacquire}: returns the previous value. */
    public long exchangeScacquire(long value) {
        return exchange(value);
    }

    /** {@code hsa_signal_exchange_screlease}: returns the previous value. */
    public long exchangeScrelease(long value) {
        return exchange(value);
    }

    /** {@code hsa_signal_exchange_relaxed}: returns the previous value. */
    public long exchangeRelaxed(long value) {
        return exchange(value);
    }

    private long exchange(long value) {
        checkLive();
        long previous = (long) VALUE.getAndSet(block, offset + SignalDescriptor.VALUE, value);
        notifyWaiters();
        return previous;
    }

    /** {@code hsa_signal_cas_scacq_screl}: returns the value found, {@code expected} on success. */
    public long casScacqScrel(long expected, long value) {
        return cas(expected, value);
    }

    /** {@code hsa_signal_cas_scacquire}: returns the value found, {@code expected} on success. */
    public long casScacquire(long expected, long value) {
        return cas(expected, value);
    }

    /** {@code hsa_signal_cas_screlease}: returns the value found, {@code expected} on success. */
    public long casScrelease(long expected, long value) {
        return cas(expected, value);
    }

    /** {@code hsa_signal_cas_relaxed}: returns the value found, {@code expected} on success. */
    public long casRelaxed(long expected, long value) {
        return cas(expected, value);
    }

    private long cas(long expected, long value) {
        checkLive();
        long witness = (long) VALUE.compareAndExchange(block, offset + SignalDescriptor.VALUE, expected, value);
        if (witness == expected) {
            notifyWaiters();
        }
        return witness;
    }

    // ---- arithmetic and bitwise -----------------------------------------------------------------

    /** {@code hsa_signal_add_scacq_screl}. */
    public void addScacqScrel(long value) {
        add(value);
    }

    /** {@code hsa_signal_add_scacquire}. */
    public void addScacquire(long value) {
        add(value);
    }

    /** {@code hsa_signal_add_screlease}. */
    public void addScrelease(long value) {
        add(value);
    }

    /** {@code hsa_signal_add_relaxed}. */
    public void addRelaxed(long value) {
        add(value);
    }

    /** {@code hsa_signal_subtract_scacq_screl}. */
    public void subtractScacqScrel(long value) {
        add(-value);
    }

    /** {@code hsa_signal_subtract_scacquire}. */
    public void subtractScacquire(long value) {
        add(-value);
    }

    /** {@code hsa_signal_subtract_screlease}. */
    public void subtractScrelease(long value) {
        add(-value);
    }

    /** {@code hsa_signal_subtract_relaxed}. */
    public void subtractRelaxed(long value) {
        add(-value);
    }

    private void add(long delta) {
        checkLive();
        VALUE.getAndAdd(block, offset + SignalDescriptor.VALUE, delta);
        notifyWaiters();
    }

    /** {@code hsa_signal_and_scacq_screl}. */
    public void andScacqScrel(long mask) {
        and(mask);
    }

    /** {@code hsa_signal_and_scacquire}. */
    public void andScacquire(long mask) {
        and(mask);
    }

    /** {@code hsa_signal_and_screlease}. */
    public void andScrelease(long mask) {
        and(mask);
    }

    /** {@code hsa_signal_and_relaxed}. */
    public void andRelaxed(long mask) {
        and(mask);
    }

    private void and(long mask) {
        checkLive();
        VALUE.getAndBitwiseAnd(block, offset + SignalDescriptor.VALUE, mask);
        notifyWaiters();
    }

    /** {@code hsa_signal_or_scacq_screl}. */
    public void orScacqScrel(long mask) {
        or(mask);
    }

    /** {@code hsa_signal_or_scacquire}. */
    public void orScacquire(long mask) {
        or(mask);
    }

    /** {@code hsa_signal_or_screlease}. */
    public void orScrelease(long mask) {
        or(mask);
    }

    /** {@code hsa_signal_or_relaxed}. */
    public void orRelaxed(long mask) {
        or(mask);
    }

    private void or(long mask) {
        checkLive();
        VALUE.getAndBitwiseOr(block, offset + SignalDescriptor.VALUE, mask);
        notifyWaiters();
    }

    /** {@code hsa_signal_xor_scacq_screl}. */
    public void xorScacqScrel(long mask) {
        xor(mask);
    }

    /** {@code hsa_signal_xor_scacquire}. */
    public void xorScacquire(long mask) {
        xor(mask);
    }

    /** {@code hsa_signal_xor_screlease}. */
    public void xorScrelease(long mask) {
        xor(mask);
    }

    /** {@code hsa_signal_xor_relaxed}. */
    public void xorRelaxed(long mask) {
        xor(mask);
    }

    private void xor(long mask) {
        checkLive();
        VALUE.getAndBitwiseXor(block, offset + SignalDescriptor.VALUE, mask);
        notifyWaiters();
    }

    // ---- waiting --------------------------------------------------------------------------------

    /**
     * {@code hsa_signal_wait_scacquire}: waits until the value satisfies {@code condition} against
     * {@code compare}, at most about {@code timeoutNanos}, and returns the value last observed
     * (with scacquire order). As the spec allows, it may return early: on timeout, or when the
     * thread is interrupted (the interrupt status stays set). Callers loop on the condition.
     *
     * @throws HsaException with the failing queue's status when the signal was failed, or
     *                      {@link HsaStatus#INVALID_SIGNAL} when it is destroyed while waiting
     */
    public long waitScacquire(SignalCondition condition, long compare, long timeoutNanos, WaitState state) {
        return await(condition, compare, timeoutNanos, state, true);
    }

    /** {@code hsa_signal_wait_relaxed}: as {@link #waitScacquire} with relaxed loads. */
    public long waitRelaxed(SignalCondition condition, long compare, long timeoutNanos, WaitState state) {
        return await(condition, compare, timeoutNanos, state, false);
    }

    private long load(boolean acquire) {
        return acquire ? (long) VALUE.getVolatile(block, offset + SignalDescriptor.VALUE)
                : (long) VALUE.getOpaque(block, offset + SignalDescriptor.VALUE);
    }

    private long await(SignalCondition condition, long compare, long timeoutNanos, WaitState state, boolean acquire) {
        Objects.requireNonNull(condition, "condition");
        Objects.requireNonNull(state, "state");
        checkLive();
        long value = load(acquire);
        if (condition.test(value, compare)) {
            return value;
        }
        checkFailure();
        if (timeoutNanos <= 0) {
            return value;
        }
        long start = System.nanoTime();
        long deadline = start + Math.min(timeoutNanos, Long.MAX_VALUE / 4);
        long spinEnd = start + Math.min(timeoutNanos, state == WaitState.ACTIVE ? ACTIVE_SPIN_NANOS : BLOCKED_SPIN_NANOS);
        for (int i = 1; ; i++) {
            Thread.onSpinWait();
            value = load(acquire);
            if (condition.test(value, compare)) {
                return value;
            }
            if ((i & 63) == 0) {
                checkFailure();
                if (System.nanoTime() - spinEnd >= 0) {
                    break;
                }
            }
        }
        Thread thread = Thread.currentThread();
        SignalWaiter self = s -> LockSupport.unpark(thread);
        addWaiter(self);
        try {
            while (true) {
                value = load(acquire);
                if (condition.test(value, compare)) {
                    return value;
                }
                checkFailure();
                checkLive();
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0 || thread.isInterrupted()) {
                    return value;
                }
                LockSupport.parkNanos(this, Math.min(remaining, RECHECK_NANOS));
            }
        } finally {
            removeWaiter(self);
        }
    }

    // ---- waiter list ----------------------------------------------------------------------------

    /** Registers {@code waiter} to be called after every non-silent change of the value. */
    public void addWaiter(SignalWaiter waiter) {
        synchronized (this) {
            Object w = waiters;
            if (w == null) {
                waiters = waiter;
            } else if (w instanceof SignalWaiter single) {
                waiters = new SignalWaiter[] {single, waiter};
            } else {
                SignalWaiter[] list = (SignalWaiter[]) w;
                SignalWaiter[] grown = Arrays.copyOf(list, list.length + 1);
                grown[list.length] = waiter;
                waiters = grown;
            }
        }
    }

    /** Removes one registration of {@code waiter}. */
    public void removeWaiter(SignalWaiter waiter) {
        synchronized (this) {
            Object w = waiters;
            if (w == waiter) {
                waiters = null;
            } else if (w instanceof SignalWaiter[] list) {
                for (int i = 0; i < list.length; i++) {
                    if (list[i] == waiter) {
                        SignalWaiter[] shrunk = new SignalWaiter[list.length - 1];
                        System.arraycopy(list, 0, shrunk, 0, i);
                        System.arraycopy(list, i + 1, shrunk, i, list.length - i - 1);
                        waiters = shrunk.length == 1 ? shrunk[0] : shrunk;
                        return;
                    }
                }
            }
        }
    }

    private void notifyWaiters() {
        Object w = waiters;
        if (w != null) {
            if (w instanceof SignalWaiter single) {
                single.signalChanged(this);
            } else {
                for (SignalWaiter waiter : (SignalWaiter[]) w) {
                    waiter.signalChanged(this);
                }
            }
        }
    }

    // ---- failure and lifetime -------------------------------------------------------------------

    /** Marks the signal failed with {@code cause}: current and later waits throw it until a store re-arms it. */
    public void fail(HsaException cause) {
        failure = Objects.requireNonNull(cause);
        VarHandle.fullFence();
        notifyWaiters();
    }

    /** The failure recorded on this signal, or null. */
    public HsaException failure() {
        return failure;
    }

    private void checkFailure() {
        HsaException f = failure;
        if (f != null) {
            throw new HsaException(f.status(), "signal " + this + " failed: " + f.getMessage(), f);
        }
    }

    private void checkLive() {
        if (destroyed) {
            throw new HsaException(HsaStatus.INVALID_SIGNAL, "signal " + this + " has been destroyed");
        }
    }

    /** True once destroyed. */
    public boolean isDestroyed() {
        return destroyed;
    }

    /** {@code hsa_signal_destroy}: frees the slot; waiters wake and fail with INVALID_SIGNAL. */
    public void destroy() {
        manager.destroy(this);
    }

    void markDestroyed() {
        destroyed = true;
        VarHandle.fullFence();
        notifyWaiters();
    }

    /** The dispatch start timestamp (ns) recorded by the packet processor, 0 if none. */
    public long startTimestamp() {
        return (long) VALUE.getVolatile(block, offset + SignalDescriptor.START_TS);
    }

    /** The dispatch end timestamp (ns) recorded by the packet processor, 0 if none. */
    public long endTimestamp() {
        return (long) VALUE.getVolatile(block, offset + SignalDescriptor.END_TS);
    }

    /** Records the dispatch start timestamp; called by the packet processor. */
    public void recordStart(long timestamp) {
        VALUE.setOpaque(block, offset + SignalDescriptor.START_TS, timestamp);
    }

    /** Records the dispatch end timestamp; called by the packet processor before the decrement. */
    public void recordEnd(long timestamp) {
        VALUE.setOpaque(block, offset + SignalDescriptor.END_TS, timestamp);
    }

    void initialize(long value, int kind) {
        block.set(ValueLayout.JAVA_INT, offset + SignalDescriptor.KIND, kind);
        VALUE.setOpaque(block, offset + SignalDescriptor.START_TS, 0L);
        VALUE.setOpaque(block, offset + SignalDescriptor.END_TS, 0L);
        VALUE.setVolatile(block, offset + SignalDescriptor.VALUE, value);
    }

    @Override
    public String toString() {
        return String.format("0x%x", handle);
    }
}
