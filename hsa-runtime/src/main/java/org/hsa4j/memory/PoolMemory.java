package org.hsa4j.memory;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Memory a pool's allocations live in when it comes from outside the runtime, at native addresses
 * (a CUDA agent's device-local or managed memory): the pool's allocator, see
 * {@link MemoryManager#createExternalPool}. hsa-runtime knows nothing of who provides it.
 *
 * <p>Memory that is not host-accessible is never touched by the runtime: its allocations have a
 * zero-length segment, and only the owner agent is in their access mask, never grantable to
 * another. When the provider loses the memory (a context reset), it calls
 * {@link MemoryManager#revoke} first, so every address of the pool faults before the memory goes.
 */
public interface PoolMemory {
    /**
     * Allocates {@code bytes} at an alignment of at least {@link MemoryPool#ALIGNMENT}; returns the native address.
     *
     * @throws HsaException OUT_OF_RESOURCES (or the provider's status) when it cannot
     */
    long allocate(long bytes);

    /** Frees what {@link #allocate} returned; called once, after every checked access to it has finished. */
    void free(long address);

    /** True when host code may read and write the memory at its address. */
    boolean hostAccessible();

    /** Migrates {@code address .. address+bytes} to the agent with index {@code agent}; refused by default. */
    default void prefetch(long address, long bytes, int agent) {
        throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format("prefetch of 0x%x: this memory does not migrate",
                address));
    }

    /** Applies {@code advice} to {@code address .. address+bytes}; {@code agent} is the preferred location. Refused by default. */
    default void advise(long address, long bytes, MemAdvice advice, int agent) {
        throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format("advice for 0x%x: this memory takes none",
                address));
    }
}
