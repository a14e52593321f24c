package org.hsa4j.queue;

import org.hsa4j.runtime.HsaException;

/**
 * A launch under construction ({@link Queue#launch}): grid and workgroup in 1 to 3 dimensions,
 * group and private segment bytes, the barrier bit and up to 32 64-bit arguments; defaults are a
 * 1-D grid of 1 in workgroups of 1, no segments, no barrier bit. {@link #dispatch()} submits it
 * through the same path as {@link Queue#dispatch(long, long, int, long...)} and may be called again.
 */
public final class DispatchBuilder {
    private static final long[] NO_ARGS = {};

    private final Queue queue;
    private final long kernelObject;
    private int dimensions = 1;
    private long gridX = 1;
    private long gridY = 1;
    private long gridZ = 1;
    private int workgroupX = 1;
    private int workgroupY = 1;
    private int workgroupZ = 1;
    private int groupBytes;
    private int privateBytes;
    private boolean barrierBit;
    private long[] args = NO_ARGS;

    DispatchBuilder(Queue queue, long kernelObject) {
        this.queue = queue;
        this.kernelObject = kernelObject;
    }

    /** A 1-D grid of {@code x} work-items. */
    public DispatchBuilder grid(long x) {
        return grid(1, x, 1, 1);
    }

    /** A 2-D grid. */
    public DispatchBuilder grid(long x, long y) {
        return grid(2, x, y, 1);
    }

    /** A 3-D grid. */
    public DispatchBuilder grid(long x, long y, long z) {
        return grid(3, x, y, z);
    }

    private DispatchBuilder grid(int dims, long x, long y, long z) {
        dimensions = dims;
        gridX = x;
        gridY = y;
        gridZ = z;
        return this;
    }

    /** The workgroup size; unnamed dimensions are 1. */
    public DispatchBuilder workgroup(int x) {
        return workgroup(x, 1, 1);
    }

    /** The workgroup size; unnamed dimensions are 1. */
    public DispatchBuilder workgroup(int x, int y) {
        return workgroup(x, y, 1);
    }

    /** The workgroup size. */
    public DispatchBuilder workgroup(int x, int y, int z) {
        workgroupX = x;
        workgroupY = y;
        workgroupZ = z;
        return this;
    }

    /** Group segment bytes per workgroup (at least the kernel descriptor's). */
    public DispatchBuilder groupSegment(int bytes) {
        groupBytes = bytes;
        return this;
    }

    /** Private segment bytes per work-item (at least the kernel descriptor's). */
    public DispatchBuilder privateSegment(int bytes) {
        privateBytes = bytes;
        return this;
    }

    /** Sets the header's barrier bit: the packet starts once every earlier packet of the queue ended. */
    public DispatchBuilder barrier(boolean set) {
        barrierBit = set;
        return this;
    }

    /** The 64-bit kernel arguments, read by the kernel at bytes 0, 8, 16, ... of its kernarg segment. */
    public DispatchBuilder args(long... values) {
        args = HsaException.requireNonNull(values, "args").clone();
        return this;
    }

    /** Submits the launch; returns its completion. */
    public DispatchCompletion dispatch() {
        return queue.submit(kernelObject, dimensions, gridX, gridY, gridZ, workgroupX, workgroupY, workgroupZ,
                groupBytes, privateBytes, barrierBit, args);
    }
}
