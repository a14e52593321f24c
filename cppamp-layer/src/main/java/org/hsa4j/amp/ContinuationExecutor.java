package org.hsa4j.amp;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;

/**
 * The one thread that runs future continuations ({@code then}, {@code thenCompose}) of an
 * {@link Amp} (the CompletionStage methods run elsewhere: see {@link CompletionFuture}): never the
 * caller's thread, never a compute unit
 * (a continuation that blocks there would stall the agent), never a thread per callback. Started
 * with the first continuation; it stays busy briefly after each task (a nested then() chain hands
 * over in well under a microsecond) and then parks through the runtime's {@link IdleStrategy}
 * (registered first, so {@link #execute} unparks it; parks back off to {@link #LONGEST_PARK_NANOS}),
 * so an idle layer costs nothing.
 */
final class ContinuationExecutor implements AutoCloseable {
    /** How long the thread looks for the next task before it parks. */
    static final long SPIN_NANOS = 20_000;
    /** The longest park of an idle executor: a task's arrival unparks it, so this only bounds a lost wake-up. */
    static final long LONGEST_PARK_NANOS = 100_000_000;

    private final IdleStrategy idle;

    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final String name;
    private volatile Thread thread;
    private volatile boolean parked;
    private volatile boolean closed;
    /** The then() continuation running now, which adopts the futures made meanwhile; this thread only. */
    private CompletionFuture.Nest nest;

    ContinuationExecutor(String name, IdleStrategy runtimeIdle) {
        this.name = name;
        this.idle = runtimeIdle.background().withBusyNanos(SPIN_NANOS)
                .withParks(runtimeIdle.minParkNanos(), LONGEST_PARK_NANOS);
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
        Idler idler = null;
        while (!closed) {
            if (runOne()) {
                idler = null;
                continue;
            }
            if (idler == null) {
                idler = idle.idler().blocker(this);
            }
            if (!idler.parksNext()) {
                idler.idle();
                continue;
            }
            // registered before the look that precedes the park: execute() adds, then reads parked
            parked = true;
            if (tasks.isEmpty() && !closed) {
                idler.idle();
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
