package org.hsa4j.kernel;

import java.lang.foreign.MemorySegment;

import org.hsa4j.memory.Svm;

/**
 * What a {@link WorkgroupKernel} sees: its workgroup's ids and range in the grid, the dispatch
 * geometry, the group and kernarg segments and the agent's view of SVM. The range along each
 * dimension is {@link #from(int)} (inclusive) to {@link #to(int)} (exclusive), smaller than the
 * packet's workgroup size for a partial last group. One instance is reused for every workgroup a
 * compute unit runs, so a kernel must not keep it past {@link WorkgroupKernel#execute}.
 */
public final class Workgroup {
    private final WorkItem item;

    Workgroup(WorkItem item) {
        this.item = item;
    }

    /** Number of dimensions of the dispatch (1 to 3). */
    public int dimensions() {
        return item.dimensions();
    }

    /** Workgroup id along {@code dim}. */
    public long groupId(int dim) {
        return item.groupId(dim);
    }

    /** Flat id of the workgroup. */
    public long flatGroupId() {
        return item.flatGroupId();
    }

    /** Absolute id of this group's first work-item along {@code dim}. */
    public long from(int dim) {
        return item.groupId(dim) * item.workgroupSize(dim);
    }

    /** One past the absolute id of this group's last work-item along {@code dim}. */
    public long to(int dim) {
        return from(dim) + item.currentWorkgroupSize(dim);
    }

    /** Number of work-items of this group along {@code dim}: the packet's size, or less for a partial last group. */
    public int size(int dim) {
        return item.currentWorkgroupSize(dim);
    }

    /** Grid size in work-items along {@code dim}. */
    public long gridSize(int dim) {
        return item.gridSize(dim);
    }

    /** Workgroup size from the packet along {@code dim}. */
    public int workgroupSize(int dim) {
        return item.workgroupSize(dim);
    }

    /** This workgroup's group segment. */
    public MemorySegment groupSegment() {
        return item.groupSegment();
    }

    /** The kernarg segment. */
    public MemorySegment kernarg() {
        return item.kernarg();
    }

    /** 64-bit kernel argument {@code i} (bytes {@code 8 * i} of the kernarg segment), as the launch call writes them. */
    public long arg(int i) {
        return item.arg(i);
    }

    /** The agent's view of shared virtual memory; take typed views ({@code svm().floats(...)}) once per group. */
    public Svm svm() {
        return item.svm();
    }

    /** Id of the dispatch packet in its queue. */
    public long packetId() {
        return item.packetId();
    }
}
