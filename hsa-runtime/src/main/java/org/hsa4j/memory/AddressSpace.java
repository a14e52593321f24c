package org.hsa4j.memory;

import java.util.Arrays;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The table behind the flat SVM address space: slot number to live {@link Allocation}.
 *
 * <p>The table is a two-level directory (pages of 4096 slots, made on first use; the small slots
 * first, then the large ones), so a lookup is two plain array loads. Plain loads are enough: an
 * address reaches another thread only through some synchronizing operation (a kernarg write
 * followed by a packet's release, a signal, a queue), which orders the table write before it; a
 * fabricated address sees null and faults. Allocation's identity fields are final, so even a racy
 * reader sees a whole object.
 *
 * <p>Each size class ({@link SvmAddress}) has its own slots. Slots are recycled first-in first-out,
 * and only once more than {@link #REUSE_DISTANCE} slots of the class are free (or no fresh one is
 * left), and each reuse bumps the slot's generation. A slot whose generation is at its class's
 * maximum is retired instead of wrapping: it is never handed out again, so an address, once its
 * allocation is freed, can never resolve to any allocation again. When every slot of a class is
 * live or retired, allocation fails with OUT_OF_RESOURCES.
 *
 * <p>An address with bit 62 clear is a real native address: it resolves through the
 * {@link RealArena} attached to this space, if any (see that class), and faults otherwise. The
 * tagged path pays nothing for it. Allocations of external pools ({@link PoolMemory}: a CUDA
 * agent's device-local or managed memory) are at native addresses outside that arena: they are
 * kept in an ordered map, searched only when the arena has no allocation at the address and only
 * once an external allocation exists.
 */
public final class AddressSpace {
    private static final int PAGE_BITS = 12;
    private static final int PAGE_SIZE = 1 << PAGE_BITS;
    private static final int PAGE_MASK = PAGE_SIZE - 1;
    private static final int DIRECTORY_SIZE = (SvmAddress.TABLE_SIZE + PAGE_SIZE - 1) >>> PAGE_BITS;
    /** Free slots kept back before one is reused, so stale pointers stay detectable for long. */
    static final int REUSE_DISTANCE = 1 << 16;

    private final Allocation[][] directory = new Allocation[DIRECTORY_SIZE][];
    private final int[][] generations = new int[DIRECTORY_SIZE][];
    private final Object lock = new Object();
    private final Slots small;
    private final Slots large;
    private int liveCount;
    /** The real-address kind's arena, or null: set once, before any real address exists. */
    private RealArena real;
    /** External pools' live allocations by base address. */
    private final java.util.concurrent.ConcurrentSkipListMap<Long, Allocation> external =
            new java.util.concurrent.ConcurrentSkipListMap<>();
    /** True once an external allocation was published: until then the map is never searched. */
    private volatile boolean anyExternal;

    /** The free and fresh slots of one size class, and the generation at which they retire. */
    private static final class Slots {
        final boolean large;
        final int tableBase;
        final int lastSlot;
        final int lastGeneration;
        final int reuseDistance;
        int nextFresh = 1;
        int[] free = new int[1024];
        int freeHead;
        int freeCount;
        long retired;

        Slots(boolean large, int tableBase, int lastSlot, int lastGeneration, int reuseDistance) {
            this.large = large;
            this.tableBase = tableBase;
            this.lastSlot = lastSlot;
            this.lastGeneration = lastGeneration;
            this.reuseDistance = reuseDistance;
        }

        /** The next slot to hand out, or -1 when every slot is live or retired. */
        int take() {
            if (freeCount > reuseDistance || (nextFresh > lastSlot && freeCount > 0)) {
                int slot = free[freeHead];
                freeHead = (freeHead + 1) % free.length;
                freeCount--;
                return slot;
            }
            return nextFresh <= lastSlot ? nextFresh++ : -1;
        }

        void put(int slot) {
            if (freeCount == free.length) {
                int[] bigger = new int[free.length * 2];
                for (int i = 0; i < freeCount; i++) {
                    bigger[i] = free[(freeHead + i) % free.length];
                }
                free = bigger;
                freeHead = 0;
            }
            free[(freeHead + freeCount) % free.length] = slot;
            freeCount++;
        }

        long encode(int slot, int generation) {
            return large ? SvmAddress.encodeLarge(slot, generation, 0) : SvmAddress.encode(slot, generation, 0);
        }
    }

    /** The address space of a runtime: every slot of both classes, reused after {@link #REUSE_DISTANCE} others. */
    public AddressSpace() {
        this(REUSE_DISTANCE, SvmAddress.MAX_ALLOCATIONS, SvmAddress.MAX_LARGE_ALLOCATIONS);
    }

    /** For tests: {@code smallSlots} and {@code largeSlots} slots per class, reused after {@code reuseDistance} others. */
    AddressSpace(int reuseDistance, int smallSlots, int largeSlots) {
        small = new Slots(false, 0, Math.min(smallSlots, SvmAddress.MAX_ALLOCATIONS), SvmAddress.GENERATION_MASK,
                reuseDistance);
        large = new Slots(true, 1 << SvmAddress.SLOT_BITS, Math.min(largeSlots, SvmAddress.MAX_LARGE_ALLOCATIONS),
                SvmAddress.LARGE_GENERATION_MASK, reuseDistance);
    }

    /** The allocation whose slot and generation {@code address} names, or null; no bounds check. */
    public Allocation lookup(long address) {
        if (!SvmAddress.tagged(address)) {
            RealArena r = real;
            Allocation a = r == null ? null : r.lookup(address);
            return a != null || !anyExternal ? a : lookupExternal(address);
        }
        int index = SvmAddress.tableIndex(address);
        Allocation[] page = directory[index >>> PAGE_BITS];
        if (page == null) {
            return null;
        }
        Allocation a = page[index & PAGE_MASK];
        if (a == null || !SvmAddress.sameAllocation(a.base, address)) {
            return null;
        }
        return a;
    }

    /** The external allocation holding the byte at {@code address}, or null. */
    private Allocation lookupExternal(long address) {
        java.util.Map.Entry<Long, Allocation> e = external.floorEntry(address);
        if (e == null) {
            return null;
        }
        Allocation a = e.getValue();
        return Long.compareUnsigned(address - a.base, Math.max(1, a.size)) < 0 ? a : null;
    }

    /** The live allocations of external {@code pool}. */
    java.util.List<Allocation> externalAllocations(MemoryPool pool) {
        java.util.List<Allocation> out = new java.util.ArrayList<>();
        for (Allocation a : external.values()) {
            if (a.pool == pool) {
                out.add(a);
            }
        }
        return out;
    }

    /** Number of live allocations. */
    public int liveAllocations() {
        synchronized (lock) {
            return liveCount;
        }
    }

    /** Slots retired because their generation ran out, both classes together. */
    long retiredSlots() {
        synchronized (lock) {
            return small.retired + large.retired;
        }
    }

    /** Reserves a small slot and returns the base address (offset 0) it will have. */
    long reserve() {
        return reserve(false);
    }

    /**
     * Reserves a slot of the large or the small class and returns the base address (offset 0) it will have.
     *
     * @throws HsaException OUT_OF_RESOURCES when every slot of the class is live or retired
     */
    long reserve(boolean largeClass) {
        Slots slots = largeClass ? large : small;
        synchronized (lock) {
            int slot = slots.take();
            if (slot < 0) {
                throw new HsaException(HsaStatus.OUT_OF_RESOURCES, String.format("the SVM address space has no "
                        + "%s slot left: %d live or retired", largeClass ? "large" : "small", slots.lastSlot));
            }
            int index = slots.tableBase + slot;
            int page = index >>> PAGE_BITS;
            if (directory[page] == null) {
                generations[page] = new int[PAGE_SIZE];
                directory[page] = new Allocation[PAGE_SIZE];
            }
            return slots.encode(slot, generations[page][index & PAGE_MASK]);
        }
    }

    /** Makes real (untagged) addresses resolve through {@code arena}. */
    void attach(RealArena arena) {
        synchronized (lock) {
            real = arena;
        }
    }

    /** Makes a reserved slot (or a real-address block) resolve to {@code allocation}. */
    void publish(Allocation allocation) {
        synchronized (lock) {
            if (allocation.pool.external() != null) {
                external.put(allocation.base, allocation);
                anyExternal = true;
                liveCount++;
                return;
            }
            if (!SvmAddress.tagged(allocation.base)) {
                real.publish(allocation);
                liveCount++;
                return;
            }
            directory[allocation.slot >>> PAGE_BITS][allocation.slot & PAGE_MASK] = allocation;
            liveCount++;
        }
    }

    /** Gives back a reserved slot that was never published. */
    void cancel(long base) {
        synchronized (lock) {
            release(base);
        }
    }

    /** Removes a live allocation; its addresses fault from now on. */
    void unpublish(Allocation allocation) {
        synchronized (lock) {
            if (allocation.pool.external() != null) {
                if (external.remove(allocation.base, allocation)) {
                    liveCount--;
                }
                return;
            }
            if (!SvmAddress.tagged(allocation.base)) {
                if (real.unpublish(allocation)) {
                    liveCount--;
                }
                return;
            }
            Allocation[] page = directory[allocation.slot >>> PAGE_BITS];
            if (page[allocation.slot & PAGE_MASK] == allocation) {
                page[allocation.slot & PAGE_MASK] = null;
                liveCount--;
            }
            release(allocation.base);
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
            if (real != null) {
                real.clear();
            }
            external.clear();
            liveCount = 0;
        }
    }

    /** Bumps the generation of the slot of {@code base} and frees the slot, or retires it at its last generation. */
    private void release(long base) {
        Slots slots = SvmAddress.large(base) ? large : small;
        int index = SvmAddress.tableIndex(base);
        int[] gens = generations[index >>> PAGE_BITS];
        int generation = gens[index & PAGE_MASK];
        if (generation == slots.lastGeneration) {
            slots.retired++;
            return;
        }
        gens[index & PAGE_MASK] = generation + 1;
        slots.put(SvmAddress.slot(base));
    }
}
