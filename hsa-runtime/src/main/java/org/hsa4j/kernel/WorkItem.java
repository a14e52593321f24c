package org.hsa4j.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import org.hsa4j.memory.Allocation;
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
 * <p>Checked SVM access: {@code svm().getFloat(address)} translates and checks every access.
 * {@link #floatsArg} and its siblings give a typed view from a kernel argument's address to the end
 * of its allocation, range-checked once per workgroup (an array load per call after that), whose
 * element accesses cost one segment bounds check. At loop speed, a kernel defined with
 * {@link Executable#definePrepared} takes its views once per workgroup and captures them. Kernel
 * arguments ({@link #arg}) are read once per workgroup. Views do not outlive their workgroup.
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
    /** This item's view of its group segment, of the executor's {@link GroupModel}; set once, right after construction. */
    GroupMemory groupMemory;
    /** Barriers this item passed in its workgroup: its barrier phase, for fidelity mode's race detector. */
    int groupPhase;
    /** Kernel arguments read once per workgroup, and the typed views over the first of them. */
    private static final int ARGS = 32;
    private static final int ARG_VIEWS = 8;
    private final long[] args = new long[ARGS];
    private int argsRead;
    private final Object[] argViews = new Object[ARG_VIEWS];
    /** Views remembered since the last {@link #clearViews}: {@code argViews} is null from this index on. */
    private int viewsRemembered;

    /** This item seen as its whole workgroup, for a {@link WorkgroupKernel}. */
    final Workgroup group = new Workgroup(this);

    WorkItem(WorkgroupBarrier barrier) {
        this.barrier = barrier;
    }

    /** Forgets the previous workgroup's views and reads the new one's arguments; called when the item is bound to a group. */
    void clearViews() {
        if (viewsRemembered > 0) {
            Arrays.fill(argViews, 0, viewsRemembered, null);
            viewsRemembered = 0;
        }
        readArgs();
    }

    /** 64-bit kernel argument {@code i}: bytes {@code 8 * i} of the kernarg segment, as the launch call writes them. */
    public long arg(int i) {
        if (i >= 0 && i < argsRead) {
            return args[i];
        }
        return dispatch.kernarg.get(ValueLayout.JAVA_LONG, 8L * i);
    }

    /**
     * The floats from the SVM address in kernel argument {@code i} to the end of its allocation,
     * range-checked once per workgroup: one array load per call after the first.
     */
    public FloatView floatsArg(int i) {
        if (i >= 0 && i < ARG_VIEWS && argViews[i] instanceof FloatView v) {
            return v;
        }
        long address = arg(i);
        return rememberArg(i, dispatch.svm.floats(address, untilEnd(address, Float.BYTES)));
    }

    /** The ints from the SVM address in kernel argument {@code i} to the end of its allocation, as {@link #floatsArg}. */
    public IntView intsArg(int i) {
        if (i >= 0 && i < ARG_VIEWS && argViews[i] instanceof IntView v) {
            return v;
        }
        long address = arg(i);
        return rememberArg(i, dispatch.svm.ints(address, untilEnd(address, Integer.BYTES)));
    }

    /** The longs from the SVM address in kernel argument {@code i} to the end of its allocation, as {@link #floatsArg}. */
    public LongView longsArg(int i) {
        if (i >= 0 && i < ARG_VIEWS && argViews[i] instanceof LongView v) {
            return v;
        }
        long address = arg(i);
        return rememberArg(i, dispatch.svm.longs(address, untilEnd(address, Long.BYTES)));
    }

    /** The doubles from the SVM address in kernel argument {@code i} to the end of its allocation, as {@link #floatsArg}. */
    public DoubleView doublesArg(int i) {
        if (i >= 0 && i < ARG_VIEWS && argViews[i] instanceof DoubleView v) {
            return v;
        }
        long address = arg(i);
        return rememberArg(i, dispatch.svm.doubles(address, untilEnd(address, Double.BYTES)));
    }

    /** Whole elements of {@code size} bytes from {@code address} to the end of its allocation (a bad address faults). */
    private long untilEnd(long address, int size) {
        Allocation a = dispatch.svm.resolve(address, 1);
        return (a.base() + a.size() - address) / size;
    }

    private <V> V rememberArg(int i, V view) {
        if (i >= 0 && i < ARG_VIEWS) {
            argViews[i] = view;
            viewsRemembered = Math.max(viewsRemembered, i + 1);
        }
        return view;
    }

    /** Reads this workgroup's first kernel arguments once, when the item is bound to a new group. */
    void readArgs() {
        MemorySegment k = dispatch.kernarg;
        int n = k == null ? 0 : (int) Math.min(k.byteSize() / 8, ARGS);
        for (int i = 0; i < n; i++) {
            args[i] = k.get(ValueLayout.JAVA_LONG, 8L * i);
        }
        argsRead = n;
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

    /**
     * This workgroup's group segment, as many bytes as the packet asked for: a raw segment, which
     * fidelity mode orders adversarially but cannot check; {@link #groupMemory()} is checked.
     */
    public MemorySegment groupSegment() {
        return groupSegment;
    }

    /**
     * This workgroup's group segment as a checked view: typed accesses at byte offsets which, in
     * fidelity mode, fail the dispatch at a group-memory race (see {@link GroupMemory}).
     */
    public GroupMemory groupMemory() {
        return groupMemory;
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
