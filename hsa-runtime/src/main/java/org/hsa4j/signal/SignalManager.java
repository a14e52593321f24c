package org.hsa4j.signal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.MemoryKind;
import org.hsa4j.memory.MemoryManager;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaStatus;

/**
 * Creates and destroys signals. Slots are carved 64 at a time from 4 KiB fine-grained blocks that
 * every agent may access; a block's allocation carries the block as its attachment, so a handle
 * (an SVM address) maps back to its {@link Signal} with one address-space lookup.
 */
public final class SignalManager {
    /** Signals per 4 KiB block. */
    public static final int SIGNALS_PER_BLOCK = 64;

    private final MemoryManager memory;
    private final MemoryPool pool;
    private final List<Block> blocks = new ArrayList<>();
    private int[] free = new int[SIGNALS_PER_BLOCK];
    private int freeCount;
    private int live;

    /** A 4 KiB run of signal slots. */
    static final class Block {
        final Signal[] signals = new Signal[SIGNALS_PER_BLOCK];
        Allocation allocation;
    }

    public SignalManager(MemoryManager memory, MemoryPool pool) {
        this.memory = memory;
        this.pool = pool;
    }

    /** {@code hsa_signal_create}: a user signal with {@code initialValue}. */
    public Signal create(long initialValue) {
        return create(initialValue, SignalDescriptor.KIND_USER);
    }

    /** Creates a signal of the given {@link SignalDescriptor} kind. */
    public synchronized Signal create(long initialValue, int kind) {
        if (freeCount == 0) {
            growBlock();
        }
        int global = free[--freeCount];
        Block block = blocks.get(global / SIGNALS_PER_BLOCK);
        int index = global % SIGNALS_PER_BLOCK;
        long offset = index * SignalDescriptor.SIZE;
        Signal signal = new Signal(this, block.allocation.segment(), offset, block.allocation.base() + offset, global);
        signal.initialize(initialValue, kind);
        block.signals[index] = signal;
        live++;
        return signal;
    }

    private void growBlock() {
        Block block = new Block();
        block.allocation = memory.allocate(pool, SIGNALS_PER_BLOCK * SignalDescriptor.SIZE, 4096,
                MemoryKind.INTERNAL, -1L, pool.ownerAgent(), block);
        blocks.add(block);
        int first = (blocks.size() - 1) * SIGNALS_PER_BLOCK;
        for (int i = SIGNALS_PER_BLOCK - 1; i >= 0; i--) {
            free[freeCount++] = first + i;
        }
    }

    synchronized void destroy(Signal signal) {
        Block block = blocks.get(signal.index / SIGNALS_PER_BLOCK);
        int index = signal.index % SIGNALS_PER_BLOCK;
        if (block.signals[index] != signal) {
            throw new HsaException(HsaStatus.INVALID_SIGNAL, "signal " + signal + " has already been destroyed");
        }
        block.signals[index] = null;
        signal.markDestroyed();
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = signal.index;
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
            if (offset % SignalDescriptor.SIZE == 0) {
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

    /** Fails every live signal, so that no wait outlives the runtime. */
    public void failAll(HsaException cause) {
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
}
