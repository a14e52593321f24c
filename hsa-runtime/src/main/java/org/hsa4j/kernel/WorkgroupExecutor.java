package org.hsa4j.kernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.hsa4j.memory.ComputeUnitThread;

/**
 * Runs workgroups on one compute unit (one worker thread), with that unit's group and private
 * segment buffers.
 *
 * <p>A kernel without barriers, or a workgroup of one work-item, runs as a plain loop over the
 * work-items with one reused {@link WorkItem}: the kernel class's own copy of the loop
 * ({@link KernelLoops}), so the JIT inlines the kernel, or one call of a {@link WorkgroupKernel}.
 * A barrier kernel's workgroup of several work-items is handed to the unit's
 * {@link BarrierStrategy}, chosen once ({@code HSA4J_BARRIERS}): by default each work-item runs on
 * a virtual thread and the work-items take turns ({@link VirtualThreadBarriers}); opt-in, each is
 * a JDK continuation the unit resumes in turn ({@link ContinuationBarriers}). Either way a
 * workgroup of any size progresses on one core at a time (Aparapi's thread-pool mode deadlocked
 * when a group outnumbered its threads), and a barrier that only part of the workgroup reaches is
 * detected exactly: some work-items finished while others wait.
 *
 * <p>How the work-items meet in group memory is a {@link GroupModel} chosen once per executor: in
 * flat-id order with unchecked {@link GroupMemory} views, or in fidelity mode last-first on a
 * poisoned segment with views checked by a race detector.
 *
 * <p>The start of each work-item, each barrier and each barrier round are abort points
 * ({@link ComputeUnitThread#checkAbort()}): an aborted dispatch stops there.
 */
public final class WorkgroupExecutor implements AutoCloseable {
    private static final int MODE_SINGLE = 0;
    private static final int MODE_PLAIN = 1;
    private static final int MODE_BARRIERS = 2;

    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    private final Arena arena = Arena.ofShared();
    private final GroupModel groupModel;
    private final WorkItem plain;
    private final BarrierStrategy barriers;
    private final MemorySegment groupBuffer;
    private MemorySegment privateBuffer;
    private WorkItem[] items = new WorkItem[0];
    private int mode;
    private String kernelName;

    /**
     * An executor whose group segment holds up to {@code groupSegmentMax} bytes; in fidelity mode
     * when {@code fidelity} (work-items last-first, group memory poisoned and race-checked). Compute
     * units make theirs through {@code kernel.spi.WorkgroupExecutors}; applications make none.
     */
    WorkgroupExecutor(int groupSegmentMax, boolean fidelity) {
        this.groupModel = fidelity ? GroupModel.adversarial() : GroupModel.inOrder();
        this.plain = newItem(0);
        this.groupBuffer = arena.allocate(Math.max(groupSegmentMax, 8), 64);
        this.privateBuffer = arena.allocate(4096, 64);
        this.barriers = BarrierStrategy.configured();
    }

    /** True when barrier kernels can run with more than one work-item per workgroup. */
    public static boolean barriersAvailable() {
        return barriersUnavailableReason() == null;
    }

    /** Why barrier kernels cannot run, or null when they can. */
    public static String barriersUnavailableReason() {
        if (BarrierStrategy.SETTING_ERROR != null) {
            return BarrierStrategy.SETTING_ERROR;
        }
        return BarrierStrategy.CONTINUATIONS.equals(BarrierStrategy.CONFIGURED) ? Continuations.UNAVAILABLE_REASON
                : null;
    }

    /**
     * How barrier kernels run: "virtual threads" (the default) or "continuations"
     * ({@code HSA4J_BARRIERS=continuations}, needs {@code --add-exports java.base/jdk.internal.vm=ALL-UNNAMED}).
     */
    public static String barrierStrategy() {
        return BarrierStrategy.THREADS.equals(BarrierStrategy.CONFIGURED) ? "virtual threads"
                : String.valueOf(BarrierStrategy.CONFIGURED);
    }

