package org.hsa4j.packet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Layout and flyweight of {@code hsa_kernel_dispatch_packet_t}. */
public final class KernelDispatchPacket extends AqlPacket {
    /** u16 setup: number of dimensions (1-3) in bits 0-1. */
    public static final long SETUP = 2;
    /** u16 workgroup size, x. */
    public static final long WORKGROUP_SIZE_X = 4;
    /** u16 workgroup size, y. */
    public static final long WORKGROUP_SIZE_Y = 6;
    /** u16 workgroup size, z. */
    public static final long WORKGROUP_SIZE_Z = 8;
    /** u16 reserved. */
    public static final long RESERVED0 = 10;
    /** u32 grid size, x. */
    public static final long GRID_SIZE_X = 12;
    /** u32 grid size, y. */
    public static final long GRID_SIZE_Y = 16;
    /** u32 grid size, z. */
    public static final long GRID_SIZE_Z = 20;
    /** u32 private segment bytes per work-item. */
    public static final long PRIVATE_SEGMENT_SIZE = 24;
    /** u32 group segment bytes per workgroup. */
    public static final long GROUP_SEGMENT_SIZE = 28;
    /** u64 kernel object handle. */
    public static final long KERNEL_OBJECT = 32;
    /** u64 kernarg segment address. */
    public static final long KERNARG_ADDRESS = 40;
    /** u64 reserved. */
    public static final long RESERVED2 = 48;
    /** Mask of the dimensions field of setup. */
    public static final int SETUP_DIMENSIONS_MASK = 0x3;

    /** Sets the workgroup size; unused dimensions must be 1. */
    public KernelDispatchPacket workgroupSize(int x, int y, int z) {
        ring.set(ValueLayout.JAVA_SHORT, base + WORKGROUP_SIZE_X, (short) x);
        ring.set(ValueLayout.JAVA_SHORT, base + WORKGROUP_SIZE_Y, (short) y);
        ring.set(ValueLayout.JAVA_SHORT, base + WORKGROUP_SIZE_Z, (short) z);
        return this;
    }

    /** Sets the grid size in work-items; unused dimensions must be 1. */
    public KernelDispatchPacket gridSize(int x, int y, int z) {
        ring.set(ValueLayout.JAVA_INT, base + GRID_SIZE_X, x);
        ring.set(ValueLayout.JAVA_INT, base + GRID_SIZE_Y, y);
        ring.set(ValueLayout.JAVA_INT, base + GRID_SIZE_Z, z);
        return this;
    }

    /** Sets the private segment bytes per work-item. */
    public KernelDispatchPacket privateSegmentSize(int bytes) {
        ring.set(ValueLayout.JAVA_INT, base + PRIVATE_SEGMENT_SIZE, bytes);
        return this;
    }

    /** Sets the group segment bytes per workgroup. */
    public KernelDispatchPacket groupSegmentSize(int bytes) {
        ring.set(ValueLayout.JAVA_INT, base + GROUP_SEGMENT_SIZE, bytes);
        return this;
    }

    /** Sets the kernel object handle. */
    public KernelDispatchPacket kernelObject(long handle) {
        ring.set(ValueLayout.JAVA_LONG, base + KERNEL_OBJECT, handle);
        return this;
    }

    /** Sets reserved0 and reserved2 to 0, as a producer must (the slot may hold another producer's bytes). */
    public KernelDispatchPacket clearReserved() {
        ring.set(ValueLayout.JAVA_SHORT, base + RESERVED0, (short) 0);
        ring.set(ValueLayout.JAVA_LONG, base + RESERVED2, 0L);
        return this;
    }

    /** Sets the kernarg segment address. */
    public KernelDispatchPacket kernargAddress(long address) {
        ring.set(ValueLayout.JAVA_LONG, base + KERNARG_ADDRESS, address);
        return this;
    }

    @Override
    public KernelDispatchPacket completionSignal(long handle) {
        super.completionSignal(handle);
        return this;
    }

    @Override
    public KernelDispatchPacket wrap(MemorySegment ring, long base) {
        super.wrap(ring, base);
        return this;
    }

    /** Publishes header and setup ({@code dimensions}) with one 32-bit release store. */
    public void publish(short header, int dimensions) {
        publishWord(header, (short) dimensions);
    }

    /** Reads the dimensions from a setup value. */
    public static int dimensions(int setup) {
        return setup & SETUP_DIMENSIONS_MASK;
    }
}
