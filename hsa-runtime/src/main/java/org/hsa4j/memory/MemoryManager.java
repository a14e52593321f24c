package org.hsa4j.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Owns the SVM address space, the off-heap heap behind it and the memory pools. Every allocation,
 * whichever entry point makes it (pool, HIP-style call, signal, queue, kernel object), goes through
 * {@link #allocate} and every free through {@link #free} (user memory) or {@link #release}
 * (runtime-internal memory), so the checks on double free, foreign addresses, runtime-owned memory
 * and exhausted pools live in one place.
 *
 * <p>Every allocation that owns an arena (a large one's dedicated arena, a small one's arena made on
 * first access: see {@link Allocation}) is kept in a set, so that {@link #close()} closes them all,
 * before the heap's own arena, even when the application never freed them. Exactly one of
 * {@link #release} and {@link #close} closes each such arena (whoever removes it from the set).
 * {@link #release} closes it before the block goes back to the heap: that close waits out every
 * access in flight, so the next owner of the block never sees a write meant for the freed one.
 *
 * <p>Pools made with {@link #createRealPool} allocate from a {@link RealArena}, made when the first
 * such pool is: their SVM addresses are native ones, resolved by the same {@link AddressSpace}.
 * {@link SvmRegistrar}s added here (before or after that) are told of each chunk it maps.
 */
public final class MemoryManager implements AutoCloseable {
    private final AddressSpace space = new AddressSpace();
    private final BlockHeap heap = new BlockHeap();
    private final List<MemoryPool> pools = new CopyOnWriteArrayList<>();
    private final Set<Allocation> arenas = ConcurrentHashMap.newKeySet();
    private final FpAtomicDiagnostics fpAtomicDiagnostics = new FpAtomicDiagnostics(FpAtomicDiagnostics.DEFAULT_CAPACITY);
    private final FpAtomicPolicy fpAtomicPolicy;
    private final PageAccounting pageAccounting;
    /** The runtime's access strategy, told of every free ({@link SvmAccess#released}). */
    private final SvmAccess access;
    private volatile boolean closed;
    /** Guards {@link #real} and {@link #pendingRegistrars}. */
    private final Object realLock = new Object();
    /** The real-address arena, or null until the first real pool. */
    private volatile RealArena real;
    private final List<SvmRegistrar> pendingRegistrars = new java.util.ArrayList<>();
    /** Whether the real arena, when made, is a shared memfd mapping ({@link #shareRealSvm}); guarded by {@link #realLock}. */
    private boolean shareReal;

    /** A manager with CAS-loop FP atomics and XNACK off. */
    public MemoryManager() {
        this(FpAtomics.CAS_LOOP, false);
    }

    /** A manager whose agents' FP atomic adds follow {@code fpAtomics}, with XNACK {@code xnack}. */
    public MemoryManager(FpAtomics fpAtomics, boolean xnack) {
        this(fpAtomics, xnack, SvmAccess.DIRECT);
    }

    /** As {@link #MemoryManager(FpAtomics, boolean)}, for a runtime whose accesses go through {@code access}. */
    public MemoryManager(FpAtomics fpAtomics, boolean xnack, SvmAccess access) {
        this.fpAtomicPolicy = new FpAtomicPolicy(fpAtomics, space, fpAtomicDiagnostics);
        this.pageAccounting = new PageAccounting(xnack);
        this.access = access;
    }

    /** Page accounting of managed and plain system memory: XNACK and the migration counters. */
    public PageAccounting pageAccounting() {
        return pageAccounting;
    }

    /**
     * Migrates the pages of {@code address .. address+bytes} to the agent with index {@code agent}.
     *
     * @throws HsaException INVALID_ARGUMENT when the range is not inside one managed or plain system
     *                      allocation, or a GPU is to hold plain system memory with XNACK off
     */
    public void prefetch(long address, long bytes, int agent) {
        Allocation x = externalRange(address, bytes);
        if (x != null) {
            x.pool.external().prefetch(address, bytes, agent);
            return;
        }
        Allocation a = pagedRange(address, bytes, "prefetch");
        if (a.kind == MemoryKind.SYSTEM && !pageAccounting.xnack() && agent != FpAtomicPolicy.CPU_AGENT) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format("prefetch of 0x%016x: XNACK off, a GPU "
                    + "cannot hold plain system memory %s", address, a));
        }
        a.pages.prefetch(address - a.base, bytes, agent);
    }

    /**
     * Applies {@code advice} to the pages of {@code address .. address+bytes}; {@code agent} is the
     * preferred location for {@link MemAdvice#SET_PREFERRED_LOCATION} and ignored otherwise.
     *
     * @throws HsaException INVALID_ARGUMENT when the range is not inside one managed or plain system allocation
     */
    public void advise(long address, long bytes, MemAdvice advice, int agent) {
        if (advice == null) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "advice must be one of " + List.of(MemAdvice.values()));
        }
        Allocation x = externalRange(address, bytes);
        if (x != null) {
            x.pool.external().advise(address, bytes, advice, agent);
            return;
        }
        Allocation a = pagedRange(address, bytes, "advise");
        a.pages.advise(address - a.base, bytes, advice, agent);
    }

    /** The external allocation holding all of {@code address .. address+bytes}, or null. */
    private Allocation externalRange(long address, long bytes) {
        ensureOpen();
        Allocation a = find(address);
        return a != null && a.pool.external() != null && bytes > 0 && a.contains(address, bytes) ? a : null;
    }

    private Allocation pagedRange(long address, long bytes, String what) {
        ensureOpen();
        Allocation a = find(address);
        if (bytes <= 0 || a == null || !a.contains(address, bytes)) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format(
                    "%s of 0x%016x+%d: not a non-empty range inside one live allocation", what, address, bytes));
        }
        if (a.pages == null) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format(
                    "%s of 0x%016x: %s is not managed or plain system memory", what, address, a));
        }
        return a;
    }

    /** The address space: slot table from SVM address to allocation. */
    public AddressSpace addressSpace() {
        return space;
    }

    /** The FP atomics policy every agent's {@link Svm} applies. */
    public FpAtomicPolicy fpAtomicPolicy() {
        return fpAtomicPolicy;
    }

    /** Where {@link FpAtomics#UNSAFE_DIAGNOSE} reports FP atomic adds that unsafe atomics would lose. */
    public FpAtomicDiagnostics fpAtomicDiagnostics() {
        return fpAtomicDiagnostics;
    }

    /** Creates a pool; the runtime calls this while it builds the topology. */
    public MemoryPool createPool(String name, SegmentKind segment, Set<GlobalFlag> flags, int ownerAgent,
                                 long size, long allocMax, boolean accessibleByAll, boolean runtimeAllocAllowed) {
        MemoryPool pool = new MemoryPool(this, name, segment, flags, ownerAgent, size,
                Math.min(allocMax, SvmAddress.MAX_ALLOCATION_SIZE), accessibleByAll, runtimeAllocAllowed);
        pools.add(pool);
        return pool;
    }

    /**
     * Creates a GLOBAL pool whose allocations have real addresses: the SVM address is the native
     * one, mapped by {@link RealArena} (made on the first call; 64 GiB of address space, committed
     * in 4 MiB chunks).
     *
     * @throws HsaException OUT_OF_RESOURCES when the address space cannot be reserved (not Linux, or mmap refused)
     */
    public MemoryPool createRealPool(String name, Set<GlobalFlag> flags, int ownerAgent, long size, long allocMax,
                                     boolean accessibleByAll) {
        ensureOpen();
        synchronized (realLock) {
            if (real == null) {
                real = new RealArena(RealArena.DEFAULT_RESERVATION, RealArena.QUARANTINE_BYTES, pendingRegistrars, shareReal);
                pendingRegistrars.clear();
                space.attach(real);
            }
        }
        MemoryPool pool = new MemoryPool(this, name, SegmentKind.GLOBAL, flags, ownerAgent, size,
                Math.min(allocMax, SvmAddress.MAX_ALLOCATION_SIZE), accessibleByAll, true, true, null);
        pools.add(pool);
        return pool;
    }

    /**
     * Creates a GLOBAL pool whose memory comes from {@code memory} (an agent's own: device-local,
     * managed), at native addresses: the addresses resolve through the same {@link AddressSpace},
     * and host-inaccessible memory faults for every agent but the owner (whose kernels run on
     * their device). Allocations of the pool vanish at {@link #revoke}.
     */
    public MemoryPool createExternalPool(String name, Set<GlobalFlag> flags, int ownerAgent, long size, long allocMax,
                                         boolean accessibleByAll, PoolMemory memory) {
        ensureOpen();
        java.util.Objects.requireNonNull(memory, "memory");
        MemoryPool pool = new MemoryPool(this, name, SegmentKind.GLOBAL, flags, ownerAgent, size,
                Math.min(allocMax, SvmAddress.MAX_ALLOCATION_SIZE), accessibleByAll && memory.hostAccessible(), true,
                true, memory);
        pools.add(pool);
        return pool;
    }

    /**
     * Makes every live allocation of external {@code pool} vanish without freeing it (its provider
     * lost the memory, or is about to): each one's arena is closed, which waits out the checked
     * accesses in flight, and its addresses fault from now on. Call before the memory goes.
     */
    public void revoke(MemoryPool pool) {
        for (Allocation a : space.externalAllocations(pool)) {
            Arena arena;
            synchronized (a) {
                if (a.freed) {
                    continue;
                }
                a.freed = true;
                arena = a.arena();
            }
            access.released(a);
            space.unpublish(a);
            a.pool.unreserve(a.reservedBytes);
            if (arena != null && arenas.remove(a)) {
                arena.close();
            }
        }
    }

    /**
     * Tells {@code registrar} of every chunk of real-address SVM mapped now and later, each before
     * any of its bytes is handed out ({@link SvmRegistrar}).
     *
     * @throws HsaException whatever the registrar refuses an already-mapped chunk with
     */
    public void addRegistrar(SvmRegistrar registrar) {
        synchronized (realLock) {
            if (real == null) {
                pendingRegistrars.add(registrar);
            } else {
                real.addRegistrar(registrar);
            }
        }
    }

    /**
     * Asks for the real-address SVM arena to be a file another process can map at the same
     * addresses ({@link #svmShare}), as a CUDA agent does so that a device server can take over after
     * a fault. Chosen once, when the arena is made (the first real pool): a private arena, the
     * default, costs less on first touch of each page. True when the arena is or will be shared;
     * false when it was made private already.
     */
    public boolean shareRealSvm() {
        synchronized (realLock) {
            if (real == null) {
                shareReal = true;
                return true;
            }
            return real.share() != null;
        }
    }

    /**
     * The real-address SVM arena as a file another process can map at the same addresses (a CUDA
     * device server), or empty before the first real pool or where the arena is private (not asked
     * for by {@link #shareRealSvm}, or no memfd).
     */
    public java.util.Optional<SvmShare> svmShare() {
        synchronized (realLock) {
            return java.util.Optional.ofNullable(real == null ? null : real.share());
        }
    }

    /** Stops telling {@code registrar}; it is first told that every mapped chunk goes away for it. */
    public void removeRegistrar(SvmRegistrar registrar) {
        synchronized (realLock) {
            if (real == null) {
                pendingRegistrars.remove(registrar);
            } else {
                real.removeRegistrar(registrar);
            }
        }
    }

    /** Every pool, in creation order. */
    public List<MemoryPool> pools() {
        return List.copyOf(pools);
    }

    /**
     * Allocates {@code bytes} from {@code pool}: reserves capacity, takes off-heap memory, and
     * publishes a slot so that the returned allocation's addresses resolve.
     */
    public Allocation allocate(MemoryPool pool, long bytes, long alignment, MemoryKind kind, long accessMask,
                               int ownerAgent, Object attachment) {
        ensureOpen();
        pool.checkAllocatable(bytes, alignment);
        if (pool.external() != null) {
            return allocateExternal(pool, bytes, kind, accessMask, ownerAgent, attachment);
        }
        if (pool.realAddresses()) {
            return allocateReal(pool, bytes, alignment, kind, accessMask, ownerAgent, attachment);
        }
        int sizeClass = BlockHeap.sizeClass(bytes, alignment);
        long reserved = sizeClass >= 0 ? BlockHeap.blockSize(sizeClass)
                : (bytes + MemoryPool.GRANULE - 1) & -MemoryPool.GRANULE;
        pool.reserve(reserved, bytes);
        long base = 0;
        Arena dedicated = null;
        try {
            base = space.reserve(sizeClass < 0);
            MemorySegment segment;
            MemorySegment block = null;
            if (sizeClass >= 0) {
                block = heap.allocateBlock(sizeClass);
                segment = block.asSlice(0, bytes);
            } else {
                dedicated = Arena.ofShared();
                segment = dedicated.allocate(bytes, Math.max(alignment, MemoryPool.ALIGNMENT));
                heap.addDedicated(reserved);
            }
            Allocation allocation = new Allocation(base, bytes, segment, pool, kind, SvmAddress.tableIndex(base),
                    attachment, sizeClass, block, dedicated, reserved, accessMask, ownerAgent, pageAccounting);
            if (dedicated != null) {
                arenas.add(allocation);
                if (closed && arenas.remove(allocation)) {
                    throw new HsaException(HsaStatus.NOT_INITIALIZED, "the runtime has been shut down");
                }
            }
            space.publish(allocation);
            return allocation;
        } catch (OutOfMemoryError | RuntimeException e) {
            pool.unreserve(reserved);
            if (base != 0) {
                space.cancel(base);
            }
            if (dedicated != null && dedicated.scope().isAlive()) {
                dedicated.close();
            }
            if (e instanceof HsaException he) {
                throw he;
            }
            throw new HsaException(HsaStatus.OUT_OF_RESOURCES, "off-heap allocation of " + bytes + " bytes failed", e);
        }
    }

    /** {@link #allocate} from an external pool: the provider's memory at its native address. */
    private Allocation allocateExternal(MemoryPool pool, long bytes, MemoryKind kind, long accessMask, int ownerAgent,
                                        Object attachment) {
        PoolMemory memory = pool.external();
        long reserved = (bytes + MemoryPool.GRANULE - 1) & -MemoryPool.GRANULE;
        pool.reserve(reserved, bytes);
        long base = 0;
        try {
            base = memory.allocate(bytes);
            if (base == 0 || SvmAddress.tagged(base) || base < 0) {
                throw new HsaException(HsaStatus.INVALID_ALLOCATION, String.format("pool %s's memory returned "
                        + "0x%x, which is not a native address", pool.name(), base));
            }
            boolean host = memory.hostAccessible();
            MemorySegment raw = MemorySegment.ofAddress(base).reinterpret(host ? bytes : 0);
            long mask = host ? accessMask : 1L << ownerAgent;
            Allocation allocation = new Allocation(base, bytes, raw, pool, kind, -1, attachment, -1, raw, null,
                    reserved, mask, ownerAgent, null);
            space.publish(allocation);
            return allocation;
        } catch (RuntimeException e) {
            pool.unreserve(reserved);
            if (base != 0 && !SvmAddress.tagged(base) && base > 0) {
                memory.free(base);
            }
            throw e;
        }
    }

    /** {@link #allocate} from a real-address pool: a block or span of the {@link RealArena}, scoped like a small allocation. */
    private Allocation allocateReal(MemoryPool pool, long bytes, long alignment, MemoryKind kind, long accessMask,
                                    int ownerAgent, Object attachment) {
        RealArena arena;
        synchronized (realLock) {
            arena = real;
        }
        long reserved = RealArena.footprint(bytes, alignment);
        pool.reserve(reserved, bytes);
        long base = 0;
        try {
            base = arena.reserve(bytes, alignment);
            MemorySegment raw = MemorySegment.ofAddress(base).reinterpret(bytes);
            Allocation allocation = new Allocation(base, bytes, raw, pool, kind, -1, attachment,
                    RealArena.classShift(bytes, alignment), raw, null, reserved, accessMask, ownerAgent, pageAccounting);
            space.publish(allocation);
            return allocation;
        } catch (RuntimeException e) {
            pool.unreserve(reserved);
            if (base != 0) {
                arena.recycle(base);
            }
            throw e;
        }
    }

    /**
     * Frees the allocation that starts at {@code address}. A second free, an address that is not
     * the start of a live allocation, runtime-internal memory (a signal block, a queue, a kernel
     * object: {@link MemoryKind#INTERNAL}), or (when {@code expectedPool} is given) an allocation of
     * another pool is refused with a status and changes nothing.
     */
    public void free(long address, MemoryPool expectedPool) {
        ensureOpen();
        Allocation a = space.lookup(address);
        if (a == null) {
            throw new HsaException(HsaStatus.INVALID_ALLOCATION, String.format(
                    "free of 0x%016x: not a live allocation (double free or foreign address)", address));
        }
        if (a.base != address) {
            throw new HsaException(HsaStatus.INVALID_ALLOCATION, String.format(
                    "free of 0x%016x: points %d bytes into an allocation, not at its start", address, address - a.base));
        }
        if (a.kind == MemoryKind.INTERNAL) {
            throw new HsaException(HsaStatus.INVALID_ALLOCATION, String.format("free of 0x%016x: the runtime owns "
                    + "this memory (a signal, queue or kernel object)", address));
        }
        if (expectedPool != null && a.pool != expectedPool) {
            throw new HsaException(HsaStatus.INVALID_MEMORY_POOL, String.format(
                    "free of 0x%016x: allocated from pool %s, not %s", address, a.pool.name(), expectedPool.name()));
        }
        release(a);
    }

    /**
     * Frees an allocation without the checks of {@link #free}: for the runtime's own structures.
     * When the allocation was ever accessed this closes its arena, one handshake with every thread
     * (tens of microseconds), before its block can serve another allocation.
     */
    public void release(Allocation a) {
        Arena arena;
        synchronized (a) {
            if (a.freed) {
                throw new HsaException(HsaStatus.INVALID_ALLOCATION,
                        String.format("free of 0x%016x: already freed", a.base));
            }
            a.freed = true;
            arena = a.arena();
        }
        access.released(a);
        space.unpublish(a);
        a.pool.unreserve(a.reservedBytes);
        if (arena != null && arenas.remove(a)) {
            arena.close();
        }
        if (a.dedicatedArena != null) {
            heap.removeDedicated(a.reservedBytes);
        } else if (a.pool.external() != null) {
            a.pool.external().free(a.base);
        } else if (!SvmAddress.tagged(a.base)) {
            real.recycle(a.base);
        } else {
            heap.releaseBlock(a.sizeClass, a.block);
        }
    }

    /**
     * Keeps {@code a}, which has just made its own arena, until it is released or the manager
     * closes; when the manager has closed meanwhile, closes that arena and throws IllegalStateException.
     */
    void track(Allocation a) {
        arenas.add(a);
        if (closed && arenas.remove(a)) {
            a.arena().close();
            throw new IllegalStateException("the runtime has been shut down");
        }
    }

    /** Lets the agents in {@code agentBits} (bit i for agent i) access {@code a} too ({@code allow_access}). */
    public void grantAccess(Allocation a, long agentBits) {
        PoolMemory external = a.pool.external();
        if (external != null && !external.hostAccessible() && (agentBits & ~(1L << a.ownerAgent)) != 0) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format("0x%016x: %s is reachable by its owner "
                    + "agent only (host code cannot touch it)", a.base, a.pool.name()));
        }
        synchronized (a) {
            a.accessMask |= agentBits;
        }
    }

    /**
     * Makes the agent with index {@code agent} the owner of {@code a}, with access; the previous
     * owner loses its access unless it is the new owner ({@code hsa_memory_assign_agent}).
     */
    public void transferOwnership(Allocation a, int agent) {
        synchronized (a) {
            long mask = a.accessMask;
            if (a.ownerAgent != agent) {
                mask &= ~(1L << a.ownerAgent);
            }
            a.accessMask = mask | 1L << agent;
            a.ownerAgent = agent;
        }
    }

    /** The live allocation containing the byte at {@code address}, or null (one past the end is outside). */
    public Allocation find(long address) {
        Allocation a = space.lookup(address);
        return a != null && a.contains(address, 1) ? a : null;
    }

    /** Off-heap bytes the runtime holds (chunks and dedicated arenas). */
    public long reservedBytes() {
        return heap.reservedBytes();
    }

    private void ensureOpen() {
        if (closed) {
            throw new HsaException(HsaStatus.NOT_INITIALIZED, "the runtime has been shut down");
        }
    }

    /**
     * Gives back all off-heap memory, live allocations included: later allocations fail with
     * NOT_INITIALIZED and every address faults.
     */
    @Override
    public void close() {
        closed = true;
        space.clear();
        for (Allocation a : arenas) {
            if (arenas.remove(a)) {
                a.arena().close();
            }
        }
        heap.close();
        synchronized (realLock) {
            if (real != null) {
                real.close();
            }
        }
    }
}
