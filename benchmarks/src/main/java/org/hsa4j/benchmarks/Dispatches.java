package org.hsa4j.benchmarks;

import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.signal.Signal;

/** The one-packet submission the benchmarks share: the raw AQL steps for a 1-D kernel dispatch. */
public final class Dispatches {
    /** System-scope acquire and release, no barrier bit: each dispatch's effects are visible to the host at completion. */
    public static final short HEADER = PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM);

    private Dispatches() {
    }

    /**
     * Reserves a slot on {@code queue}, writes a 1-D dispatch of {@code kernelObject} through
     * {@code packet}, publishes it with {@link #HEADER} and rings the doorbell; the caller waits on
     * {@code completion}.
     */
    public static void submitOne(Queue queue, KernelDispatchPacket packet, long kernelObject, int workgroup, int grid,
                                 long kernarg, Signal completion) {
        long id = queue.addWriteIndexScacqScrel(1);
        queue.waitForSpace(id);
        packet.wrap(queue.ring(), queue.slotOffset(id))
                .workgroupSize(workgroup, 1, 1)
                .gridSize(grid, 1, 1)
                .privateSegmentSize(0)
                .groupSegmentSize(0)
                .kernelObject(kernelObject)
                .kernargAddress(kernarg)
                .completionSignal(completion.handle());
        packet.publish(HEADER, 1);
        queue.ringDoorbell(id);
    }
}
