package org.hsa4j.idle;

/**
 * What the waits of one {@link IdleStrategy} family have seen of the machine's load, so that they
 * stop yielding while cores are oversubscribed.
 *
 * <p>A {@link Thread#yield()} returns at once while nothing else wants the core. One that returns
 * only after {@link #LONG_YIELD_NANOS} means another runnable thread took the core for a time slice:
 * more threads want to run than there are cores (busy processes beside the runtime, say), once it
 * happens {@link #STREAK} times within {@link #WINDOW_NANOS} of each other (one alone may be a JIT
 * compiler or GC thread passing by on a quiet machine). Then a
 * yield phase is the worst way to wait: the yielding thread stays runnable, competes with the
 * thread it waits for, and the scheduler charges it for every slice (EEVDF gives a woken thread
 * that slept precedence over one that kept running), so a handoff between two of our threads costs
 * whole slices of the busy ones, milliseconds. So for {@link #WINDOW_NANOS} after such a streak the
 * family's waits skip their yield phase and park: a parked waiter registered for an unpark (a
 * signal's waiter, a parked compute unit) is woken by its producer and runs at once, as a thread
 * pool's worker does. Quiet again, the window passes and waits yield as before.
 *
 * <p>Written by any waiting thread after a long yield, read by every wait at its phase changes: a
 * volatile timestamp and count, last writer wins (a lost count delays the switch by one yield).
 */
final class Oversubscription {
    /** A yield that took this long ran another thread's time slice: the cores are oversubscribed. */
    static final long LONG_YIELD_NANOS = 500_000;
    /** Long yields, each within {@link #WINDOW_NANOS} of the one before, that show oversubscription. */
    static final int STREAK = 3;
    /** How long after the last long yield of a streak waits skip their yield phase. */
    static final long WINDOW_NANOS = 50_000_000;

    /** Clock value of the last long yield; meaningful once {@link #streak} is positive. */
    private volatile long lastLongYield;
    /** Long yields so far, each within the window of the one before. */
    private volatile int streak;

    /** Records a yield that began at {@code before} and returned at {@code after} (same clock). */
    void yielded(long before, long after) {
        if (after - before >= LONG_YIELD_NANOS) {
            int n = streak;
            streak = n > 0 && after - lastLongYield < WINDOW_NANOS ? Math.min(n + 1, STREAK) : 1;
            lastLongYield = after;
        }
    }

    /** True when a streak of long yields ended within {@link #WINDOW_NANOS} before {@code now}. */
    boolean recent(long now) {
        return streak >= STREAK && now - lastLongYield < WINDOW_NANOS;
    }
}
