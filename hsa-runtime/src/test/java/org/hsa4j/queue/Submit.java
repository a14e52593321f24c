package org.hsa4j.queue;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.packet.AgentDispatchPacket;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.signal.Signal;

/**
 * Writes and publishes AQL packets for tests, with the queue's conveniences: reserve a slot, write
 * the body through a flyweight, publish header and setup with one release store, ring the doorbell.
 * Every field can be set to a bad value, so error tests use the same path as good ones.
 */
public final class Submit {
    private Submit() {
    }

    /** A kernel dispatch of {@code kernelObject} to build and submit on {@code queue}. */
    public static Kernel kernel(Queue queue, long kernelObject) {
        return new Kernel(queue, kernelObject);
    }

    /** Submits a barrier-AND packet; 0 handles are empty dependency slots. */
    public static long barrierAnd(Queue queue, Signal completion, long... dependencies) {
        return barrier(queue, PacketType.BARRIER_AND, false, completion, dependencies);
    }

    /** Submits a barrier-OR packet; 0 handles are empty dependency slots. */
    public static long barrierOr(Queue queue, Signal completion, long... dependencies) {
        return barrier(queue, PacketType.BARRIER_OR, false, completion, dependencies);
    }

    /** Submits a barrier-AND or barrier-OR packet. */
    public static long barrier(Queue queue, PacketType type, boolean barrierBit, Signal completion,
                               long... dependencies) {
        long id = queue.reserveSlot();
        publishBarrier(queue, id, type, barrierBit, completion, dependencies);
        return id;
    }

    /** Writes a barrier packet into the already reserved slot {@code id}, publishes it and rings the doorbell. */
    public static void publishBarrier(Queue queue, long id, PacketType type, boolean barrierBit, Signal completion,
                                      long... dependencies) {
        BarrierPacket p = queue.barrierPacket(id);
        p.clearBody();
        for (int i = 0; i < dependencies.length; i++) {
            p.depSignal(i, dependencies[i]);
        }
        p.completionSignal(completion == null ? 0 : completion.handle());
        p.publish(PacketHeader.of(type, barrierBit, FenceScope.SYSTEM, FenceScope.SYSTEM));
        queue.ringDoorbell(id);
    }

    /** Submits an agent dispatch packet of function {@code type} with up to four arguments. */
    public static long agentDispatch(Queue queue, int type, long returnAddress, Signal completion, long... args) {
        long id = queue.reserveSlot();
        AgentDispatchPacket p = queue.agentDispatchPacket(id);
        p.clearBody();
        p.returnAddress(returnAddress);
        for (int i = 0; i < args.length; i++) {
            p.arg(i, args[i]);
        }
        p.completionSignal(completion == null ? 0 : completion.handle());
        p.publish(PacketHeader.of(PacketType.AGENT_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM), type);
        queue.ringDoorbell(id);
        return id;
    }

    /**
     * Submits a packet whose first 32 bits are exactly {@code word} (any type code, any fence
     * scope bits) and whose body is zero apart from the completion signal.
     */
    public static long raw(Queue queue, int word, Signal completion) {
        long id = queue.reserveSlot();
        KernelDispatchPacket p = queue.kernelDispatchPacket(id);
        p.clearBody();
        p.completionSignal(completion == null ? 0 : completion.handle());
        queue.agent().svm().atomicStoreInt(queue.packetAddress(id), word, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        queue.ringDoorbell(id);
        return id;
    }

    /** A kernel dispatch packet under construction; defaults: 1 dimension, grid 1, workgroup 1. */
    public static final class Kernel {
        private final Queue queue;
        private final long kernelObject;
        private int dimensions = 1;
        private final int[] workgroup = {1, 1, 1};
        private final long[] grid = {1, 1, 1};
        private long kernarg;
        private int groupSegment;
        private int privateSegment;
        private long completion;
        private boolean barrier;
        private FenceScope acquire = FenceScope.SYSTEM;
        private FenceScope release = FenceScope.SYSTEM;
        private int extraHeaderBits;

        private Kernel(Queue queue, long kernelObject) {
            this.queue = queue;
            this.kernelObject = kernelObject;
        }

        /** A 1-dimensional grid of {@code x} work-items. */
        public Kernel grid(long x) {
            return grid(1, x, 1, 1);
        }

        /** A 2-dimensional grid. */
        public Kernel grid(long x, long y) {
            return grid(2, x, y, 1);
        }

        /** A 3-dimensional grid. */
        public Kernel grid(long x, long y, long z) {
            return grid(3, x, y, z);
        }

        /** Any dimensions value (also bad ones) with any grid sizes. */
        public Kernel grid(int dims, long x, long y, long z) {
            dimensions = dims;
            grid[0] = x;
            grid[1] = y;
            grid[2] = z;
            return this;
        }

        /** The workgroup size; unset dimensions stay 1. */
        public Kernel workgroup(int x) {
            return workgroup(x, 1, 1);
        }

        /** The workgroup size. */
        public Kernel workgroup(int x, int y) {
            return workgroup(x, y, 1);
        }

        /** The workgroup size. */
        public Kernel workgroup(int x, int y, int z) {
            workgroup[0] = x;
            workgroup[1] = y;
            workgroup[2] = z;
            return this;
        }

        /** The kernarg address. */
        public Kernel kernarg(long address) {
            kernarg = address;
            return this;
        }

        /** Group segment bytes per workgroup. */
        public Kernel groupSegment(int bytes) {
            groupSegment = bytes;
            return this;
        }

        /** Private segment bytes per work-item. */
        public Kernel privateSegment(int bytes) {
            privateSegment = bytes;
            return this;
        }

        /** The completion signal. */
        public Kernel completion(Signal signal) {
            completion = signal.handle();
            return this;
        }

        /** A raw completion signal handle (also one that names no signal). */
        public Kernel completionHandle(long handle) {
            completion = handle;
            return this;
        }

        /** Sets the header's barrier bit. */
        public Kernel barrier(boolean set) {
            barrier = set;
            return this;
        }

        /** The header's fence scopes. */
        public Kernel fences(FenceScope acquireScope, FenceScope releaseScope) {
            acquire = acquireScope;
            release = releaseScope;
            return this;
        }

        /** ORs raw bits into the header (to build a reserved fence scope, say). */
        public Kernel headerBits(int bits) {
            extraHeaderBits = bits;
            return this;
        }

        /** Reserves a slot, writes the packet, publishes it and rings the doorbell; returns its id. */
        public long submit() {
            long id = queue.reserveSlot();
            publish(id);
            queue.ringDoorbell(id);
            return id;
        }

        /** Writes and publishes the packet into the already reserved slot {@code id}; no doorbell. */
        public void publish(long id) {
            KernelDispatchPacket p = queue.kernelDispatchPacket(id);
            p.clearBody();
            p.workgroupSize(workgroup[0], workgroup[1], workgroup[2])
                    .gridSize((int) grid[0], (int) grid[1], (int) grid[2])
                    .privateSegmentSize(privateSegment)
                    .groupSegmentSize(groupSegment)
                    .kernelObject(kernelObject)
                    .kernargAddress(kernarg)
                    .completionSignal(completion);
            p.publish((short) (PacketHeader.of(PacketType.KERNEL_DISPATCH, barrier, acquire, release) | extraHeaderBits),
                    dimensions);
        }
    }

    /** The header type code currently in the slot of packet {@code id}. */
    public static int headerType(Queue queue, long id) {
        return PacketHeader.typeCode(AqlPacket.loadHeaderWordAcquire(queue.ring(), queue.slotOffset(id)));
    }
}
