package org.hsa4j.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.hsa4j.memory.DoubleView;
import org.hsa4j.memory.FloatView;
import org.hsa4j.memory.IntView;
import org.hsa4j.memory.LongView;
import org.hsa4j.memory.Svm;

/**
 * What a running kernel sees of itself, after HSAIL's dispatch builtins: its ids (local, group,
 * global, flat), the dispatch geometry, its group, private and kernarg segments, the agent's view
 * of SVM, and the workgroup barrier. In a kernel without barriers one instance is reused for every
 * work-item of a workgroup, so a kernel must not keep it past {@link Kernel#execute}.
 *
 * <p>Checked SVM access at loop speed: {@link #floats}, {@link #ints}, {@link #longs} and
 * {@link #doubles} give a typed view that is range-checked once per workgroup: the first work-item
 * of a group that asks for a range makes the view, the others get the same one back after comparing
 * two longs, and each element access then costs one segment bounds check instead of an address
 * translation. A view does not outlive its workgroup's use of this object.
 */
public final class WorkItem {
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
    /** Typed views made in this workgroup: their start, element count and the view; {@link #viewsUsed} valid. */
    private final long[] viewAddress = new long[VIEWS];
    private final long[] viewCount = new long[VIEWS];
    private final Object[] views = new Object[VIEWS];
    private int viewsUsed;
    private int viewNext;
    private static final int VIEWS = 8;

    /** This item seen as its whole workgroup, for a {@link WorkgroupKernel}. */
    final Workgroup group = new Workgroup(this);

    WorkItem(WorkgroupBarrier barrier) {
        this.barrier = barrier;
    }

    /** Forgets the views of the previous workgroup; called when the item is bound to a new one. */
    void clearViews() {
        if (viewsUsed > 0) {
            java.util.Arrays.fill(views, null);
            viewsUsed = 0;
            viewNext = 0;
        }
    }

    /** 64-bit kernel argument {@code i}: bytes {@code 8 * i} of the kernarg segment, as the launch call writes them. */
    public long arg(int i) {
        return dispatch.kernarg.get(ValueLayout.JAVA_LONG, 8L * i);
    }

    /** {@code count} floats at {@code address}, checked once per workgroup ({@link Svm#floats}). */
    public FloatView floats(long address, long count) {
        for (int i = 0; i < viewsUsed; i++) {
            if (viewAddress[i] == address && viewCount[i] == count && views[i] instanceof FloatView v) {
                return v;
            }
        }
        return remember(address, count, dispatch.svm.floats(address, count));
    }

    /** {@code count} ints at {@code address}, checked once per workgroup ({@link Svm#ints}). */
    public IntView ints(long address, long count) {
        for (int i = 0; i < viewsUsed; i++) {
            if (viewAddress[i] == address && viewCount[i] == count && views[i] instanceof IntView v) {
                return v;
            }
        }
        return remember(address, count, dispatch.svm.ints(address, count));
    }

    /** {@code count} longs at {@code address}, checked once per workgroup ({@link Svm#longs}). */
    public LongView longs(long address, long count) {
        for (int i = 0; i < viewsUsed; i++) {
            if (viewAddress[i] == address && viewCount[i] == count && views[i] instanceof LongView v) {
                return v;
            }
        }
        return remember(address, count, dispatch.svm.longs(address, count));
    }

    /** {@code count} doubles at {@code address}, checked once per workgroup ({@link Svm#doubles}). */
    public DoubleView doubles(long address, long count) {
        for (int i = 0; i < viewsUsed; i++) {
            if (viewAddress[i] == address && viewCount[i] == count && views[i] instanceof DoubleView v) {
                return v;
            }
        }
        return remember(address, count, dispatch.svm.doubles(address, count));
    }

    private <V> V remember(long address, long count, V view) {
        int i = viewsUsed < VIEWS ? viewsUsed++ : (viewNext++ & (VIEWS - 1));
        viewAddress[i] = address;
        viewCount[i] = count;
        views[i] = view;
        return view;
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
    public long kernargAddress() {
        return dispatch.kernargAddress;
    }

    /** The agent's view of shared virtual memory. */
    public Svm svm() {
        return dispatch.svm;
    }

    /** The workgroup barrier. */
    public WorkgroupBarrier barrier() {
        return barrier;
    }

    /** Id of the dispatch packet in its queue. */
    public long packetId() {
        return dispatch.packetId;
    }

    private static IllegalArgumentException badDimension(int dim) {
        return new IllegalArgumentException("dimension must be 0, 1 or 2, was " + dim);
    }
}
