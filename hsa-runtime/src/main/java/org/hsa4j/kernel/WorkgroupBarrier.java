package org.hsa4j.kernel;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The workgroup barrier (HSAIL {@code barrier}): every work-item of the workgroup waits until all
 * have arrived; group-segment writes before it are visible to all after it. The work-items of a
 * barrier kernel run one at a time for their compute unit ({@link BarrierStrategy}), so a
 * workgroup's progress never depends on how many threads the agent has. Each work-item has its
 * own barrier object, which knows the work-item's index in its group.
 */
public final class WorkgroupBarrier {
    private final WorkgroupExecutor executor;
    private final int lane;

    WorkgroupBarrier(WorkgroupExecutor executor, int lane) {
        this.executor = executor;
        this.lane = lane;
    }

    /**
     * Waits for every work-item of the workgroup.
     *
     * @throws HsaException EXCEPTION when the kernel's descriptor does not declare barriers and
     *                      the workgroup has more than one work-item
     */
    public void await() {
        executor.barrier(lane);
    }

    static HsaException undeclared(String kernel) {
        return new HsaException(HsaStatus.EXCEPTION, "kernel " + kernel
                + " waits on a workgroup barrier but its descriptor does not declare barriers");
    }
}