    /** Runs workgroup {@code flatGroup} of {@code d}; whatever the kernel throws propagates. */
    public void run(Dispatch d, long flatGroup) {
        long gx = flatGroup % d.groupsX;
        long rest = flatGroup / d.groupsX;
        long gy = rest % d.groupsY;
        long gz = rest / d.groupsY;
        int cx = (int) Math.min(d.workgroupX, d.gridX - gx * d.workgroupX);
        int cy = (int) Math.min(d.workgroupY, d.gridY - gy * d.workgroupY);
        int cz = (int) Math.min(d.workgroupZ, d.gridZ - gz * d.workgroupZ);
        int n = cx * cy * cz;
        MemorySegment group = d.groupSegmentSize == 0 ? EMPTY : groupBuffer.asSlice(0, d.groupSegmentSize);
        kernelName = d.code.name();
        ComputeUnitThread unit = ComputeUnitThread.current();
        if (unit != null) {
            unit.enterKernel(kernelName);
        }
        groupModel.beginGroup(d, flatGroup, group);
        if (n > 1 && d.code.descriptor().barriers()) {
            runBarriers(d, gx, gy, gz, cx, cy, cz, n, group);
        } else {
            mode = n == 1 ? MODE_SINGLE : MODE_PLAIN;
            runPlain(d, gx, gy, gz, cx, cy, cz, group);
        }
    }

    private void runPlain(Dispatch d, long gx, long gy, long gz, int cx, int cy, int cz, MemorySegment group) {
        WorkItem w = plain;
        bind(w, d, gx, gy, gz, cx, cy, cz, group);
        w.privateSegment = d.privateSegmentSize == 0 ? EMPTY
                : privateSlices(d.privateSegmentSize, 1).asSlice(0, d.privateSegmentSize);
        groupModel.runPlain(d, w, cx, cy, cz);
    }

    private void runBarriers(Dispatch d, long gx, long gy, long gz, int cx, int cy, int cz, int n,
                             MemorySegment group) {
        if (items.length < n) {
            WorkItem[] grown = new WorkItem[n];
            System.arraycopy(items, 0, grown, 0, items.length);
            for (int i = items.length; i < n; i++) {
                grown[i] = newItem(i);
            }
            items = grown;
        }
        MemorySegment privates = privateSlices(d.privateSegmentSize, n);
        boolean lastFirst = groupModel.lastFirst();
        int i = 0;
        for (int z = 0; z < cz; z++) {
            for (int y = 0; y < cy; y++) {
                for (int x = 0; x < cx; x++) {
                    int lane = lastFirst ? n - 1 - i : i;
                    WorkItem w = items[lane];
                    bind(w, d, gx, gy, gz, cx, cy, cz, group);
                    w.localX = x;
                    w.localY = y;
                    w.localZ = z;
                    w.privateSegment = privates.asSlice((long) lane * d.privateSegmentSize, d.privateSegmentSize);
                    i++;
                }
            }
        }
        mode = MODE_BARRIERS;
        barriers.runGroup(items, n, d.code.kernel(), d.code.name());
    }

    /** True while this executor's unit thread runs a barrier round itself (read by a watchdog from another thread). */
    public boolean inBarrierRound() {
        return barriers.inBarrierRound();
    }

    /**
     * Unwinds a workgroup whose compute unit is blocked on a Java monitor that a work-item suspended
     * at a barrier holds (on continuations a monitor moves with its continuation, so the unit waits
     * for itself); the dispatch fails with EXCEPTION. False when the unit runs no barrier round.
     * (The virtual-thread strategy finds and rescues this deadlock itself.)
     */
    public boolean rescueMonitorDeadlock() {
        return barriers.rescueMonitorDeadlock();
    }

    private static void bind(WorkItem w, Dispatch d, long gx, long gy, long gz, int cx, int cy, int cz,
                             MemorySegment group) {
        w.dispatch = d;
        w.groupX = gx;
        w.groupY = gy;
        w.groupZ = gz;
        w.currentX = cx;
        w.currentY = cy;
        w.currentZ = cz;
        w.groupSegment = group;
        w.groupPhase = 0;
        w.clearViews();
    }

    private MemorySegment privateSlices(int perItem, int count) {
        long need = (long) perItem * count;
        if (privateBuffer.byteSize() < need) {
            privateBuffer = arena.allocate(Math.max(need, privateBuffer.byteSize() * 2), 64);
        }
        return privateBuffer;
    }

    /** A work-item for lane {@code lane}, with its barrier and its group-memory view. */
    private WorkItem newItem(int lane) {
        WorkItem w = new WorkItem(new WorkgroupBarrier(this, lane));
        w.groupMemory = groupModel.view(w);
        return w;
    }

    void barrier(int lane) {
        switch (mode) {
            case MODE_SINGLE -> {
            }
            case MODE_PLAIN -> throw WorkgroupBarrier.undeclared(kernelName);
            default -> {
                items[lane].groupPhase++;
                barriers.barrier(lane);
            }
        }
    }

    @Override
    public void close() {
        barriers.close();
        arena.close();
    }
}
