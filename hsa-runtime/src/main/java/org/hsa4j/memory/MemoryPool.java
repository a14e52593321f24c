package org.hsa4j.memory;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * A memory pool ({@code hsa_amd_memory_pool_t}): a segment, its global flags, the agent that owns
 * it, and the limits it reports: size, largest allocation, granule and alignment. Allocations are
 * accessible by the owner agent only, unless the pool is accessible by all or access is granted
 * with {@code allow_access}. GROUP and PRIVATE pools describe the per-dispatch segments the packet
 * sizes; they do not allocate. A pool of real addresses ({@link MemoryManager#createRealPool})
 * hands out memory whose SVM address is its native address.
 */
public final class MemoryPool {
    private final MemoryManager manager;
    private final String name;
    private final SegmentKind segment;
    private final Set<GlobalFlag> flags;
    /** {@link GlobalFlag#FINE_GRAINED} in {@link #flags}, read once: fidelity mode asks at every sector miss. */
    private final boolean fineGrained;
    private final int ownerAgent;
    private final long size;
    private final long allocMax;
    private final boolean accessibleByAll;
    private final boolean runtimeAllocAllowed;
    private final AtomicLong used = new AtomicLong();
    private final boolean realAddresses;
    /** Where an external pool's memory comes from, or null for the runtime's own. */
    private final PoolMemory external;

    /** The manager this pool allocates through. */
    MemoryManager manager() {
        return manager;
    }

    MemoryPool(MemoryManager manager, String name, SegmentKind segment, Set<GlobalFlag> flags, int ownerAgent,
               long size, long allocMax, boolean accessibleByAll, boolean runtimeAllocAllowed) {
        this(manager, name, segment, flags, ownerAgent, size, allocMax, accessibleByAll, runtimeAllocAllowed, false, null);
    }

    MemoryPool(MemoryManager manager, String name, SegmentKind segment, Set<GlobalFlag> flags, int ownerAgent,
               long size, long allocMax, boolean accessibleByAll, boolean runtimeAllocAllowed, boolean realAddresses,
               PoolMemory external) {
        this.realAddresses = realAddresses || external != null;
        this.external = external;
        this.manager = manager;
        this.name = name;
        this.segment = segment;
        this.flags = flags.isEmpty() ? Collections.emptySet() : Collections.unmodifiableSet(EnumSet.copyOf(flags));
        this.fineGrained = this.flags.contains(GlobalFlag.FINE_GRAINED);
        this.ownerAgent = ownerAgent;
        this.size = size;
        this.allocMax = allocMax;
        this.accessibleByAll = accessibleByAll;
        this.runtimeAllocAllowed = runtimeAllocAllowed;
    }

    /** Allocation granule in bytes: sizes are rounded up to it. */
    public static final long GRANULE = 64;
    /** Alignment of every allocation unless a larger one is asked for. */
    public static final long ALIGNMENT = 64;
    /** Largest alignment an allocation may ask for. */
    public static final long MAX_ALIGNMENT = 1L << 20;

    /** Allocates {@code bytes} at the pool's alignment; returns the SVM address. */
    public long allocate(long bytes) {
        return allocate(bytes, ALIGNMENT);
    }

    /** Allocates {@code bytes} aligned to {@code alignment} (a power of two); returns the SVM address. */
    public long allocate(long bytes, long alignment) {
        long mask = accessibleByAll ? -1L : 1L << ownerAgent;
        return manager.allocate(this, bytes, alignment, MemoryKind.POOL, mask, ownerAgent, null).base();
    }

    /** Frees an allocation made from this pool. */
    public void free(long address) {
        manager.free(address, this);
    }

    /** The name, as rocminfo would print it. */
    public String name() {
        return name;
    }

    /** The segment this pool serves. */
    public SegmentKind segment() {
        return segment;
    }

    /** Global flags (empty for non-global segments). */
    public Set<GlobalFlag> flags() {
        return flags;
    }

    /** True when the pool's SVM addresses are native addresses (bit 62 clear), false for tagged ones. */
    public boolean realAddresses() {
        return realAddresses;
    }

    /** The provider of an external pool's memory, or null. */
    PoolMemory external() {
        return external;
    }

    /** True when the pool is fine-grained. */
    public boolean isFineGrained() {
        return fineGrained;
    }

    /** Index of the agent the pool belongs to. */
    public int ownerAgent() {
        return ownerAgent;
    }

    /** Total bytes the pool can hand out. */
    public long size() {
        return size;
    }

    /** The largest single allocation. */
    public long allocMax() {
        return allocMax;
    }

    /** Allocation granule in bytes. */
    public long granule() {
        return GRANULE;
    }

    /** Alignment of allocations in bytes. */
    public long alignment() {
        return ALIGNMENT;
    }

    /** True when every agent may access the pool's allocations without allow_access. */
    public boolean accessibleByAll() {
        return accessibleByAll;
    }

    /** True when the pool can allocate at run time (false for GROUP and PRIVATE). */
    public boolean runtimeAllocAllowed() {
        return runtimeAllocAllowed;
    }

    /** Bytes currently allocated, rounded to blocks. */
    public long used() {
        return used.get();
    }

    /** Takes {@code bytes} of the pool's capacity; a request that does not fit changes nothing. */
    void reserve(long bytes, long requested) {
        long now;
        do {
            now = used.get();
            if (bytes > size - now) {
                throw new HsaException(HsaStatus.OUT_OF_RESOURCES, String.format(
                        "pool %s is exhausted: %d bytes asked, %d of %d in use", name, requested, now, size));
            }
        } while (!used.compareAndSet(now, now + bytes));
    }

    void unreserve(long bytes) {
        used.addAndGet(-bytes);
    }

    void checkAllocatable(long bytes, long alignment) {
        if (!runtimeAllocAllowed) {
            throw new HsaException(HsaStatus.INVALID_MEMORY_POOL,
                    "pool " + name + " (" + segment + ") does not allocate at run time");
        }
        if (bytes <= 0) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "allocation size must be positive, was " + bytes);
        }
        if (bytes > allocMax) {
            throw new HsaException(HsaStatus.INVALID_ALLOCATION, String.format(
                    "%d bytes exceed pool %s's largest allocation of %d bytes", bytes, name, allocMax));
        }
        if (alignment <= 0 || Long.bitCount(alignment) != 1 || alignment > MAX_ALIGNMENT) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT,
                    "alignment must be a power of two up to " + MAX_ALIGNMENT + ", was " + alignment);
        }
    }

    @Override
    public String toString() {
        return "MemoryPool[" + name + ", " + segment + ", " + flags + "]";
    }
}
