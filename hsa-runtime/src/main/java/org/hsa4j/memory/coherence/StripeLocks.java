package org.hsa4j.memory.coherence;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;

/**
 * The locks of an agent's L2 stripes: one word per lock, each on a cache line of its own. A lock is
 * held for a few dozen nanoseconds (one set's bookkeeping and one 64-byte copy), so an uncontended
 * acquire is one compare-and-set and a release one release store, half of what a monitor costs, and
 * a monitor that was once contended stays inflated and costs more still. A contended acquire idles
 * as the machine's {@link IdleStrategy} says (spin, yield, then parks of a microsecond: the holder
 * may be descheduled), so no waiter burns a core for long.
 */
final class StripeLocks {
    /** Longs between two lock words: 16 longs are 128 bytes, so two locks never share a cache line (nor an adjacent-line prefetch pair). */
    private static final int STRIDE = 16;
    /**
     * How a contended acquire idles: the machine's strategy (spin, then yield, then park), with
     * parks of a microsecond, since a holder is done within nanoseconds once it runs. Taken from
     * the machine, not the runtime's configuration: a lock held this briefly is not a wait the
     * interrupt switch is about, and it must not block a waiter behind a descheduled holder.
     */
    private static final IdleStrategy CONTENDED = IdleStrategy.defaults().withParks(1_000, 1_000);
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
        Idler idler = CONTENDED.idler().blocker(this);
        while (!((long) WORD.getOpaque(words, i) == 0L && WORD.compareAndSet(words, i, 0L, 1L))) {
            idler.idle();
        }
    }

    /** Releases lock {@code lock} (a release store), held by the caller. */
    void unlock(int lock) {
        WORD.setRelease(words, index(lock), 0L);
    }
}
