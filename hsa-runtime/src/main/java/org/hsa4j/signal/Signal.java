package org.hsa4j.signal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;
import org.hsa4j.memory.Abortable;
import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.SvmAccess;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.hsa4j.trace.WaitTrace;

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
 * A waiter spins for a bounded time, then registers a {@link SignalWaiter} (a volatile write of the
 * waiter list), re-reads the value with a volatile load, and parks only if the condition still
 * fails. Every non-silent operation first changes the value (a volatile store or a read-modify-write;
 * a relaxed store is followed by a full fence) and then reads the waiter list with a volatile load,
 * waking what it finds. Each side writes its own variable and then reads the other's, all in the one
 * total order of synchronizing accesses (Dekker), so they cannot both miss: either the waiter's
 * re-read sees the new value, or the notifier sees the waiter and unparks it, and an unpark that
 * comes before the park makes the park return at once. The same holds for {@link #fail} and
 * {@link #destroy}, which write their flag, fence, and then notify. The re-read is volatile in
 * {@link #waitRelaxed} too (a strengthening), because an opaque load could be satisfied before the
 * registration is visible. A value changed behind the API, by a kernel writing the slot through
 * memory or by a silent store, wakes nobody: a parked waiter is looked after by the JVM's
 * {@link SignalWatch}, which reads its signal once per {@link SignalManager#recheckNanos()}
 * ({@link #RECHECK_NANOS} in a runtime) and unparks it when the value changed, so such a change is
 * seen within about that time, and the waiter's own park arms no timer. (A waiter on a compute
 * unit, one with less than a period left, or one the watch has no room for parks on a timer of
 * that period instead.)
 *
 * <h2>Failure and lifetime</h2>
 * When the queue that would have decremented a completion signal fails, or the runtime shuts
 * down, the signal is marked failed: every wait on it throws the status instead of waiting forever.
 * A store of a new value re-arms a failed signal for reuse. After {@link #destroy} every operation
 * throws INVALID_SIGNAL; a wait returns a value only after checking, following its load, that the
 * signal was still live, so it never reports the value of a later signal reusing the slot. Once the
 * runtime has released the memory, operations throw the runtime's shutdown status.
 *
 * <p>On a compute unit every operation, and every round of a wait, is an abort point
 * ({@link ComputeUnitThread#checkAbort()}): a kernel waiting on a signal when its dispatch is
 * aborted unwinds within one recheck period.
 */
public final class Signal {
    /** How long an ACTIVE wait stays busy (spins, then yields) before it parks (ROCR spins 200 us); a BLOCKED wait's budget comes from the machine ({@link org.hsa4j.idle.IdleStrategy}). */
    public static final long ACTIVE_SPIN_NANOS = 200_000;
    /** Longest park between two looks at the value in a runtime, bounding the cost of a change behind the API. */
    public static final long RECHECK_NANOS = 1_000_000;

    private static final VarHandle VALUE = ValueLayout.JAVA_LONG.varHandle();

    private static final int EXCHANGE = 0;
    private static final int ADD = 1;
    private static final int AND = 2;
    private static final int OR = 3;
    private static final int XOR = 4;

    /** Order bits of a read-modify-write: its acquire half, its release half (fidelity mode acts on them). */
    private static final int SCACQUIRE = 1;
    private static final int SCRELEASE = 2;

    /** The 4 KiB block holding the slot; it knows the manager and the block's SVM address. */
    final SignalManager.Block slots;
    /** The block's memory, kept here so that an operation costs one dependent load. */
    private final MemorySegment block;
    /** Byte offset of the slot in the block. */
    final int offset;
    /** The runtime's access strategy: a kernel's scacquire/screlease operation acquires/releases through it at system scope. */
    private final SvmAccess access;
    private volatile Object waiters;
    private volatile HsaException failure;
    private volatile boolean destroyed;

    Signal(SignalManager.Block slots, int offset) {
        this.slots = slots;
        this.block = slots.allocation.segment();
        this.offset = offset;
        this.access = slots.manager.access;
    }

    /** The opaque handle: the SVM address of the signal's slot. Goes into packets. */
    public long handle() {
        return slots.allocation.base() + offset;
    }

    // ---- loads ----------------------------------------------------------------------------------

    /** {@code hsa_signal_load_scacquire}: volatile load of the value. */
    public long loadScacquire() {
        checkLive();
        long value = load(true);
        acquiring(SCACQUIRE);
        return value;
    }

    /**
     * Load of the value with an explicit {@link MemoryOrder}: {@code RELAXED} is
     * {@link #loadRelaxed()}, {@code ACQUIRE} and {@code SEQ_CST} are {@link #loadScacquire()}.
     *
     * @throws HsaException INVALID_ARGUMENT for an order a load cannot have (RELEASE, ACQ_REL)
     */
    public long load(MemoryOrder order) {
        return switch (order) {
            case RELAXED -> loadRelaxed();
            case ACQUIRE, SEQ_CST -> loadScacquire();
            default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT, "a signal load cannot be " + order);
        };
    }

    /** {@code hsa_signal_load_relaxed}: opaque load of the value. */
    public long loadRelaxed() {
        checkLive();
        return load(false);
    }

    // ---- stores ---------------------------------------------------------------------------------

    /** {@code hsa_signal_store_relaxed}: opaque store, then wakes waiters. Re-arms a failed signal. */
    public void storeRelaxed(long value) {
        checkLive();
        rearm();
        store(value, false);
        VarHandle.fullFence();
        notifyWaiters();
    }

    /** {@code hsa_signal_store_screlease}: volatile store, then wakes waiters. Re-arms a failed signal. */
    public void storeScrelease(long value) {
        checkLive();
        releasing(SCRELEASE);
        rearm();
        store(value, true);
        notifyWaiters();
    }

    /**
     * Store of the value with an explicit {@link MemoryOrder}, waking waiters: {@code RELAXED} is
     * {@link #storeRelaxed}, {@code RELEASE} and {@code SEQ_CST} are {@link #storeScrelease}.
     *
     * @throws HsaException INVALID_ARGUMENT for an order a store cannot have (ACQUIRE, ACQ_REL)
     */
    public void store(long value, MemoryOrder order) {
        switch (order) {
            case RELAXED -> storeRelaxed(value);
            case RELEASE, SEQ_CST -> storeScrelease(value);
            default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT, "a signal store cannot be " + order);
        }
    }

    /** {@code hsa_signal_silent_store_relaxed}: opaque store that wakes nobody. Re-arms a failed signal. */
    public void silentStoreRelaxed(long value) {
        checkLive();
        rearm();
        store(value, false);
    }

    /** {@code hsa_signal_silent_store_screlease}: volatile store that wakes nobody. Re-arms a failed signal. */
    public void silentStoreScrelease(long value) {
        checkLive();
        releasing(SCRELEASE);
        rearm();
        store(value, true);
    }

    // ---- exchange and compare-and-swap ----------------------------------------------------------

    /** {@code hsa_signal_exchange_scacq_screl}: returns the previous value. */
    public long exchangeScacqScrel(long value) {
        return update(EXCHANGE, value, SCACQUIRE | SCRELEASE);
    }

    /** {@code hsa_signal_exchange_scacquire}: returns the previous value. */
    public long exchangeScacquire(long value) {
        return update(EXCHANGE, value, SCACQUIRE);
    }

    /** {@code hsa_signal_exchange_screlease}: returns the previous value. */
    public long exchangeScrelease(long value) {
        return update(EXCHANGE, value, SCRELEASE);
    }

    /** {@code hsa_signal_exchange_relaxed}: returns the previous value. */
    public long exchangeRelaxed(long value) {
        return update(EXCHANGE, value, 0);
    }

    /** {@code hsa_signal_cas_scacq_screl}: returns the value found, {@code expected} on success. */
    public long casScacqScrel(long expected, long value) {
        return cas(expected, value, SCACQUIRE | SCRELEASE);
    }

    /** {@code hsa_signal_cas_scacquire}: returns the value found, {@code expected} on success. */
    public long casScacquire(long expected, long value) {
        return cas(expected, value, SCACQUIRE);
    }

    /** {@code hsa_signal_cas_screlease}: returns the value found, {@code expected} on success. */
    public long casScrelease(long expected, long value) {
        return cas(expected, value, SCRELEASE);
    }

    /** {@code hsa_signal_cas_relaxed}: returns the value found, {@code expected} on success. */
    public long casRelaxed(long expected, long value) {
        return cas(expected, value, 0);
    }

    private long cas(long expected, long value, int order) {
        checkLive();
        releasing(order);
        long witness;
        try {
            witness = (long) VALUE.compareAndExchange(block, offset + SignalDescriptor.VALUE, expected, value);
        } catch (IllegalStateException e) {
            throw released(e);
        }
        acquiring(order);
        if (witness == expected) {
            notifyWaiters();
        }
        return witness;
    }

    // ---- arithmetic and bitwise -----------------------------------------------------------------

    /** {@code hsa_signal_add_scacq_screl}. */
    public void addScacqScrel(long value) {
        update(ADD, value, SCACQUIRE | SCRELEASE);
    }

    /** {@code hsa_signal_add_scacquire}. */
    public void addScacquire(long value) {
        update(ADD, value, SCACQUIRE);
    }

    /** {@code hsa_signal_add_screlease}. */
    public void addScrelease(long value) {
        update(ADD, value, SCRELEASE);
    }

    /** {@code hsa_signal_add_relaxed}. */
    public void addRelaxed(long value) {
        update(ADD, value, 0);
    }

    /** {@code hsa_signal_subtract_scacq_screl}. */
    public void subtractScacqScrel(long value) {
        update(ADD, -value, SCACQUIRE | SCRELEASE);
    }

    /** {@code hsa_signal_subtract_scacquire}. */
    public void subtractScacquire(long value) {
        update(ADD, -value, SCACQUIRE);
    }

    /** {@code hsa_signal_subtract_screlease}. */
    public void subtractScrelease(long value) {
        update(ADD, -value, SCRELEASE);
    }

    /** {@code hsa_signal_subtract_relaxed}. */
    public void subtractRelaxed(long value) {
        update(ADD, -value, 0);
    }

    /** {@code hsa_signal_and_scacq_screl}. */
    public void andScacqScrel(long mask) {
        update(AND, mask, SCACQUIRE | SCRELEASE);
    }

    /** {@code hsa_signal_and_scacquire}. */
    public void andScacquire(long mask) {
        update(AND, mask, SCACQUIRE);
    }

    /** {@code hsa_signal_and_screlease}. */
    public void andScrelease(long mask) {
        update(AND, mask, SCRELEASE);
    }

    /** {@code hsa_signal_and_relaxed}. */
    public void andRelaxed(long mask) {
        update(AND, mask, 0);
    }

    /** {@code hsa_signal_or_scacq_screl}. */
    public void orScacqScrel(long mask) {
        update(OR, mask, SCACQUIRE | SCRELEASE);
    }

    /** {@code hsa_signal_or_scacquire}. */
    public void orScacquire(long mask) {
        update(OR, mask, SCACQUIRE);
    }

    /** {@code hsa_signal_or_screlease}. */
    public void orScrelease(long mask) {
        update(OR, mask, SCRELEASE);
    }

    /** {@code hsa_signal_or_relaxed}. */
    public void orRelaxed(long mask) {
        update(OR, mask, 0);
    }

    /** {@code hsa_signal_xor_scacq_screl}. */
    public void xorScacqScrel(long mask) {
        update(XOR, mask, SCACQUIRE | SCRELEASE);
    }

    /** {@code hsa_signal_xor_scacquire}. */
    public void xorScacquire(long mask) {
        update(XOR, mask, SCACQUIRE);
    }

    /** {@code hsa_signal_xor_screlease}. */
    public void xorScrelease(long mask) {
        update(XOR, mask, SCRELEASE);
    }

    /** {@code hsa_signal_xor_relaxed}. */
    public void xorRelaxed(long mask) {
        update(XOR, mask, 0);
    }

    /** One read-modify-write at volatile strength, then the wake-up; returns the previous value. */
    private long update(int op, long operand, int order) {
        checkLive();
        releasing(order);
        long previous;
        long at = offset + SignalDescriptor.VALUE;
        try {
            previous = switch (op) {
                case EXCHANGE -> (long) VALUE.getAndSet(block, at, operand);
                case ADD -> (long) VALUE.getAndAdd(block, at, operand);
                case AND -> (long) VALUE.getAndBitwiseAnd(block, at, operand);
                case OR -> (long) VALUE.getAndBitwiseOr(block, at, operand);
                default -> (long) VALUE.getAndBitwiseXor(block, at, operand);
            };
        } catch (IllegalStateException e) {
            throw released(e);
        }
        acquiring(order);
        notifyWaiters();
        return previous;
    }

    // ---- waiting --------------------------------------------------------------------------------

    /**
     * {@code hsa_signal_wait_scacquire}: waits until the value satisfies {@code condition} against
     * {@code compare}, at most about {@code timeoutNanos}, and returns the value last observed
     * (with scacquire order). As the spec allows, it may return early: on timeout, or when the
     * thread is interrupted (the interrupt status stays set). Callers loop on the condition.
     *
     * @throws HsaException with the failing queue's status when the signal was failed,
     *                      {@link HsaStatus#INVALID_SIGNAL} when it is destroyed while waiting, or
     *                      {@link HsaStatus#INVALID_ARGUMENT} for a null condition or wait state
     */
    public long waitScacquire(SignalCondition condition, long compare, long timeoutNanos, WaitState state) {
        long value = await(condition, compare, timeoutNanos, state, true);
        acquiring(SCACQUIRE);
        return value;
    }

    /** The strategy's release half of a screlease operation (system scope; fidelity mode: a kernel's or host thread's caches). */
    private void releasing(int order) {
        if ((order & SCRELEASE) != 0) {
            access.release(MemoryScope.SYSTEM);
        }
    }

    /** The strategy's acquire half of a scacquire operation or wait (system scope). */
    private void acquiring(int order) {
        if ((order & SCACQUIRE) != 0) {
            access.acquire(MemoryScope.SYSTEM);
        }
    }

    /** {@code hsa_signal_wait_relaxed}: as {@link #waitScacquire} with relaxed loads. */
    public long waitRelaxed(SignalCondition condition, long compare, long timeoutNanos, WaitState state) {
        return await(condition, compare, timeoutNanos, state, false);
    }

    private long await(SignalCondition condition, long compare, long timeoutNanos, WaitState state, boolean acquire) {
        if (condition == null || state == null) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "a wait needs a condition and a wait state");
        }
        checkLive();
        long value = load(acquire);
        if (condition.test(value, compare)) {
            return confirmed(value);
        }
        checkFailure();
        if (timeoutNanos <= 0) {
            return value;
        }
        refuseWaitOnOwnCompletion();
        WaitTrace trace = slots.manager.tracer.waitBegins(handle());
        long deadline = System.nanoTime() + Math.min(timeoutNanos, Long.MAX_VALUE / 4);
        Idler idler = (state == WaitState.ACTIVE ? slots.manager.activeWait : slots.manager.blockedWait).idler().blocker(this);
        if (state == WaitState.BLOCKED && slots.manager.blockedWait.coreSharing().onCompletionCpu()) {
            idler.yieldCoreAtOnce(); // the unit that signals runs on this core: a spin would only delay it
        }
        Thread thread = Thread.currentThread();
        SignalWaiter self = null;
        SignalWatch.Parked watched = null;
        long recheck = slots.manager.recheckNanos();
        try {
            while (true) {
                value = load(acquire || self != null);
                if (condition.test(value, compare)) {
                    return confirmed(value);
                }
                if (idler.nextPhase() != IdleStrategy.Phase.SPIN || (idler.steps() & 63) == 63) {
                    checkFailure();
                    checkLive();
                    long remaining = deadline - System.nanoTime();
                    if (remaining <= 0 || thread.isInterrupted()) {
                        return value;
                    }
                    if (self == null && idler.parksNext()) {
                        // registered before the look that precedes the park, so a change is never missed
                        self = s -> LockSupport.unpark(thread);
                        addWaiter(self);
                        continue;
                    }
                    if (idler.parksNext() && remaining > recheck && !(thread instanceof ComputeUnitThread)) {
                        if (watched == null) {
                            watched = new SignalWatch.Parked(thread, this, recheck, deadline);
                            watched.saw(value);
                            SignalWatch.get().register(watched);
                        }
                        if (watched.watched()) {
                            watched.saw(value);
                            idler.idle(IdleStrategy.UNTIMED); // the watch looks behind the API for this wait
                            continue;
                        }
                    }
                    idler.idle(Math.min(remaining, recheck));
                } else {
                    idler.idle();
                }
            }
        } finally {
            if (watched != null) {
                SignalWatch.get().unregister(watched);
            }
            if (self != null) {
                removeWaiter(self);
            }
            trace.ended(self != null);
        }
    }

    /**
     * A kernel waiting for a change of its own packet's completion signal would wait forever: the
     * signal changes only after the kernel returns. Fails the wait at once with ERROR instead.
     */
    private void refuseWaitOnOwnCompletion() {
        ComputeUnitThread unit = ComputeUnitThread.current();
        if (unit == null) {
            return;
        }
        Abortable work = unit.currentWork();
        if (work != null && work.completionSignalHandle() == handle()) {
            throw new HsaException(HsaStatus.ERROR, "a kernel waits on its own packet's completion signal "
                    + this + ", which changes only after the kernel returns: the wait would never return");
        }
    }

    /** A value that satisfied a wait, once the signal is known to have been live when it was read. */
    private long confirmed(long value) {
        VarHandle.acquireFence();
        checkLive();
        return value;
    }

    /** The longest a parked waiter of this signal sleeps between two looks at the value. */
    long recheckNanos() {
        return slots.manager.recheckNanos();
    }

    // ---- waiter list ----------------------------------------------------------------------------

    /** Registers {@code waiter} to be called after every non-silent change of the value. */
    public void addWaiter(SignalWaiter waiter) {
        HsaException.requireNonNull(waiter, "waiter");
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
        HsaException.requireNonNull(waiter, "waiter");
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

    /** Number of registered waiters (a wait registers one while it is parked). */
    int waiterCount() {
        Object w = waiters;
        return w == null ? 0 : w instanceof SignalWaiter[] list ? list.length : 1;
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

    /**
     * Clears a recorded failure (a store re-arms the signal). Written only when there is one: the
     * field shares its line with {@code destroyed}, which every wait reads when it sees its
     * condition, so a store that wrote it each time took that line from the waiting thread and
     * put a second cross-core miss on every hand-off of a ping-pong.
     */
    private void rearm() {
        if (failure != null) {
            failure = null;
        }
    }

    private void checkFailure() {
        HsaException f = failure;
        if (f != null) {
            throw new HsaException(f.status(), "signal " + this + " failed: " + f.getMessage(), f);
        }
    }

    private void checkLive() {
        ComputeUnitThread.checkAbort();
        if (destroyed) {
            throw new HsaException(HsaStatus.INVALID_SIGNAL, "signal " + this + " has been destroyed");
        }
    }

    /** True once destroyed. */
    public boolean isDestroyed() {
        return destroyed;
    }

    /**
     * {@code hsa_signal_destroy}: frees the slot; waiters wake and fail with INVALID_SIGNAL.
     *
     * @throws HsaException INVALID_SIGNAL when already destroyed, NOT_INITIALIZED after the runtime shut down
     */
    public void destroy() {
        slots.manager.destroy(this);
    }

    void markDestroyed() {
        destroyed = true;
        VarHandle.fullFence();
        notifyWaiters();
    }

    /** The dispatch start timestamp (ns) recorded by the packet processor, 0 if none. */
    public long startTimestamp() {
        return field(SignalDescriptor.START_TS);
    }

    /** The dispatch end timestamp (ns) recorded by the packet processor, 0 if none. */
    public long endTimestamp() {
        return field(SignalDescriptor.END_TS);
    }

    /** Records the dispatch start timestamp; called by the packet processor. */
    public void recordStart(long timestamp) {
        setField(SignalDescriptor.START_TS, timestamp);
    }

    /** Records the dispatch end timestamp; called by the packet processor before the decrement. */
    public void recordEnd(long timestamp) {
        setField(SignalDescriptor.END_TS, timestamp);
    }

    void initialize(long value, int kind) {
        block.set(ValueLayout.JAVA_INT, offset + SignalDescriptor.KIND, kind);
        VALUE.setOpaque(block, offset + SignalDescriptor.START_TS, 0L);
        VALUE.setOpaque(block, offset + SignalDescriptor.END_TS, 0L);
        VALUE.setVolatile(block, offset + SignalDescriptor.VALUE, value);
    }

    // ---- slot access ----------------------------------------------------------------------------

    private long load(boolean acquire) {
        ComputeUnitThread.checkAbort();
        try {
            return acquire ? (long) VALUE.getVolatile(block, offset + SignalDescriptor.VALUE)
                    : (long) VALUE.getOpaque(block, offset + SignalDescriptor.VALUE);
        } catch (IllegalStateException e) {
            throw released(e);
        }
    }

    private void store(long value, boolean release) {
        ComputeUnitThread.checkAbort();
        try {
            if (release) {
                VALUE.setVolatile(block, offset + SignalDescriptor.VALUE, value);
            } else {
                VALUE.setOpaque(block, offset + SignalDescriptor.VALUE, value);
            }
        } catch (IllegalStateException e) {
            throw released(e);
        }
    }

    private long field(long fieldOffset) {
        try {
            return (long) VALUE.getVolatile(block, offset + fieldOffset);
        } catch (IllegalStateException e) {
            throw released(e);
        }
    }

    private void setField(long fieldOffset, long value) {
        try {
            VALUE.setOpaque(block, offset + fieldOffset, value);
        } catch (IllegalStateException e) {
            throw released(e);
        }
    }

    /** The error for an access after the runtime released the signal's memory (its arena is closed). */
    private HsaException released(IllegalStateException e) {
        HsaException cause = slots.manager.shutdownCause();
        if (cause == null) {
            cause = failure;
        }
        HsaStatus status = cause != null ? cause.status() : HsaStatus.INVALID_SIGNAL;
        return new HsaException(status, "signal " + this + ": its memory has been released", e);
    }

    @Override
    public String toString() {
        return String.format("0x%x", handle());
    }
}
