package org.hsa4j.signal;

import java.util.ArrayList;
import java.util.List;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.MemoryKind;
import org.hsa4j.memory.MemoryManager;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.SvmAccess;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.hsa4j.trace.Tracer;

/**
 * Creates and destroys signals. Slots are carved 64 at a time from 4 KiB fine-grained blocks that
 * every agent may access; a block's allocation carries the block as its attachment, so a handle
 * (an SVM address) maps back to its {@link Signal} with one address-space lookup.
 *
 * <p>Blocks are never returned to the pool, so a signal's memory stays valid for the runtime's
 * life. Freed slots are reused first-in first-out, and only once more than
 * {@link #REUSE_DISTANCE} of them are waiting: a stale handle (of a destroyed signal) keeps
 * resolving to nothing for a long while instead of silently naming the next signal created, and
 * a late waiter of a destroyed signal does not read a new signal's value.
 */
public final class SignalManager {
    /** Signals per 4 KiB block. */
    public static final int SIGNALS_PER_BLOCK = 64;
    /** Freed slots kept back before one is reused (64 KiB of slots). */
    public static final int REUSE_DISTANCE = 1024;

    private final MemoryManager memory;
    private final MemoryPool pool;
    private final long recheckNanos;
    /** The runtime's idle strategy, configured once. */
    private final IdleStrategy idle;
    /** How an ACTIVE wait idles: ROCR's 200 us busy budget, then parks (a change unparks it; see {@link SignalWatch}). */
    final IdleStrategy activeWait;
    /** How a BLOCKED wait idles: the machine's busy budget, then parks (a change unparks it; see {@link SignalWatch}). */
    final IdleStrategy blockedWait;
    /** The runtime's access strategy (screlease/scacquire signal operations release/acquire through it at system scope). */
    final SvmAccess access;
    /** What a wait that blocks reports to (the runtime's tracer, chosen once). */
    final Tracer tracer;
    private final List<Block> blocks = new ArrayList<>();
    private int fresh;
    private int[] recycled = new int[SIGNALS_PER_BLOCK];
    private int recycledHead;
    private int recycledCount;
    private int live;
    private volatile HsaException shutdown;

    /** A 4 KiB run of signal slots. */
    static final class Block {
        final SignalManager manager;
        final int number;
        final Signal[] signals = new Signal[SIGNALS_PER_BLOCK];
        Allocation allocation;

        Block(SignalManager manager, int number) {
            this.manager = manager;
            this.number = number;
        }
    }

    /** A manager whose parked waiters re-check the value every {@link Signal#RECHECK_NANOS}. */
    public SignalManager(MemoryManager memory, MemoryPool pool) {
        this(memory, pool, Signal.RECHECK_NANOS);
    }

    /**
     * A manager whose parked waiters re-check the value at least every {@code recheckNanos}, the
     * longest a change made behind the API (a kernel writing the slot, a silent store) goes unseen.
     * A very long interval leaves waking to the notifications alone (tests use it to prove that no
     * wake-up is lost).
     */
    public SignalManager(MemoryManager memory, MemoryPool pool, long recheckNanos) {
        this(memory, pool, recheckNanos, null);
    }

    /** As {@link #SignalManager(MemoryManager, MemoryPool, long)}, with the runtime's {@code access} strategy (null: {@link SvmAccess#DIRECT}). */
    public SignalManager(MemoryManager memory, MemoryPool pool, long recheckNanos, SvmAccess access) {
        this(memory, pool, recheckNanos, access, IdleStrategy.defaults());
    }

    /** As {@link #SignalManager(MemoryManager, MemoryPool, long, SvmAccess)}, waiting as {@code idle} says. */
    public SignalManager(MemoryManager memory, MemoryPool pool, long recheckNanos, SvmAccess access,
                         IdleStrategy idle) {
        this(memory, pool, recheckNanos, access, idle, Tracer.off(System::nanoTime));
    }

