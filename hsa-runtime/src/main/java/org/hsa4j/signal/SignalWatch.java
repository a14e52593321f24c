package org.hsa4j.signal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The one timer behind every parked signal wait of the JVM: a waiter parks with no timer and this
 * thread looks at its signal once per re-check period, unparking it only when the value changed.
 *
 * <h2>Why</h2>
 * A change made through the API wakes parked waiters itself ({@link Signal}'s waiter list); only a
 * change behind the API (a kernel or a GPU writing the slot, a silent store) wakes nobody, so a
 * parked waiter used to re-check on its own timer, a timed park per park. On a virtual machine
 * arming and cancelling that timer (a trap to the hypervisor each) cost more than the hand-off it
 * parked for: two threads sharing a core beside busy processes took ~5.7 us a dispatch round trip
 * against ~5.2 us with untimed parks (PERFORMANCE.md), where a thread pool's parks are untimed too.
 * Here one thread arms one timer for all of them, and an idle JVM arms none.
 *
 * <h2>How</h2>
 * A waiter about to park untimed claims a slot of a fixed table ({@link #register}) with its
 * thread, its signal, its re-check period and the value it last saw ({@link Parked#saw}); it frees
 * the slot when its wait ends. The watch thread sleeps until the earliest slot is due, then loads
 * each due slot's value and unparks its thread if the value differs from the one the waiter saw
 * (or the signal's memory is gone), and sets the slot due one period later. So a change behind the
 * API is seen within about one period, as before, and a long wait on a quiet signal costs this
 * thread's wake per period instead of the waiter's. The look that finds a waiter's deadline less
 * than a period away unparks it too: with less than a period left a waiter parks on its own timer
 * until its deadline. Interrupts, failures and destruction unpark the waiter themselves.
 *
 * <h2>Sleeping and waking the watch</h2>
 * After {@link #IDLE_TICKS} looks that found the table empty the watch sets {@code sleeping},
 * looks at the table once more and parks untimed. A waiter writes its slot (a volatile
 * compare-and-set), then reads {@code sleeping} (volatile): one of the two sees the other, so a
 * registration is never left unwatched, and the waiter unparks the watch only then, once per quiet
 * spell rather than once per wait. A waiter whose slot falls due before the watch's planned wake
 * (a shorter period than those it watches) unparks it too. A full table leaves the waiter to its
 * own timed parks: slower on a VM, never wrong.
 */
final class SignalWatch implements Runnable {
    /** Slots of the table: concurrent untimed waiters (more fall back to timed parks). */
    static final int SLOTS = 256;
    /** Empty looks before the watch sleeps untimed (a steady stream of waits keeps it ticking, unwoken). */
    static final int IDLE_TICKS = 4;
    /** Longest sleep of a watch with slots taken (their periods are shorter in practice). */
    private static final long MAX_SLEEP_NANOS = 1_000_000_000L;

    private static final VarHandle SLEEPING;

    static {
        try {
            SLEEPING = MethodHandles.lookup().findVarHandle(SignalWatch.class, "sleeping", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The JVM's watch, started on first use (a daemon thread that sleeps untimed while no wait is parked). */
    private static final class Holder {
        static final SignalWatch WATCH = start();

        private static SignalWatch start() {
            SignalWatch w = new SignalWatch();
            w.thread = Thread.ofPlatform().daemon().name("hsa4j-signal-watch").unstarted(w);
            w.thread.start();
            return w;
        }
    }

    /** A waiter parked untimed: what the watch looks at for it. */
    static final class Parked {
        final Thread thread;
        final Signal signal;
        final long periodNanos;
        /** The wait's deadline ({@link System#nanoTime()}): the look before it unparks the waiter, which then parks on a timer. */
        final long deadline;
        /** The value the waiter saw before its park (written by the waiter, read by the watch). */
        private volatile long seen;
        /** When the watch looks next (the watch's after registration). */
        private long due;
        private int slot = -1;

        Parked(Thread thread, Signal signal, long periodNanos, long deadline) {
            this.thread = thread;
            this.signal = signal;
            this.periodNanos = periodNanos;
            this.deadline = deadline;
        }

        /** Records the value the waiter saw last; call before each untimed park. */
        void saw(long value) {
            seen = value;
        }

        /** True while a slot of the watch holds this waiter. */
        boolean watched() {
            return slot >= 0;
        }
    }

    private final AtomicReferenceArray<Parked> slots = new AtomicReferenceArray<>(SLOTS);
    private Thread thread;
    /** Set by the watch before it parks untimed (read by registrations, which then unpark it). */
    private volatile boolean sleeping;
    /**
     * When the watch plans to look next, written before its last look at the table ahead of a park:
     * a registration due earlier than this unparks it, and one the watch's look sees needs nothing.
     */
    private volatile long plannedWake;

    private SignalWatch() {
    }

    /** The JVM's watch. */
    static SignalWatch get() {
        return Holder.WATCH;
    }

    /**
     * Puts {@code parked} under watch; false when the table is full (the waiter then parks on its own
     * timer). Its slot is due one period from now.
     */
    boolean register(Parked parked) {
        long now = System.nanoTime();
        parked.due = now + parked.periodNanos;
        int start = (int) (parked.thread.threadId() * 0x9E3779B9L >>> 8) & (SLOTS - 1);
        for (int i = 0; i < SLOTS; i++) {
            int s = (start + i) & (SLOTS - 1);
            if (slots.get(s) == null && slots.compareAndSet(s, null, parked)) {
                parked.slot = s;
                if ((sleeping && SLEEPING.compareAndSet(this, true, false)) || parked.due - plannedWake < 0) {
                    LockSupport.unpark(thread);
                }
                return true;
            }
        }
        return false;
    }

    /** Takes {@code parked} off the watch (its wait ended). */
    void unregister(Parked parked) {
        if (parked.slot >= 0) {
            slots.set(parked.slot, null);
            parked.slot = -1;
        }
    }

    /** True while the watch sleeps untimed for want of parked waiters (tests). */
    boolean asleep() {
        return sleeping;
    }

    @Override
    public void run() {
        int idle = 0;
        long cadence = MAX_SLEEP_NANOS; // the shortest period watched lately: an empty table keeps it a while
        while (true) {
            long now = System.nanoTime();
            long next = now + cadence;
            boolean any = false;
            for (int s = 0; s < SLOTS; s++) {
                Parked p = slots.get(s);
                if (p == null) {
                    continue;
                }
                any = true;
                cadence = Math.min(cadence, p.periodNanos);
                if (p.due - now <= 0) {
                    p.due = now + p.periodNanos;
                    if (changed(p) || p.deadline - p.due <= 0) {
                        LockSupport.unpark(p.thread);
                    }
                }
                if (p.due - next < 0) {
                    next = p.due;
                }
            }
            idle = any ? 0 : idle + 1;
            if (idle >= IDLE_TICKS && sleepIfEmpty()) {
                idle = 0;
                cadence = MAX_SLEEP_NANOS;
                continue;
            }
            plannedWake = next;
            next = earliestDue(next); // a slot taken during the scan read an older plan: look at it now
            LockSupport.parkNanos(this, Math.max(1, next - System.nanoTime()));
        }
    }

    /** The earliest of {@code next} and every slot's due time (after {@link #plannedWake} was written). */
    private long earliestDue(long next) {
        for (int s = 0; s < SLOTS; s++) {
            Parked p = slots.get(s);
            if (p != null && p.due - next < 0) {
                next = p.due;
            }
        }
        return next;
    }

    /** True when {@code p}'s signal no longer holds the value its waiter saw (or its memory is gone). */
    private static boolean changed(Parked p) {
        try {
            return p.signal.loadRelaxed() != p.seen;
        } catch (RuntimeException e) {
            return true; // a destroyed signal, released memory: let the waiter find out
        }
    }

    /** Sleeps untimed unless a registration raced the decision; true when it slept. */
    private boolean sleepIfEmpty() {
        sleeping = true;
        for (int s = 0; s < SLOTS; s++) {
            if (slots.get(s) != null) {
                sleeping = false;
                return false;
            }
        }
        while (sleeping) {
            LockSupport.park(this); // a registration clears the flag before it unparks
            Thread.interrupted();   // nobody should interrupt this thread; if someone does, park again, never spin
        }
        return true;
    }
}
