package org.hsa4j.services.memory;

import java.util.Objects;

import org.hsa4j.kernel.ServiceCaller;
import org.hsa4j.services.rpc.RpcClient;
import org.hsa4j.services.rpc.RpcStatus;

/**
 * malloc, calloc and free for kernels, each one RPC call to the host's {@link HostMallocService}:
 * correct for any size, but a round trip per call. For many small blocks use {@link DeviceHeap},
 * which goes to the host only to refill.
 */
public final class HostMemory {
    private final RpcClient client;

    /** Host memory calls through {@code client}. */
    public HostMemory(RpcClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** malloc: an SVM address valid on the host and in every kernel, or 0 on failure. */
    public long malloc(ServiceCaller wi, long bytes) {
        return allocate(wi, MemoryOp.MALLOC, bytes);
    }

    /** calloc: like malloc, zeroed. */
    public long calloc(ServiceCaller wi, long bytes) {
        return allocate(wi, MemoryOp.CALLOC, bytes);
    }

    private long allocate(ServiceCaller wi, int op, long bytes) {
        long[] inOut = {bytes, 0, 0, 0, 0, 0, 0, 0};
        return client.invoke(wi, op, inOut) == RpcStatus.OK ? inOut[0] : 0;
    }

    /**
     * free: {@link HeapStatus#OK}, or {@link HeapStatus#DOUBLE_FREE}, {@link HeapStatus#FOREIGN_POINTER},
     * {@link HeapStatus#INTERIOR_POINTER} (nothing freed), or {@link HeapStatus#UNAVAILABLE}.
     */
    public int free(ServiceCaller wi, long address) {
        long[] inOut = {address, 0, 0, 0, 0, 0, 0, 0};
        return client.invoke(wi, MemoryOp.FREE, inOut) == RpcStatus.OK ? (int) inOut[0] : HeapStatus.UNAVAILABLE;
    }
}
