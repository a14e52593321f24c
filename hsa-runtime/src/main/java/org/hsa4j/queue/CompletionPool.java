package org.hsa4j.queue;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.signal.Signal;

/**
 * The launch call's reusable per-dispatch resources of one queue: a completion signal and a
 * kernarg block each. Taken by {@link Queue#dispatch}, re-armed there (a store of 1, which also
 * re-arms a failed signal), and given back by the {@link DispatchCompletion} once a wait saw the
 * dispatch end, so a steady stream of launches allocates neither signals nor kernarg memory.
 * A completion nobody waits for keeps its slot (the pool makes a new one); closing the queue's
 * pool destroys what it holds. The slot given back last waits in an atomic reference (one atomic
 * to give, one to take, for a one-producer round trip); more wait in a stack under the monitor.
 */
final class CompletionPool {
    /** Bytes of kernel arguments each slot carries: 32 64-bit arguments. */
    static final int KERNARG_BYTES = 256;
    /** Most slots kept for reuse; more are destroyed when given back. */
    private static final int KEEP = 256;

    /** One reusable pair: a completion signal and a kernarg block. */
    static final class Slot {
        final Signal signal;
        final long kernarg;
        /** The kernarg block's home memory: written by the launching thread, published by the packet's release. */
        final MemorySegment args;

        Slot(Signal signal, long kernarg, MemorySegment args) {
            this.signal = signal;
            this.kernarg = kernarg;
            this.args = args;
        }
    }

    private final QueueAgent agent;
    /** The slot given back last: a one-producer round trip takes and gives it with one atomic each. */
    private final AtomicReference<Slot> hot = new AtomicReference<>();
    private final Slot[] free = new Slot[KEEP];
    private int count;
    private volatile boolean closed;

    /** The agent's idle strategy, for the rare wait of a second settler. */
    IdleStrategy idleStrategy() {
        return agent.idleStrategy();
    }

    CompletionPool(QueueAgent agent) {
        this.agent = agent;
    }

    /** A slot whose signal is re-armed to 1 (relaxed: the packet's release publishes it). */
    Slot take() {
        Slot s = hot.getAndSet(null);
        if (s != null) {
            s.signal.storeRelaxed(1);
            return s;
        }
        synchronized (this) {
            s = count > 0 ? free[--count] : null;
            if (s != null) {
                free[count] = null;
            }
        }
        if (s == null) {
            MemoryPool pool = agent.kernargPool();
            long kernarg = pool.allocate(KERNARG_BYTES);
            s = new Slot(agent.createSignal(1), kernarg, agent.svm().segment(kernarg, KERNARG_BYTES));
        } else {
            s.signal.storeRelaxed(1);
        }
        return s;
    }

    /** Gives back a slot whose dispatch ended; destroys it when the pool is full or closed. */
    void give(Slot s) {
        if (!closed && hot.compareAndSet(null, s)) {
            return;
        }
        synchronized (this) {
            if (!closed && count < KEEP) {
                free[count++] = s;
                return;
            }
        }
        destroy(s);
    }

    /** Destroys the slots held; slots given back later are destroyed then. */
    void close() {
        Slot[] held;
        synchronized (this) {
            closed = true;
            Slot h = hot.getAndSet(null);
            if (h != null && count < KEEP) {
                free[count++] = h;
            }
            held = java.util.Arrays.copyOf(free, count);
            java.util.Arrays.fill(free, null);
            count = 0;
        }
        for (Slot s : held) {
            destroy(s);
        }
    }

    private void destroy(Slot s) {
        try {
            if (!s.signal.isDestroyed()) {
                s.signal.destroy();
            }
            agent.kernargPool().free(s.kernarg);
        } catch (RuntimeException alreadyGone) {
            // the runtime shut down first: its signals and memory went with it
        }
    }
}
