package org.hsa4j.amp;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalWaiter;

/**
 * Completion signals of futures, recycled. A signal goes back to the pool only when nothing can
 * read it any more: its future has completed and no barrier packet or host waiter holds it
 * (see {@link CompletionFuture}'s reference count). Recycling resets the value to 1, clears a
 * failure and zeroes the timestamps.
 *
 * <p>Each pooled signal carries one waiter for its whole life, registered when the signal is
 * made, that forwards every change to the signal's current owner. A future therefore costs no
 * waiter registration: it only becomes the owner. A change that arrives for a previous owner
 * (late, after recycling) reaches the new owner, whose check of its own signal finds value 1 and
 * no failure and does nothing.
 */
final class FutureSignals implements AutoCloseable {
    /** Idle signals kept for reuse; more are destroyed. */
    static final int MAX_IDLE = 4096;

    /** A pooled signal and the future it currently completes. */
    static final class Slot {
        final Signal signal;
        volatile CompletionFuture owner;
        private final SignalWaiter forward = s -> {
            CompletionFuture o = owner;
            if (o != null) {
                o.poll();
            }
        };

        private Slot(Signal signal) {
            this.signal = signal;
            signal.addWaiter(forward);
        }
    }

    private final HsaRuntime runtime;
    private final ConcurrentLinkedQueue<Slot> idle = new ConcurrentLinkedQueue<>();
    private final AtomicInteger idleCount = new AtomicInteger();

    FutureSignals(HsaRuntime runtime) {
        this.runtime = runtime;
    }

    /** A slot whose signal has value 1 and no failure, owned by {@code owner} (may be null). */
    Slot acquire(CompletionFuture owner) {
        Slot s = idle.poll();
        if (s == null) {
            s = new Slot(runtime.createSignal(1));
        } else {
            idleCount.decrementAndGet();
        }
        s.owner = owner;
        return s;
    }

    /** Returns {@code slot}, whose signal nothing reads any more, to the pool. */
    void recycle(Slot slot) {
        slot.owner = null;
        Signal s = slot.signal;
        if (s.isDestroyed() || runtime.isClosed()) {
            return;
        }
        s.silentStoreRelaxed(1);
        s.recordStart(0);
        s.recordEnd(0);
        if (idleCount.incrementAndGet() <= MAX_IDLE) {
            idle.add(slot);
        } else {
            idleCount.decrementAndGet();
            s.destroy();
        }
    }

    @Override
    public void close() {
        Slot s;
        while ((s = idle.poll()) != null) {
            if (!s.signal.isDestroyed() && !runtime.isClosed()) {
                s.signal.destroy();
            }
        }
    }
}
