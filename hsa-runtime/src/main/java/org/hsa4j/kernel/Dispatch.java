package org.hsa4j.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.hsa4j.memory.Svm;
import org.hsa4j.status.HsaException;

/**
 * A launched kernel dispatch: what the packet processor copied out of the packet before freeing
 * its slot, plus the workgroup counters compute units share. Compute units claim workgroups with
 * {@link #claimGroup()} and report each with {@link #finishGroup()}; the one that finishes the last
 * group completes the dispatch.
 */
public final class Dispatch {
    final KernelCode code;
    final int dimensions;
    final int workgroupX;
    final int workgroupY;
    final int workgroupZ;
    final long gridX;
    final long gridY;
    final long gridZ;
    final long groupsX;
    final long groupsY;
    final long groupsZ;
    final long totalGroups;
    final long kernargAddress;
    final MemorySegment kernarg;
    final int groupSegmentSize;
    final int privateSegmentSize;
    final Svm svm;
    final long packetId;
    private final Object owner;
    private static final VarHandle NEXT_GROUP;
    private static final VarHandle GROUPS_LEFT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            NEXT_GROUP = lookup.findVarHandle(Dispatch.class, "nextGroup", long.class);
            GROUPS_LEFT = lookup.findVarHandle(Dispatch.class, "groupsLeft", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused")
    private volatile long nextGroup;
    @SuppressWarnings("unused")
    private volatile long groupsLeft;
    private volatile HsaException failure;

    /** Made by the packet processor from a validated kernel dispatch packet. */
    public Dispatch(KernelCode code, int dimensions, int workgroupX, int workgroupY, int workgroupZ, long gridX,
                    long gridY, long gridZ, long kernargAddress, MemorySegment kernarg, int groupSegmentSize,
                    int privateSegmentSize, Svm svm, long packetId, Object owner) {
        this.code = code;
        this.dimensions = dimensions;
        this.workgroupX = workgroupX;
        this.workgroupY = workgroupY;
        this.workgroupZ = workgroupZ;
        this.gridX = gridX;
        this.gridY = gridY;
        this.gridZ = gridZ;
        this.groupsX = groups(gridX, workgroupX);
        this.groupsY = groups(gridY, workgroupY);
        this.groupsZ = groups(gridZ, workgroupZ);
        this.totalGroups = groupsX * groupsY * groupsZ;
        this.kernargAddress = kernargAddress;
        this.kernarg = kernarg;
        this.groupSegmentSize = groupSegmentSize;
        this.privateSegmentSize = privateSegmentSize;
        this.svm = svm;
        this.packetId = packetId;
        this.owner = owner;
        // a plain store: the dispatch reaches other threads only through a release (the launch ring's append)
        GROUPS_LEFT.set(this, totalGroups);
    }

    /** Workgroups of {@code size} covering {@code grid} work-items (a partial last one counts); no division for one group. */
    private static long groups(long grid, int size) {
        return grid > 0 && grid <= size ? 1 : (grid + size - 1) / size;
    }

    /** The kernel being run. */
    public KernelCode code() {
        return code;
    }

    /** The processor-side object this dispatch belongs to (its queue's state). */
    public Object owner() {
        return owner;
    }

    /** The packet's id in its queue. */
    public long packetId() {
        return packetId;
    }

    /** Work-items of the grid along {@code axis} (0 x, 1 y, 2 z). */
    public long gridSize(int axis) {
        return axis == 0 ? gridX : axis == 1 ? gridY : gridZ;
    }

    /** Work-items per workgroup along {@code axis} (0 x, 1 y, 2 z). */
    public int workgroupSize(int axis) {
        return axis == 0 ? workgroupX : axis == 1 ? workgroupY : workgroupZ;
    }

    /** Number of workgroups. */
    public long totalGroups() {
        return totalGroups;
    }

    /** True while some workgroup has not been claimed. */
    public boolean hasUnclaimedGroups() {
        return nextGroup < totalGroups;
    }

    /** Workgroups no compute unit has claimed yet; 0 once all are claimed or the dispatch failed. */
    public long unclaimedGroups() {
        return Math.max(0, totalGroups - nextGroup);
    }

    /** Claims the next workgroup; returns its flat id, or -1 when all are claimed. */
    public long claimGroup() {
        long g = (long) NEXT_GROUP.getAndAdd(this, 1L);
        return g < totalGroups ? g : -1;
    }

    /**
     * Reports a claimed workgroup done; true for the one call that finished the last group. A
     * one-group dispatch has one finisher, its claimer, so it needs no atomic count.
     */
    public boolean finishGroup() {
        return totalGroups == 1 || (long) GROUPS_LEFT.getAndAdd(this, -1L) == 1L;
    }

    /**
     * Records the first failure and stops handing out workgroups. Called by the compute unit whose
     * group failed, before it reports that group, so the count cannot reach zero here.
     */
    public void fail(HsaException e) {
        if (failure == null) {
            synchronized (this) {
                if (failure == null) {
                    failure = e;
                }
            }
        }
        long claimed = (long) NEXT_GROUP.getAndSet(this, Long.MAX_VALUE / 2);
        if (claimed < totalGroups) {
            GROUPS_LEFT.getAndAdd(this, claimed - totalGroups);
        }
    }

    /** The first failure of a workgroup, or null. */
    public HsaException failure() {
        return failure;
    }

    @Override
    public String toString() {
        return code.name() + "#" + packetId;
    }
}
