package org.hsa4j.kernel;

import java.lang.foreign.MemorySegment;

import org.hsa4j.memory.Svm;

/**
 * What a running kernel sees of itself, after HSAIL's dispatch builtins: its ids (local, group,
 * global, flat), the dispatch geometry, its group, private and kernarg segments, the agent's view
 * of SVM, and the workgroup barrier. In a kernel without barriers one instance is reused for every
 * work-item of a workgroup, so a kernel must not keep it past {@link Kernel#execute}.
 */
public final class WorkItem implements ServiceCaller {
    Dispatch dispatch;
    int localX;
    int localY;
    int localZ;
    long groupX;
    long groupY;
    long groupZ;
    int currentX;
    int currentY;
    int currentZ;
    MemorySegment groupSegment;
    MemorySegment privateSegment;
    final WorkgroupBarrier barrier;

    WorkItem(WorkgroupBarrier barrier) {
        this.barrier = barrier;
    }

    /** Number of dimensions of the dispatch (1 to 3). */
    public int dimensions() {
        return dispatch.dimensions;
    }

    /** Id inside the workgroup along {@code dim} (HSAIL workitemid). */
    public int localId(int dim) {
        return switch (dim) {
            case 0 -> localX;
            case 1 -> localY;
            case 2 -> localZ;
            default -> throw badDimension(dim);
        };
    }

    /** Workgroup id along {@code dim} (HSAIL workgroupid). */
    public long groupId(int dim) {
        return switch (dim) {
            case 0 -> groupX;
            case 1 -> groupY;
            case 2 -> groupZ;
            default -> throw badDimension(dim);
        };
    }

    /** Absolute id in the grid along {@code dim} (HSAIL workitemabsid). */
    public long globalId(int dim) {
        return switch (dim) {
            case 0 -> groupX * dispatch.workgroupX + localX;
            case 1 -> groupY * dispatch.workgroupY + localY;
            case 2 -> groupZ * dispatch.workgroupZ + localZ;
            default -> throw badDimension(dim);
        };
    }

    /** Flat id inside the workgroup counted with the packet's workgroup size (HSAIL workitemflatid). */
    public int flatLocalId() {
        return localX + dispatch.workgroupX * (localY + dispatch.workgroupY * localZ);
    }

    /**
     * Flat id inside the workgroup counted with this workgroup's actual size (HSAIL
     * currentworkitemflatid): 0 to n-1 without gaps also in a partial last workgroup.
     */
    public int currentFlatLocalId() {
        return localX + currentX * (localY + currentY * localZ);
    }

    /** Flat absolute id in the grid (HSAIL workitemflatabsid). */
    @Override
    public long flatGlobalId() {
        return globalId(0) + dispatch.gridX * (globalId(1) + dispatch.gridY * globalId(2));
    }

    /** Flat id of the workgroup. */
    public long flatGroupId() {
        return groupX + dispatch.groupsX * (groupY + dispatch.groupsY * groupZ);
    }

    /** Grid size in work-items along {@code dim}. */
    public long gridSize(int dim) {
        return switch (dim) {
            case 0 -> dispatch.gridX;
            case 1 -> dispatch.gridY;
            case 2 -> dispatch.gridZ;
            default -> throw badDimension(dim);
        };
    }

    /** Workgroup size from the packet along {@code dim}. */
    public int workgroupSize(int dim) {
        return switch (dim) {
            case 0 -> dispatch.workgroupX;
            case 1 -> dispatch.workgroupY;
            case 2 -> dispatch.workgroupZ;
            default -> throw badDimension(dim);
        };
    }

    /** Size of this workgroup along {@code dim}: smaller than the packet's for a partial last group. */
    public int currentWorkgroupSize(int dim) {
        return switch (dim) {
            case 0 -> currentX;
            case 1 -> currentY;
            case 2 -> currentZ;
            default -> throw badDimension(dim);
        };
    }

    /** Number of workgroups along {@code dim}. */
    public long gridGroups(int dim) {
        return switch (dim) {
            case 0 -> dispatch.groupsX;
            case 1 -> dispatch.groupsY;
            case 2 -> dispatch.groupsZ;
            default -> throw badDimension(dim);
        };
    }

    /** This workgroup's group segment, as many bytes as the packet asked for. */
    public MemorySegment groupSegment() {
        return groupSegment;
    }

    /** This work-item's private segment, as many bytes as the packet asked for. */
    public MemorySegment privateSegment() {
        return privateSegment;
    }

    /** The kernarg segment (read it with the kernel's argument offsets). */
    public MemorySegment kernarg() {
        return dispatch.kernarg;
    }

    /** SVM address of the kernarg segment. */
    @Override
    public long kernargAddress() {
        return dispatch.kernargAddress;
    }

    /** The agent's view of shared virtual memory. */
    @Override
    public Svm svm() {
        return dispatch.svm;
    }

    /** The workgroup barrier. */
    public WorkgroupBarrier barrier() {
        return barrier;
    }

    /** Id of the dispatch packet in its queue. */
    @Override
    public long packetId() {
        return dispatch.packetId;
    }

    private static IllegalArgumentException badDimension(int dim) {
        return new IllegalArgumentException("dimension must be 0, 1 or 2, was " + dim);
    }
}
