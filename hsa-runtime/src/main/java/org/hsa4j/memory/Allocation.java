package org.hsa4j.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.LongFunction;

/**
 * One live region of the SVM address space: its base address, its backing off-heap segment
 * (exactly {@code size} bytes, so every access is bounds-checked by the segment itself), the pool
 * it came from and the set of agents that may touch it.
 *
 * <p>Every byte of an allocation is reached through {@link #segment()}, which is scoped to an arena
 * of this allocation alone: a large allocation's dedicated arena, or, for a small one (a recycled
 * BlockHeap block), a shared arena made on first use. Freeing closes that arena before the block
 * goes back to the heap, and closing a shared arena is the JDK's proof that no access is in flight:
 * every access through any segment of it either finished before the close returned or fails with
 * IllegalStateException. So a view, a slice or a checked access that raced the free can never
 * touch the block once it belongs to the next allocation. A small allocation nobody ever accessed
 * has no arena, and its free costs no handshake.
 */
public final class Allocation {
    final long base;
    final long size;
    /** The bytes, unscoped for a small allocation (a slice of the heap's arena): only {@link #segment()} hands them out. */
    private final MemorySegment raw;
    /** The bytes scoped to this allocation's arena: null until first use for a small allocation. */
    private MemorySegment segment;
    /** A small allocation's own arena, made with {@link #segment}; guarded by this. */
    private Arena arena;
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
    /** Fidelity mode: per GPU agent index, the coherent strategy's state (the home bytes its L2 may still serve); null until one is made. */
    private volatile Object[] agentStates;

    Allocation(long base, long size, MemorySegment segment, MemoryPool pool, MemoryKind kind, int slot,
               Object attachment, int sizeClass, MemorySegment block, Arena dedicatedArena, long reservedBytes,
               long accessMask, int ownerAgent, PageAccounting accounting) {
        this.base = base;
        this.size = size;
        this.raw = segment;
        this.segment = dedicatedArena != null ? segment : null;
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

    /**
     * The backing segment, offset 0 at {@link #base()}, scoped to this allocation: once the
     * allocation is freed every access through it (or a slice of it) throws IllegalStateException.
     *
     * @throws IllegalStateException when the allocation was freed before its segment was first asked for
     */
    public MemorySegment segment() {
        MemorySegment s = segment;
        return s != null ? s : scope();
    }

    /**
     * Makes a small allocation's own arena and scoped segment, once (plain reads of {@link #segment}
     * then see it); a racy reader of a large allocation that saw no segment yet gets the dedicated one.
     */
    private synchronized MemorySegment scope() {
        if (dedicatedArena != null) {
            return raw;
        }
        if (segment == null) {
            if (freed) {
                throw new IllegalStateException(String.format("allocation 0x%016x was freed", base));
            }
            Arena own = Arena.ofShared();
            MemorySegment s = raw.reinterpret(own, null);
            arena = own;
            pool.manager().track(this);
            segment = s;
        }
        return segment;
    }

    /** The arena this allocation's memory is scoped to, or null for a small one never accessed; call under this lock or after it. */
    Arena arena() {
        return dedicatedArena != null ? dedicatedArena : arena;
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

    /** Fidelity mode: the coherent strategy's state of this allocation for agent {@code agent}, or null when none was made. */
    Object agentState(int agent) {
        Object[] s = agentStates;
        return s != null && agent < s.length ? s[agent] : null;
    }

    /** Fidelity mode: {@link #agentState}, made by {@code make} (given the size) on first use. */
    Object agentStateFor(int agent, LongFunction<Object> make) {
        Object h = agentState(agent);
        return h != null ? h : makeAgentState(agent, make);
    }

    private synchronized Object makeAgentState(int agent, LongFunction<Object> make) {
        Object[] s = agentStates;
        if (s == null || agent >= s.length) {
            s = s == null ? new Object[agent + 1] : java.util.Arrays.copyOf(s, agent + 1);
        } else if (s[agent] != null) {
            return s[agent];
        } else {
            s = s.clone();
        }
        Object h = make.apply(size);
        s[agent] = h;
        agentStates = s;
        return h;
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