    /** As {@link #SignalManager(MemoryManager, MemoryPool, long, SvmAccess, IdleStrategy)}, reporting blocking waits to {@code tracer}. */
    public SignalManager(MemoryManager memory, MemoryPool pool, long recheckNanos, SvmAccess access,
                         IdleStrategy idle, Tracer tracer) {
        this.tracer = tracer;
        if (recheckNanos <= 0) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "recheck interval must be positive, was " + recheckNanos);
        }
        this.memory = memory;
        this.pool = pool;
        this.recheckNanos = recheckNanos;
        this.access = access == null ? SvmAccess.DIRECT : access;
        this.idle = idle;
        // untimed parks: every wait caps its park at the re-check period, unless the watch looks for it
        IdleStrategy parks = idle.withParks(IdleStrategy.UNTIMED, IdleStrategy.UNTIMED);
        this.blockedWait = parks.parkingUnderLoad();
        this.activeWait = parks.withBusyNanos(Math.max(idle.busyNanos(), Signal.ACTIVE_SPIN_NANOS));
    }

    /** The runtime's idle strategy: every wait of the runtime derives its own from it. */
    public IdleStrategy idleStrategy() {
        return idle;
    }

    /** The longest a parked waiter sleeps between two looks at the value. */
    public long recheckNanos() {
        return recheckNanos;
    }

    /** {@code hsa_signal_create}: a user signal with {@code initialValue}. */
    public Signal create(long initialValue) {
        return create(initialValue, SignalDescriptor.KIND_USER);
    }

    /**
     * Creates a signal of the given {@link SignalDescriptor} kind.
     *
     * @throws HsaException INVALID_ARGUMENT for a kind other than KIND_USER or KIND_DOORBELL
     */
    public synchronized Signal create(long initialValue, int kind) {
        if (kind != SignalDescriptor.KIND_USER && kind != SignalDescriptor.KIND_DOORBELL) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "unknown signal kind " + kind);
        }
        int global;
        if (recycledCount > REUSE_DISTANCE) {
            global = recycled[recycledHead];
            recycledHead = (recycledHead + 1) % recycled.length;
            recycledCount--;
        } else {
            if (fresh == blocks.size() * SIGNALS_PER_BLOCK) {
                growBlock();
            }
            global = fresh++;
        }
        Block block = blocks.get(global / SIGNALS_PER_BLOCK);
        int index = global % SIGNALS_PER_BLOCK;
        Signal signal = new Signal(block, (int) (index * SignalDescriptor.SIZE));
        signal.initialize(initialValue, kind);
        block.signals[index] = signal;
        live++;
        return signal;
    }

    private void growBlock() {
        Block block = new Block(this, blocks.size());
        block.allocation = memory.allocate(pool, SIGNALS_PER_BLOCK * SignalDescriptor.SIZE, 4096,
                MemoryKind.INTERNAL, -1L, pool.ownerAgent(), block);
        blocks.add(block);
    }

    synchronized void destroy(Signal signal) {
        HsaException closed = shutdown;
        if (closed != null) {
            throw new HsaException(HsaStatus.NOT_INITIALIZED, "signal " + signal + " cannot be destroyed: "
                    + closed.getMessage(), closed);
        }
        Block block = signal.slots;
        int index = (int) (signal.offset / SignalDescriptor.SIZE);
        if (block.signals[index] != signal) {
            throw new HsaException(HsaStatus.INVALID_SIGNAL, "signal " + signal + " has already been destroyed");
        }
        block.signals[index] = null;
        signal.markDestroyed();
        if (recycledCount == recycled.length) {
            int[] bigger = new int[recycled.length * 2];
            for (int i = 0; i < recycledCount; i++) {
                bigger[i] = recycled[(recycledHead + i) % recycled.length];
            }
            recycled = bigger;
            recycledHead = 0;
        }
        recycled[(recycledHead + recycledCount) % recycled.length] = block.number * SIGNALS_PER_BLOCK + index;
        recycledCount++;
        live--;
    }

    /**
     * The live signal whose handle is {@code handle}.
     *
     * @throws HsaException INVALID_SIGNAL when no live signal has that handle
     */
    public Signal fromHandle(long handle) {
        Allocation a = memory.find(handle);
        if (a != null && a.attachment() instanceof Block block) {
            long offset = handle - a.base();
            if (offset % SignalDescriptor.SIZE == 0 && offset / SignalDescriptor.SIZE < SIGNALS_PER_BLOCK) {
                Signal s = block.signals[(int) (offset / SignalDescriptor.SIZE)];
                if (s != null) {
                    return s;
                }
            }
        }
        throw new HsaException(HsaStatus.INVALID_SIGNAL, String.format("0x%x is not the handle of a live signal", handle));
    }

    /** Number of live signals. */
    public synchronized int liveSignals() {
        return live;
    }

    /**
     * Fails every live signal with {@code cause}, so that no wait outlives the runtime; the runtime
     * calls this when it shuts down, before it releases the memory. A signal used after that
     * memory is gone reports {@code cause}'s status.
     */
    public void failAll(HsaException cause) {
        shutdown = cause;
        List<Signal> all = new ArrayList<>();
        synchronized (this) {
            for (Block b : blocks) {
                for (Signal s : b.signals) {
                    if (s != null) {
                        all.add(s);
                    }
                }
            }
        }
        for (Signal s : all) {
            s.fail(cause);
        }
    }

    /** The cause given to {@link #failAll}, or null while the runtime runs. */
    HsaException shutdownCause() {
        return shutdown;
    }
}
