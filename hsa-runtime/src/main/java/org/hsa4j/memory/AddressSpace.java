package org.hsa4j.memory;

import java.util.Arrays;

import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaStatus;

/**
 * The table behind the flat SVM address space: slot number to live {@link Allocation}.
 *
 * <p>The table is a two-level directory (4096 pages of 4096 slots, pages made on first use), so a
 * lookup is two plain array loads. Plain loads are enough: an address reaches another thread only
 * through some synchronizing operation (a kernarg write followed by a packet's release, a signal,
 * a queue), which orders the table write before it; a fabricated address sees null and faults.
 * Allocation's fields are final, so even a racy reader sees a whole object.
 *
 * <p>Slots are recycled first-in first-out, and only once more than {@link #REUSE_DISTANCE} slots
 * are free, and each reuse bumps the slot's 6-bit generation: a stale pointer faults instead of
 * silently reaching whatever was allocated next in the same slot.
 */
public final class AddressSpace {
    private static final int PAGE_BITS = 12;
    private static final int PAGE_SIZE = 1 << PAGE_BITS;
    private static final int PAGE_MASK = PAGE_SIZE - 1;
    private static final int DIRECTORY_SIZE = 1 << (SvmAddress.SLOT_BITS - PAGE_BITS);
    /** Free slots kept back before one is reused, so stale pointers stay detectable for long. */
    static final int REUSE_DISTANCE = 1 << 16;

    private final Allocation[][] directory = new Allocation[DIRECTORY_SIZE][];
    private final byte[][] generations = new byte[DIRECTORY_SIZE][];
    private final Object lock = new Object();
    private int nextFreshSlot = 1;
    private int[] freeSlots = new int[1024];
    private int freeHead;
    private int freeCount;
    private int liveCount;

    /** The allocation whose slot and generation {@code address} names, or null; no bounds check. */
    public Allocation lookup(long address) {
        if (address <= 0) {
            return null;
        }
        int slot = SvmAddress.slot(address);
        Allocation[] page = directory[slot >>> PAGE_BITS];
        if (page == null) {
            return null;
        }
        Allocation a = page[slot & PAGE_MASK];
        if (a == null || SvmAddress.generation(a.base) != SvmAddress.generation(address)) {
            return null;
        }
        return a;
    }

    /** Number of live allocations. */
    public int liveAllocations() {
        synchronized (lock) {
            return liveCount;
        }
    }

    /** Reserves a slot and returns the base address (offset 0) it will have. */
    long reserve() {
        synchronized (lock) {
            int slot;
            if (freeCount > REUSE_DISTANCE || (nextFreshSlot > SvmAddress.MAX_ALLOCATIONS && freeCount > 0)) {
                slot = freeSlots[freeHead];
                freeHead = (freeHead + 1) % freeSlots.length;
                freeCount--;
            } else if (nextFreshSlot <= SvmAddress.MAX_ALLOCATIONS) {
                slot = nextFreshSlot++;
            } else {
                throw new HsaException(HsaStatus.OUT_OF_RESOURCES,
                        "the SVM address space has " + SvmAddress.MAX_ALLOCATIONS + " live allocations");
            }
            int page = slot >>> PAGE_BITS;
            if (directory[page] == null) {
                generations[page] = new byte[PAGE_SIZE];
                directory[page] = new Allocation[PAGE_SIZE];
            }
            int generation = generations[page][slot & PAGE_MASK] & SvmAddress.GENERATION_MASK;
            return SvmAddress.encode(slot, generation, 0);
        }
    }

    /** Makes a reserved slot resolve to {@code allocation}. */
    void publish(Allocation allocation) {
        synchronized (lock) {
            directory[allocation.slot >>> PAGE_BITS][allocation.slot & PAGE_MASK] = allocation;
            liveCount++;
        }
    }

    /** Gives back a reserved slot that was never published. */
    void cancel(long base) {
        synchronized (lock) {
            release(SvmAddress.slot(base));
        }
    }

    /** Removes a live allocation; its addresses fault from now on. */
    void unpublish(Allocation allocation) {
        synchronized (lock) {
            Allocation[] page = directory[allocation.slot >>> PAGE_BITS];
            if (page[allocation.slot & PAGE_MASK] == allocation) {
                page[allocation.slot & PAGE_MASK] = null;
                liveCount--;
            }
            release(allocation.slot);
        }
    }

    /** Forgets every allocation: from now on every address faults (the runtime is shutting down). */
    void clear() {
        synchronized (lock) {
            for (int page = 0; page < DIRECTORY_SIZE; page++) {
                if (directory[page] != null) {
                    Arrays.fill(directory[page], null);
                }
            }
            liveCount = 0;
        }
    }

    private void release(int slot) {
        byte[] gens = generations[slot >>> PAGE_BITS];
        gens[slot & PAGE_MASK] = (byte) ((gens[slot & PAGE_MASK] + 1) & SvmAddress.GENERATION_MASK);
        if (freeCount == freeSlots.length) {
            int[] bigger = new int[freeSlots.length * 2];
            for (int i = 0; i < freeCount; i++) {
                bigger[i] = freeSlots[(freeHead + i) % freeSlots.length];
            }
            freeSlots = bigger;
            freeHead = 0;
        }
        freeSlots[(freeHead + freeCount) % freeSlots.length] = slot;
        freeCount++;
    }
}
