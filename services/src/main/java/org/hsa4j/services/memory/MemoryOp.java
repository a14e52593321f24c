package org.hsa4j.services.memory;

import org.hsa4j.services.rpc.Opcodes;

/** Opcodes of the memory service in {@link Opcodes#MEMORY_NAMESPACE}. */
public final class MemoryOp {
    /** malloc(bytes) -> address (0 on failure), status in result 1. */
    public static final int MALLOC = Opcodes.of(Opcodes.MEMORY_NAMESPACE, 0);
    /** free(address) -> {@link HeapStatus}. */
    public static final int FREE = Opcodes.of(Opcodes.MEMORY_NAMESPACE, 1);
    /** calloc(bytes) -> zeroed address (0 on failure), status in result 1. */
    public static final int CALLOC = Opcodes.of(Opcodes.MEMORY_NAMESPACE, 2);
    /** refill(heap, size class, head seen) -> the class's chunk list head after the refill (0 on failure). */
    public static final int REFILL = Opcodes.of(Opcodes.MEMORY_NAMESPACE, 3);

    private MemoryOp() {
    }
}
