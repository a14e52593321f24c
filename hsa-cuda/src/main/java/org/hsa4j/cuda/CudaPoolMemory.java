package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.hsa4j.cuda.driver.CudaDriver;
import org.hsa4j.memory.MemAdvice;
import org.hsa4j.memory.PoolMemory;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The memory behind a CUDA agent's device-local pool ({@code cuMemAlloc_v2}: coarse-grained, the
 * device's only) and managed pool ({@code cuMemAllocManaged}: host-accessible, migrating; refused
 * beyond the card's free memory, since more can hang the GPU). Prefetch and advice of managed
 * memory are {@code cuMemPrefetchAsync_v2} and {@code cuMemAdvise_v2}, also used by managed
 * {@link CudaBuffer}s. The agent revokes the pools' allocations before a context reset or close
 * frees their memory ({@link org.hsa4j.memory.MemoryManager#revoke}); a free that finds its
 * context gone frees nothing.
 */
final class CudaPoolMemory implements PoolMemory {
    private static final int MEM_ATTACH_GLOBAL = 0x1;
    private static final int STREAM_NON_BLOCKING = 0x1;

    private final CudaContext context;
    private final CudaDeviceInfo info;
    private final int agentIndex;
    private final boolean managed;

    CudaPoolMemory(CudaContext context, CudaDeviceInfo info, int agentIndex, boolean managed) {
        this.context = context;
        this.info = info;
        this.agentIndex = agentIndex;
        this.managed = managed;
    }

    @Override
    public long allocate(long bytes) {
        CudaDriver d = context.driver();
        context.enter();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_LONG);
            if (!managed) {
                d.check(d.cuMemAlloc(out, bytes), "cuMemAlloc_v2(" + bytes + ")");
                return out.get(JAVA_LONG, 0);
            }
            MemorySegment total = a.allocate(JAVA_LONG);
            d.check(d.cuMemGetInfo(out, total), "cuMemGetInfo_v2");
            long free = out.get(JAVA_LONG, 0);
            if (bytes > free) {
                throw new HsaException(HsaStatus.OUT_OF_RESOURCES, "managed allocation of " + bytes
                        + " bytes exceeds the " + free + " bytes free on " + info.agentName());
            }
            d.check(d.cuMemAllocManaged(out, bytes, MEM_ATTACH_GLOBAL), "cuMemAllocManaged(" + bytes + ")");
            return out.get(JAVA_LONG, 0);
        } finally {
            context.exit();
        }
    }

    @Override
    public void free(long address) {
        try {
            context.enter();
        } catch (RuntimeException closed) {
            return;   // the context is gone, and the memory with it
        }
        try {
            context.driver().check(context.driver().cuMemFree(address), "cuMemFree_v2");
        } finally {
            context.exit();
        }
    }

    @Override
    public boolean hostAccessible() {
        return managed;
    }

    @Override
    public void prefetch(long address, long bytes, int agent) {
        if (!managed) {
            PoolMemory.super.prefetch(address, bytes, agent);
        }
        prefetch(context, info, address, bytes, agent == agentIndex);
    }

    @Override
    public void advise(long address, long bytes, MemAdvice advice, int agent) {
        if (!managed) {
            PoolMemory.super.advise(address, bytes, advice, agent);
        }
        advise(context, info, address, bytes, advice, agent == agentIndex);
    }

    /**
     * Migrates managed memory to the device or the host and returns once it is there
     * ({@code cuMemPrefetchAsync_v2} on a non-blocking stream of its own, then {@code cuStreamSynchronize}).
     */
    static void prefetch(CudaContext ctx, CudaDeviceInfo info, long address, long bytes, boolean toDevice) {
        CudaDriver d = ctx.driver();
        ctx.enter();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            d.check(d.cuStreamCreate(out, STREAM_NON_BLOCKING), "cuStreamCreate");
            MemorySegment stream = out.get(ADDRESS, 0);
            try {
                d.check(d.cuMemPrefetchAsync(address, bytes, location(a, info, toDevice), 0, stream),
                        "cuMemPrefetchAsync_v2");
                d.check(d.cuStreamSynchronize(stream), "cuStreamSynchronize");
            } finally {
                d.cuStreamDestroy(stream);
            }
        } finally {
            ctx.exit();
        }
    }

    /** Applies {@code advice} to managed memory ({@code cuMemAdvise_v2}); the location is the device or the host. */
    static void advise(CudaContext ctx, CudaDeviceInfo info, long address, long bytes, MemAdvice advice, boolean device) {
        int cu = cuAdvice(advice);
        CudaDriver d = ctx.driver();
        ctx.enter();
        try (Arena a = Arena.ofConfined()) {
            d.check(d.cuMemAdvise(address, bytes, cu, location(a, info, device)), "cuMemAdvise_v2");
        } finally {
            ctx.exit();
        }
    }

    /** The {@code CUmem_advise} value of {@code advice}. */
    static int cuAdvice(MemAdvice advice) {
        if (advice == null) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "advice must not be null");
        }
        return switch (advice) {
            case SET_READ_MOSTLY -> 1;
            case UNSET_READ_MOSTLY -> 2;
            case SET_PREFERRED_LOCATION -> 3;
            case UNSET_PREFERRED_LOCATION -> 4;
            default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT, advice
                    + " has no CUDA counterpart: managed memory's coherence is the driver's");
        };
    }

    private static MemorySegment location(Arena a, CudaDeviceInfo info, boolean device) {
        MemorySegment loc = a.allocate(CudaDriver.CU_MEM_LOCATION);
        loc.set(JAVA_INT, 0, device ? CudaDriver.CU_MEM_LOCATION_TYPE_DEVICE : CudaDriver.CU_MEM_LOCATION_TYPE_HOST);
        loc.set(JAVA_INT, 4, device ? info.ordinal() : 0);
        return loc;
    }
}
