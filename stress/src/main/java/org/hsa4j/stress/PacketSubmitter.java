package org.hsa4j.stress;

import org.hsa4j.agent.Agent;
import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.signal.Signal;
import org.hsa4j.testsupport.BoundedWait;

/**
 * Submits AQL packets to a queue with the spec's protocol, as a user's test would write it, with
 * every wait bounded: reserve a packet id once its slot is free (the compare-and-swap form, so a
 * producer that gives up has reserved nothing and cannot wedge the queue), then write, publish and
 * ring: kernel dispatches through the queue's launch call into that id
 * ({@code DispatchBuilder.dispatchInto}, with the test's own kernarg and completion signal), barrier
 * packets through the packet flyweight with one release store of the header.
 */
public final class PacketSubmitter {
    /** Header of every kernel dispatch: system-scope acquire and release fences, barrier bit clear. */
    public static final short DISPATCH_HEADER = PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM,
            FenceScope.SYSTEM);

    private final Queue queue;

    /** A submitter over {@code queue}. */
    public PacketSubmitter(Queue queue) {
        this.queue = queue;
    }

    /** A submitter over a new multi-producer queue of {@code size} packets on {@code agent}. */
    public static PacketSubmitter onNewQueue(Agent agent, int size) {
        return new PacketSubmitter(agent.createQueue(size, QueueType.MULTI,
                (error, q) -> System.err.println("stress: queue " + q.id() + " failed: " + error.getMessage())));
    }

    /** The queue this submitter writes to. */
    public Queue queue() {
        return queue;
    }

    /**
     * Reserves the next packet id once its slot is free; -1 when no slot freed up within the
     * {@link BoundedWait} patience.
     */
    public long reserve() {
        long deadline = BoundedWait.deadline();
        for (int i = 0; ; i++) {
            long write = queue.loadWriteIndexScacquire();
            if (write - queue.loadReadIndexScacquire() < queue.size()) {
                if (queue.casWriteIndexScacqScrel(write, write + 1) == write) {
                    return write;
                }
                continue;
            }
            if (System.nanoTime() - deadline > 0) {
                BoundedWait.timedOut();
                return -1;
            }
            BoundedWait.pause(i);
        }
    }

    /**
     * Dispatches {@code kernelObject} over one work-item with {@code kernarg}; {@code completion}
     * is decremented when it finishes. False when the queue stayed full (a timeout).
     */
    public boolean dispatch(long kernelObject, long kernarg, Signal completion) {
        long id = reserve();
        if (id < 0) {
            return false;
        }
        queue.launch(kernelObject).kernarg(kernarg).completion(completion).dispatchInto(id);
        return true;
    }

    /**
     * Submits a barrier-AND or barrier-OR packet ({@code header}) over the dependency handles
     * {@code dependencies} (0 for none, at most five); false when the queue stayed full.
     */
    public boolean barrier(short header, Signal completion, long... dependencies) {
        long id = reserve();
        if (id < 0) {
            return false;
        }
        BarrierPacket packet = queue.barrierPacket(id);
        packet.clearBody();
        for (int i = 0; i < dependencies.length; i++) {
            packet.depSignal(i, dependencies[i]);
        }
        packet.completionSignal(completion.handle()).publish(header);
        queue.ringDoorbell(id);
        return true;
    }
}
