package org.hsa4j.amp;

import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * C++AMP's free fence functions. A fence orders the calling work-item's memory accesses without
 * waiting for anyone. The work-items of one tile run on one thread in program order, so a
 * tile_static fence needs no instruction; global memory is shared with other tiles running on
 * other compute units and with the host, so a global (or all-memory) fence is a full fence.
 */
public final class Fences {
    private Fences() {
    }

    /** {@code all_memory_fence}: orders global and tile_static accesses of the work-item. */
    public static void allMemoryFence(TiledIndex t) {
        Objects.requireNonNull(t, "t");
        VarHandle.fullFence();
    }

    /** {@code global_memory_fence}: orders global accesses of the work-item. */
    public static void globalMemoryFence(TiledIndex t) {
        Objects.requireNonNull(t, "t");
        VarHandle.fullFence();
    }

    /** {@code tile_static_memory_fence}: orders tile_static accesses of the work-item (program order suffices). */
    public static void tileStaticMemoryFence(TiledIndex t) {
        Objects.requireNonNull(t, "t");
    }
}
