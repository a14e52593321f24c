package org.hsa4j.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The locks of an agent's L2 stripes: one word per lock, each on a cache line of its own. A lock is
 * held for a few dozen nanoseconds (one set's bookkeeping and one 64-byte copy), so an uncontended
 * acquire is one compare-and-set and a release one release store, half of what a monitor costs, and
 * a monitor that was once contended stays inflated and costs more still. A contended acquire spins
 * a bounded number of times, then yields, then parks for a microsecond at a time (2 cores: the
 * holder may be descheduled), so no waiter burns a core for long.
 */
final class StripeLocks {
    /** Longs between two lock words: 16 longs are 128 bytes, so two locks never share a cache line (nor an adjacent-line prefetch pair). */
    private static final int STRIDE = 16;
    /** Spins before a contended acquire starts yielding. */
    private static final int SPINS = 128;
    /** Yields before it starts parking. */
    private static final int YIELDS = 8;
    /** Park between two attempts once it parks. */
    private static final long PARK_NANOS = 1_000;
    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] words;

    StripeLocks(int count) {
        this.words = new long[(count + 1) * STRIDE];
    }

    private static int index(int lock) {
        return (lock + 1) * STRIDE;
    }

    /** Acquires lock {@code lock} (an acquire: what the last holder wrote before {@link #unlock} is visible). */
    void lock(int lock) {
        if (!WORD.compareAndSet(words, index(lock), 0L, 1L)) {
            contend(index(lock));
        }
    }

    private void contend(int i) {
        for (int attempt = 0; ; attempt++) {
            if ((long) WORD.getOpaque(words, i) == 0L && WORD.compareAndSet(words, i, 0L, 1L)) {
                return;
            }
            if (attempt < SPINS) {
                Thread.onSpinWait();
            } else if (attempt < SPINS + YIELDS) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(this, PARK_NANOS);
            }
        }
    }

    /** Releases lock {@code lock} (a release store), held by the caller. */
    void unlock(int lock) {
        WORD.setRelease(words, index(lock), 0L);
    }
}
