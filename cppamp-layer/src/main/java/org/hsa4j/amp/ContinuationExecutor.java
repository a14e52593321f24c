package org.hsa4j.amp;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The one thread that runs future continuations ({@code then}, {@code thenCompose}) of an
 * {@link Amp} (the CompletionStage methods run elsewhere: see {@link CompletionFuture}): never the
 * caller's thread, never a compute unit
 * (a continuation that blocks there would stall the agent), never a thread per callback. Started
 * with the first continuation; it spins briefly after each task (a nested then() chain hands over
 * in well under a microsecond) and then parks, so an idle layer costs nothing.
 */
final class ContinuationExecutor implements AutoCloseable {
    /** How long the thread looks for the next task before it parks. */
    static final long SPIN_NANOS = 20_000;

    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final String name;
    private volatile Thread thread;
    private volatile boolean parked;
    private volatile boolean closed;
    /** The then() continuation running now, which adopts the futures made meanwhile; this thread only. */
    private CompletionFuture.Nest nest;

    ContinuationExecutor(String name) {
        this.name = name;
    }

    /** Queues {@code task}. */
    void execute(Runnable task) {
        tasks.add(task);
        Thread t = thread;
        if (t == null) {
            t = start();
        }
        if (parked) {
            LockSupport.unpark(t);
        }
    }

    private synchronized Thread start() {
        if (thread == null) {
            Thread t = new Thread(this::loop, name);
            t.setDaemon(true);
            thread = t;
            t.start();
        }
        return thread;
    }

    /** True on the executor's own thread. */
    boolean isCurrentThread() {
        return Thread.currentThread() == thread;
    }

    /** Makes {@code n} the running continuation's nest (on this thread only); returns the one it replaces. */
    CompletionFuture.Nest enter(CompletionFuture.Nest n) {
        CompletionFuture.Nest outer = nest;
        nest = n;
        return outer;
    }

    /** The nest of the continuation running on the calling thread, or null (always null on other threads). */
    CompletionFuture.Nest currentNest() {
        return isCurrentThread() ? nest : null;
    }

    /** Runs one queued task on the calling thread (used by a continuation that waits); false when none. */
    boolean runOne() {
        Runnable r = tasks.poll();
        if (r == null) {
            return false;
        }
        run(r);
        return true;
    }

    private void loop() {
        while (!closed) {
            if (runOne()) {
                continue;
            }
            long end = System.nanoTime() + SPIN_NANOS;
            boolean found = false;
            while (System.nanoTime() - end < 0) {
                if (!tasks.isEmpty()) {
                    found = true;
                    break;
                }
                Thread.onSpinWait();
            }
            if (found) {
                continue;
            }
            parked = true;
            if (tasks.isEmpty() && !closed) {
                LockSupport.park(this);
            }
            parked = false;
        }
    }

    private static void run(Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            System.getLogger(ContinuationExecutor.class.getName()).log(System.Logger.Level.WARNING,
                    "a future continuation task threw", t);
        }
    }

    @Override
    public void close() {
        closed = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
            if (t != Thread.currentThread()) {
                try {
                    t.join(2000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
