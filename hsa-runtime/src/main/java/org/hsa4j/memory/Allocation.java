package org.hsa4j.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One live region of the SVM address space: its base address, its backing off-heap segment
 * (exactly {@code size} bytes, so every access is bounds-checked by the segment itself), the pool
 * it came from and the set of agents that may touch it.
 */
public final class Allocation {
    final long base;
    final long size;
    final MemorySegment segment;
    final MemoryPool pool;
    final MemoryKind kind;
    /** Entry of the address space's table: {@link SvmAddress#tableIndex} of {@link #base}. */
    final int slot;
    final Object attachment;
    final int sizeClass;
    final MemorySegment block;
    final Arena dedicatedArena;
    final long reservedBytes;
    /** True for memory fidelity mode never caches: runtime-internal structures and kernarg memory (always coherent). */
    final boolean uncached;
    /** Page accounting of managed and plain system memory; null for every other kind. */
    final PageTable pages;
    volatile long accessMask;
    volatile int ownerAgent;
    volatile boolean freed;

    Allocation(long base, long size, MemorySegment segment, MemoryPool pool, MemoryKind kind, int slot,
               Object attachment, int sizeClass, MemorySegment block, Arena dedicatedArena, long reservedBytes,
               long accessMask, int ownerAgent, PageAccounting accounting) {
        this.base = base;
        this.size = size;
        this.segment = segment;
        this.pool = pool;
        this.kind = kind;
        this.slot = slot;
        this.attachment = attachment;
        this.sizeClass = sizeClass;
        this.block = block;
        this.dedicatedArena = dedicatedArena;
        this.reservedBytes = reservedBytes;
        this.accessMask = accessMask;
        this.ownerAgent = ownerAgent;
        this.uncached = kind == MemoryKind.INTERNAL || pool.flags().contains(GlobalFlag.KERNARG);
        this.pages = accounting != null && (kind == MemoryKind.MANAGED || kind == MemoryKind.SYSTEM)
                ? new PageTable(this, accounting, ownerAgent) : null;
    }

    /** The SVM address of the first byte. */
    public long base() {
        return base;
    }

    /** The size in bytes the caller asked for. */
    public long size() {
        return size;
    }

    /** The backing segment: offset 0 is {@link #base()}. */
    public MemorySegment segment() {
        return segment;
    }

    /** The pool this allocation came from. */
    public MemoryPool pool() {
        return pool;
    }

    /** The entry point that made this allocation. */
    public MemoryKind kind() {
        return kind;
    }

    /** True when the allocation is fine-grained (coherent during kernels). */
    public boolean fineGrained() {
        return pool.isFineGrained();
    }

    /**
     * True when the byte at {@code address} behaves as coarse-grained memory: the allocation's
     * pool is coarse-grained, or its page was advised {@link MemAdvice#SET_COARSE_GRAIN}.
     */
    public boolean coarseGrainedAt(long address) {
        return !pool.isFineGrained() || pages != null && pages.coarseGrainedAt(address - base);
    }

    /** The page table of managed and plain system memory, or null for other kinds. */
    public PageTable pages() {
        return pages;
    }

    /** The runtime object this memory belongs to (a signal block, a kernel object), or null. */
    public Object attachment() {
        return attachment;
    }

    /** Bit i set when the agent with index i may access this allocation. */
    public long accessMask() {
        return accessMask;
    }

    /** Index of the agent that owns this allocation (coarse-grained memory is owned by one agent). */
    public int ownerAgent() {
        return ownerAgent;
    }

    /** True when {@code address .. address+bytes} lies inside this allocation. */
    public boolean contains(long address, long bytes) {
        long offset = address - base;
        return offset >= 0 && bytes >= 0 && offset <= size - bytes;
    }

    @Override
    public String toString() {
        return String.format("Allocation[0x%016x, %d bytes, %s, %s]", base, size, kind, pool.name());
    }
}
