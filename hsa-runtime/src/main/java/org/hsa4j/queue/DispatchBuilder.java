package org.hsa4j.queue;

import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;

/**
 * A launch under construction ({@link Queue#launch}): grid and workgroup in 1 to 3 dimensions,
 * group and private segment bytes, the barrier bit, the fence scopes and up to 32 64-bit arguments;
 * defaults are a 1-D grid of 1 in workgroups of 1, no segments, no barrier bit, system-scope
 * fences. {@link #dispatch()} submits it through the same steps as
 * {@link Queue#dispatch(long, long, int, long...)} and may be called again.
 *
 * <p>Protocol tests that own the packet's resources pass their own kernarg segment
 * ({@link #kernarg(long)}; the arguments are then ignored) or completion signal
 * ({@link #completion(Signal)}, armed by the caller and never pooled), and may reserve the packet id
 * themselves ({@link #dispatchInto(long)}).
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
    private long kernarg;
    private Signal completion;
    private FenceScope acquire = FenceScope.SYSTEM;
    private FenceScope release = FenceScope.SYSTEM;

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

    /** A kernarg segment of the caller's instead of the pooled block (the arguments are then ignored). */
    public DispatchBuilder kernarg(long address) {
        kernarg = address;
        return this;
    }

    /**
     * A completion signal of the caller's, armed by the caller, instead of a pooled one. With
     * arguments and no kernarg of the caller's, a pooled kernarg block carries them and goes back to
     * the pool when a wait of the returned completion sees the end; with neither, the packet's
     * kernarg address is 0, as in the raw protocol.
     */
    public DispatchBuilder completion(Signal signal) {
        completion = HsaException.requireNonNull(signal, "signal");
        return this;
    }

    /** The header's acquire and release fence scopes. */
    public DispatchBuilder fences(FenceScope acquireScope, FenceScope releaseScope) {
        acquire = HsaException.requireNonNull(acquireScope, "acquire scope");
        release = HsaException.requireNonNull(releaseScope, "release scope");
        return this;
    }

    /** Reserves a packet id (waiting for space as {@link Queue#reserveSlot()} does), submits the launch; returns its completion. */
    public DispatchCompletion dispatch() {
        return submit(-1);
    }

    /**
     * Submits the launch into packet id {@code reservedId}, which the caller reserved
     * ({@code addWriteIndex*} or {@code casWriteIndex*}) and whose slot is free; returns its completion.
     */
    public DispatchCompletion dispatchInto(long reservedId) {
        return submit(reservedId);
    }

    private DispatchCompletion submit(long reservedId) {
        Queue.checkGrid(gridX, "x");
        Queue.checkGrid(gridY, "y");
        Queue.checkGrid(gridZ, "z");
        Queue.checkWorkgroup(workgroupX, "x");
        Queue.checkWorkgroup(workgroupY, "y");
        Queue.checkWorkgroup(workgroupZ, "z");
        // a caller's signal takes a pooled block only to carry arguments; it goes back when a wait sees the end
        CompletionPool.Slot pooled = completion == null || (kernarg == 0 && args.length > 0)
                ? queue.pooledSlot(kernarg == 0 ? args : NO_ARGS) : null;
        Signal signal = completion != null ? completion : pooled.signal;
        long id;
        try {
            id = reservedId >= 0 ? reservedId : queue.reserveSlot();
        } catch (RuntimeException e) {
            if (pooled != null) {
                queue.completions().give(pooled);
            }
            throw e;
        }
        queue.publishDispatch(id, kernelObject, dimensions, gridX, gridY, gridZ, workgroupX, workgroupY, workgroupZ,
                groupBytes, privateBytes, kernarg != 0 || pooled == null ? kernarg : pooled.kernarg, signal.handle(),
                PacketHeader.of(PacketType.KERNEL_DISPATCH, barrierBit, acquire, release));
        queue.ringDoorbell(id);
        return new DispatchCompletion(queue.completions(), pooled, signal, queue.id(), id, barrierBit);
    }
}
