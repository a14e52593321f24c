package org.hsa4j.signal;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Runs async signal handlers on one service thread, as ROCR's async-events thread does. The thread
 * starts with the first handler; each armed handler registers a waiter on its signal, and the
 * thread parks while nothing is due, re-checking every {@link SignalManager#recheckNanos()} only
 * while some handler is armed, so an idle runtime pays nothing.
 *
 * <h2>When a handler runs</h2>
 * A handler runs when its condition holds and the signal has changed since the handler last
 * looked: on registration, or after a non-silent operation notified the handler's waiter, or when
 * a re-check finds a value other than the one last seen (a change behind the API). So a handler
 * that returns true (stays armed) runs again on the next change that satisfies the condition, not
 * over and over while the value stays put. The waiter sets its flag after the operation changed
 * the value, and the service clears the flag before it loads the value, so no change is missed;
 * the price is that a change which lands between the two can be reported twice. A handler that
 * returns false, or throws (logged), is disarmed; a destroyed signal disarms its handlers.
 */
public final class AsyncHandlerService implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AsyncHandlerService.class.getName());

    /** One registration: the condition, the handler, and what the service last saw of the signal. */
    private final class Armed implements SignalWaiter {
        final Signal signal;
        final SignalCondition condition;
        final long value;
        final AsyncSignalHandler handler;
        volatile boolean changed = true;
        long lastSeen;

        Armed(Signal signal, SignalCondition condition, long value, AsyncSignalHandler handler) {
            this.signal = signal;
            this.condition = condition;
            this.value = value;
            this.handler = handler;
        }

        @Override
        public void signalChanged(Signal s) {
            changed = true;
            wakeUp();
        }
    }

    private final ConcurrentLinkedQueue<Armed> incoming = new ConcurrentLinkedQueue<>();
    private final List<Armed> armed = new ArrayList<>();
    private final AtomicInteger count = new AtomicInteger();
    private volatile Thread thread;
    private volatile boolean closed;

    /**
     * Arms {@code handler} to run once {@code signal} satisfies {@code condition} against {@code value}.
     *
     * @throws HsaException INVALID_SIGNAL for a destroyed signal, NOT_INITIALIZED after {@link #close},
     *                      INVALID_ARGUMENT for a null argument
     */
    public void register(Signal signal, SignalCondition condition, long value, AsyncSignalHandler handler) {
        if (signal == null || condition == null || handler == null) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "an async handler needs a signal, a condition and a handler");
        }
        if (signal.isDestroyed()) {
            throw new HsaException(HsaStatus.INVALID_SIGNAL, "signal " + signal + " has been destroyed");
        }
        if (closed) {
            throw new HsaException(HsaStatus.NOT_INITIALIZED, "the runtime has been shut down");
        }
        count.incrementAndGet();
        incoming.add(new Armed(signal, condition, value, handler));
        ensureStarted();
        wakeUp();
    }

    private synchronized void ensureStarted() {
        if (thread == null) {
            Thread t = new Thread(this::run, "hsa4j-async-signal-handlers");
            t.setDaemon(true);
            thread = t;
            t.start();
        }
    }

    private void wakeUp() {
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void run() {
        long recheck = Signal.RECHECK_NANOS;
        while (!closed) {
            Armed a;
            while ((a = incoming.poll()) != null) {
                armed.add(a);
                a.signal.addWaiter(a);
                recheck = Math.min(recheck, a.signal.recheckNanos());
            }
            boolean fired = false;
            for (int i = armed.size() - 1; i >= 0; i--) {
                Armed h = armed.get(i);
                int outcome = evaluate(h);
                if (outcome != 0) {
                    fired = true;
                }
                if (outcome < 0) {
                    armed.remove(i);
                    h.signal.removeWaiter(h);
                    count.decrementAndGet();
                }
            }
            if (!fired && incoming.isEmpty()) {
                if (armed.isEmpty()) {
                    LockSupport.park(this);
                } else {
                    LockSupport.parkNanos(this, recheck);
                }
            }
        }
        for (Armed h : armed) {
            h.signal.removeWaiter(h);
        }
    }

    /** Looks at one handler's signal; runs the handler if due. 0: not run, 1: ran and stays armed, -1: disarm. */
    private int evaluate(Armed h) {
        if (h.signal.isDestroyed()) {
            return -1;
        }
        boolean notified = h.changed;
        h.changed = false;
        long v;
        try {
            v = h.signal.loadScacquire();
        } catch (HsaException e) {
            return -1;
        }
        boolean due = notified || v != h.lastSeen;
        h.lastSeen = v;
        if (!due || !h.condition.test(v, h.value)) {
            return 0;
        }
        try {
            return h.handler.onSignal(v) ? 1 : -1;
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "async signal handler on " + h.signal + " threw; disarmed", t);
            return -1;
        }
    }

    /** Number of armed handlers (pending registration included). */
    public int armedCount() {
        return count.get();
    }

    @Override
    public void close() {
        closed = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
