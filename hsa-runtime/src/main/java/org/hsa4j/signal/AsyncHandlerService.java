package org.hsa4j.signal;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaStatus;

/**
 * Runs async signal handlers on one service thread, as ROCR's async-events thread does. The thread
 * starts with the first handler; it registers itself as a waiter on every armed signal and parks
 * while nothing is due, re-checking every {@link Signal#RECHECK_NANOS} only while some handler is
 * armed, so an idle runtime pays nothing. A handler that throws is disarmed and logged.
 */
public final class AsyncHandlerService implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AsyncHandlerService.class.getName());

    private record Armed(Signal signal, SignalCondition condition, long value, AsyncSignalHandler handler) {
    }

    private final ConcurrentLinkedQueue<Armed> incoming = new ConcurrentLinkedQueue<>();
    private final List<Armed> armed = new ArrayList<>();
    private final SignalWaiter wake = s -> wakeUp();
    private volatile Thread thread;
    private volatile boolean closed;

    /** Arms {@code handler} to run once {@code signal} satisfies {@code condition} against {@code value}. */
    public void register(Signal signal, SignalCondition condition, long value, AsyncSignalHandler handler) {
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(condition, "condition");
        Objects.requireNonNull(handler, "handler");
        if (signal.isDestroyed()) {
            throw new HsaException(HsaStatus.INVALID_SIGNAL, "signal " + signal + " has been destroyed");
        }
        if (closed) {
            throw new HsaException(HsaStatus.NOT_INITIALIZED, "the runtime has been shut down");
        }
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
        while (!closed) {
            Armed a;
            while ((a = incoming.poll()) != null) {
                armed.add(a);
                a.signal.addWaiter(wake);
            }
            boolean fired = false;
            for (int i = armed.size() - 1; i >= 0; i--) {
                Armed h = armed.get(i);
                if (h.signal.isDestroyed()) {
                    armed.remove(i);
                    continue;
                }
                long v = h.signal.loadScacquire();
                if (!h.condition.test(v, h.value)) {
                    continue;
                }
                fired = true;
                boolean again;
                try {
                    again = h.handler.onSignal(v);
                } catch (Throwable t) {
                    LOG.log(Level.WARNING, "async signal handler on " + h.signal + " threw; disarmed", t);
                    again = false;
                }
                if (!again) {
                    armed.remove(i);
                    h.signal.removeWaiter(wake);
                }
            }
            if (!fired && incoming.isEmpty()) {
                if (armed.isEmpty()) {
                    LockSupport.park(this);
                } else {
                    LockSupport.parkNanos(this, Signal.RECHECK_NANOS);
                }
            }
        }
        for (Armed h : armed) {
            h.signal.removeWaiter(wake);
        }
    }

    /** Number of armed handlers (pending registration included). */
    public int armedCount() {
        return armed.size() + incoming.size();
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
