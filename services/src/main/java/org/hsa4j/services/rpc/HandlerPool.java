package org.hsa4j.services.rpc;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.PhasedBackoffWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;

/**
 * Handler threads fed through an LMAX Disruptor ring: server threads publish calls of
 * {@link ServiceMode#HANDLER} services, and each handler thread claims the next unclaimed slot, so
 * calls are shared out (each runs once) instead of broadcast. A handler blocked in one slow call
 * holds back nothing but itself: the other handlers go on claiming and running later slots.
 *
 * <p>Disruptor 4 has no worker pool, so the claim is done here: a shared claim sequence that a
 * handler advances with a compare-and-swap, and a per-handler sequence. Both are gating sequences:
 * the claim sequence keeps the producers off slots nobody has claimed yet, and a handler's own
 * sequence stays one below the slot it claimed until it has copied the slot out. While it runs
 * the call it holds no slot, and its sequence is out of the way ({@code Long.MAX_VALUE}), so a
 * handler blocked in a slow call never holds the ring back. Idle
 * handlers spin briefly, yield, then block on the wait strategy's lock: no CPU when idle. Every
 * call holds a port until it ends, so at most as many calls as ports are ever waiting in the ring
 * (even with every handler blocked): a ring at least that large never makes a server thread wait.
 *
 * <p>A handler stuck in one call for longer than the service timeout is moved aside by the
 * server's watchdog ({@link #replace}): a fresh thread takes over its sequence (which the stuck
 * thread does not hold while it runs a call) and the stuck thread ends once its call returns,
 * without touching the sequence again. So stuck services never use up the handlers.
 */
final class HandlerPool implements AutoCloseable {
    private static final class Slot {
        OpcodeRegistry.Entry entry;
        ServerCall call;
    }

    private final RingBuffer<Slot> ring;
    private final SequenceBarrier barrier;
    private final Sequence claim = new Sequence(-1);
    private final Sequence[] progress;
    private final AtomicReferenceArray<Thread> threads;
    private final AtomicReferenceArray<Worker> workers;
    private final Runner runner;
    private final String name;
    private volatile boolean running = true;

    /** Runs one call's service on a handler thread, marked on that thread's worker. */
    @FunctionalInterface
    interface Runner {
        void run(OpcodeRegistry.Entry entry, ServerCall call, Worker worker);
    }

    HandlerPool(int handlers, int minRingSize, Runner runner, String name) {
        this.runner = runner;
        this.name = name;
        int size = Integer.highestOneBit(Math.max(minRingSize, 2) - 1) << 1;
        ring = RingBuffer.createMultiProducer(Slot::new, size,
                PhasedBackoffWaitStrategy.withLock(20, 50, TimeUnit.MICROSECONDS));
        barrier = ring.newBarrier();
        progress = new Sequence[handlers];
        threads = new AtomicReferenceArray<>(handlers);
        workers = new AtomicReferenceArray<>(handlers);
        for (int i = 0; i < handlers; i++) {
            progress[i] = new Sequence(Long.MAX_VALUE);
        }
        ring.addGatingSequences(claim);
        ring.addGatingSequences(progress);
        for (int i = 0; i < handlers; i++) {
            start(i, 0);
        }
    }

    /** Starts incarnation {@code generation} of handler {@code i} on its sequence. */
    private void start(int i, int generation) {
        Sequence mine = progress[i];
        Worker worker = new Worker();
        Thread t = new Thread(() -> work(mine, worker), name + "-handler-" + i + (generation == 0 ? "" : "." + generation));
        t.setDaemon(true);
        workers.set(i, worker);
        threads.set(i, t);
        t.start();
    }

    /** Number of handler threads. */
    int size() {
        return progress.length;
    }

    /** The current worker of handler {@code i}. */
    Worker worker(int i) {
        return workers.get(i);
    }

    /**
     * Moves handler {@code i} aside (its thread is stuck in a call, and the watchdog retired its
     * worker) and starts a fresh thread on its sequence: {@code generation} names it.
     */
    void replace(int i, int generation) {
        if (running) {
            start(i, generation);
        }
    }

    /** Hands {@code call} of service {@code entry} to a handler thread. */
    void submit(OpcodeRegistry.Entry entry, ServerCall call) {
        long s = ring.next();
        Slot slot = ring.get(s);
        slot.entry = entry;
        slot.call = call;
        ring.publish(s);
    }

    /** The handler threads, for diagnostics. */
    Thread[] threads() {
        Thread[] all = new Thread[threads.length()];
        for (int i = 0; i < all.length; i++) {
            all[i] = threads.get(i);
        }
        return all;
    }

    private void work(Sequence mine, Worker worker) {
        boolean claimNext = true;
        long next = 0;
        long available = -1;
        while (true) {
            try {
                if (claimNext) {
                    claimNext = false;
                    do {
                        next = claim.get() + 1;
                        mine.set(next - 1);
                    } while (!claim.compareAndSet(next - 1, next));
                }
                if (available >= next) {
                    Slot slot = ring.get(next);
                    OpcodeRegistry.Entry entry = slot.entry;
                    ServerCall call = slot.call;
                    slot.entry = null;
                    slot.call = null;
                    mine.set(Long.MAX_VALUE);
                    claimNext = true;
                    runner.run(entry, call, worker);
                    if (worker.retired()) {
                        return; // moved aside while stuck: a fresh thread owns the sequence now
                    }
                } else {
                    available = barrier.waitFor(next);
                }
            } catch (AlertException e) {
                if (!running) {
                    break;
                }
            } catch (InterruptedException | TimeoutException e) {
                if (!running) {
                    break;
                }
            }
        }
        mine.set(Long.MAX_VALUE);
    }

    /** Stops the handler threads once their current call ends, waiting up to {@code timeoutMillis}. */
    void stop(long timeoutMillis) {
        running = false;
        barrier.alert();
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        for (int i = 0; i < threads.length(); i++) {
            Thread t = threads.get(i);
            long left = deadline - System.nanoTime();
            if (left > 0) {
                try {
                    t.join(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public void close() {
        stop(1_000);
    }
}
