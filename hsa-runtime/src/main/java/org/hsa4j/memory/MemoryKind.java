package org.hsa4j.memory;

/** How an allocation came to be: which entry point made it, and so which access rules apply. */
public enum MemoryKind {
    /** Allocated from a memory pool directly ({@code hsa_amd_memory_pool_allocate}). */
    POOL,
    /** hipHostMalloc: fine-grained host memory, accessible by every agent. */
    HOST,
    /** hipMalloc: coarse-grained memory of one GPU agent. */
    DEVICE,
    /** hipMallocManaged: fine-grained, accessible by every agent, may migrate. */
    MANAGED,
    /** Plain malloc/new: host memory that a GPU may touch only with XNACK on. */
    SYSTEM,
    /** Runtime-internal structures: signals, queues, kernel objects. */
    INTERNAL
}
