package org.hsa4j.amp;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;

/**
 * Completion signals of futures, recycled. A signal goes back to the pool only when nothing can
 * read it any more: its future has completed and no barrier packet or host waiter holds it
 * (see {@link CompletionFuture}'s reference count). Recycling resets the value to 1, clears a
 * failure and zeroes the timestamps.
 */
final class FutureSignals implements AutoCloseable {
    /** Idle signals kept for reuse; more are destroyed. */
    static final int MAX_IDLE = 4096;

    private final HsaRuntime runtime;
    private final ConcurrentLinkedQueue<Signal> idle = new ConcurrentLinkedQueue<>();
    private final AtomicInteger idleCount = new AtomicInteger();

    FutureSignals(HsaRuntime runtime) {
        this.runtime = runtime;
    }

    /** A signal with value 1 and no failure. */
    Signal acquire() {
        Signal s = idle.poll();
        if (s == null) {
            return runtime.createSignal(1);
        }
        idleCount.decrementAndGet();
        return s;
    }

    /** Returns {@code s}, which nothing reads any more, to the pool. */
    void recycle(Signal s) {
        if (s.isDestroyed() || runtime.isClosed()) {
            return;
        }
        s.silentStoreRelaxed(1);
        s.recordStart(0);
        s.recordEnd(0);
        if (idleCount.incrementAndGet() <= MAX_IDLE) {
            idle.add(s);
        } else {
            idleCount.decrementAndGet();
            s.destroy();
        }
    }

    @Override
    public void close() {
        Signal s;
        while ((s = idle.poll()) != null) {
            if (!s.isDestroyed() && !runtime.isClosed()) {
                s.destroy();
            }
        }
    }
}
