package org.hsa4j.amp;

import org.hsa4j.kernel.WorkItem;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The barrier of a tile ({@code concurrency::tile_barrier}): a work-item that waits continues once
 * every work-item of its tile has reached a barrier; tile_static and global writes made before it
 * are visible to the whole tile after it. Every work-item of the tile must reach it, or the
 * dispatch fails with EXCEPTION naming how many did.
 *
 * <p>C++AMP's plain {@code wait()} is {@link #await()} here ({@code Object.wait()} is final in Java);
 * the fenced variants keep their names. All work-items of a tile run on one compute unit, one after
 * the other between barriers, so program order already orders their memory: the variants differ
 * only in the guarantee they document, not in cost.
 *
 * <p>How a wait is carried out depends on how the kernel runs (see {@code TileCompiler}): in a
 * kernel compiled to work-item loops every wait was rewritten into a suspension point and this
 * object is never called; in any other kernel it waits at the runtime's
 * {@link org.hsa4j.kernel.WorkgroupBarrier} (a virtual-thread hand-off by default, a continuation
 * yield with {@code HSA4J_BARRIERS=continuations}).
 */
public final class TileBarrier {
    private final WorkItem workItem;

    TileBarrier(WorkItem workItem) {
        this.workItem = workItem;
    }

    /** Waits until every work-item of the tile has reached a barrier ({@code tile_barrier::wait}). */
    public void await() {
        if (workItem == null) {
            throw new HsaException(HsaStatus.EXCEPTION, "a tile barrier was reached from code the tile compiler"
                    + " did not rewrite; barriers must be waited on in the kernel's own body");
        }
        workItem.barrier().await();
    }

    /** Waits, ordering all memory (tile_static and global) for the tile. */
    public void waitWithAllMemoryFence() {
        await();
    }

    /** Waits, ordering global memory for the tile. */
    public void waitWithGlobalMemoryFence() {
        await();
    }

    /** Waits, ordering tile_static memory for the tile. */
    public void waitWithTileStaticMemoryFence() {
        await();
    }
}
