package org.hsa4j.kernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaStatus;

/**
 * Runs workgroups on one compute unit (one worker thread), with that unit's group and private
 * segment buffers.
 *
 * <p>A kernel without barriers, or a workgroup of one work-item, runs as a plain loop over the
 * work-items with one reused {@link WorkItem}. A barrier kernel runs each work-item as a
 * continuation: the executor resumes them in turn, each runs to its next
 * {@link WorkgroupBarrier#await()} (a yield) or to its end, and a round in which all yielded is one
 * barrier phase. So a workgroup of any size progresses on a single thread (Aparapi's thread-pool
 * mode deadlocked when a group outnumbered its threads), and a barrier that only part of the
 * workgroup reaches is detected exactly: some work-items finished while others wait.
 *
 * <p>The start of each work-item, each barrier and each barrier round are abort points
 * ({@link ComputeUnitThread#checkAbort()}): an aborted dispatch stops there.
 */
public final class WorkgroupExecutor implements AutoCloseable {
    private static final int MODE_SINGLE = 0;
    private static final int MODE_PLAIN = 1;
    private static final int MODE_CONTINUATION = 2;

    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    private final Arena arena = Arena.ofShared();
    private final WorkgroupBarrier barrier = new WorkgroupBarrier(this);
    private final WorkItem plain = new WorkItem(barrier);
    private final MemorySegment groupBuffer;
    private MemorySegment privateBuffer;
    private WorkItem[] items = new WorkItem[0];
    private int mode;
    private String kernelName;

    /** An executor whose group segment holds up to {@code groupSegmentMax} bytes. */
    public WorkgroupExecutor(int groupSegmentMax) {
        this.groupBuffer = arena.allocate(Math.max(groupSegmentMax, 8), 64);
        this.privateBuffer = arena.allocate(4096, 64);
    }

    /** True when barrier kernels can run with more than one work-item per workgroup. */
    public static boolean barriersAvailable() {
        return Continuations.AVAILABLE;
    }

    /** Why barrier kernels cannot run, or null when they can. */
    public static String barriersUnavailableReason() {
        return Continuations.UNAVAILABLE_REASON;
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
        if (n > 1 && d.code.descriptor().barriers()) {
            runContinuations(d, gx, gy, gz, cx, cy, cz, n, group);
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
        Kernel kernel = d.code.kernel();
        for (int z = 0; z < cz; z++) {
            w.localZ = z;
            for (int y = 0; y < cy; y++) {
                w.localY = y;
                for (int x = 0; x < cx; x++) {
                    w.localX = x;
                    ComputeUnitThread.checkAbort();
                    kernel.execute(w);
                }
            }
        }
    }

    private void runContinuations(Dispatch d, long gx, long gy, long gz, int cx, int cy, int cz, int n,
                                  MemorySegment group) {
        if (!Continuations.AVAILABLE) {
            throw new HsaException(HsaStatus.EXCEPTION, "kernel " + d.code.name() + ": "
                    + Continuations.UNAVAILABLE_REASON);
        }
        if (items.length < n) {
            WorkItem[] grown = new WorkItem[n];
            System.arraycopy(items, 0, grown, 0, items.length);
            for (int i = items.length; i < n; i++) {
                grown[i] = new WorkItem(barrier);
            }
            items = grown;
        }
        MemorySegment privates = privateSlices(d.privateSegmentSize, n);
        Kernel kernel = d.code.kernel();
        Object[] continuations = new Object[n];
        int i = 0;
        for (int z = 0; z < cz; z++) {
            for (int y = 0; y < cy; y++) {
                for (int x = 0; x < cx; x++) {
                    WorkItem w = items[i];
                    bind(w, d, gx, gy, gz, cx, cy, cz, group);
                    w.localX = x;
                    w.localY = y;
                    w.localZ = z;
                    w.privateSegment = privates.asSlice((long) i * d.privateSegmentSize, d.privateSegmentSize);
                    continuations[i] = Continuations.create(() -> kernel.execute(w));
                    i++;
                }
            }
        }
        mode = MODE_CONTINUATION;
        boolean[] done = new boolean[n];
        int finished = 0;
        while (finished < n) {
            ComputeUnitThread.checkAbort();
            int waiting = 0;
            for (int k = 0; k < n; k++) {
                if (!done[k]) {
                    Continuations.run(continuations[k]);
                    if (Continuations.isDone(continuations[k])) {
                        done[k] = true;
                        finished++;
                    } else {
                        waiting++;
                    }
                }
            }
            if (waiting > 0 && finished > 0) {
                throw new HsaException(HsaStatus.EXCEPTION, String.format(
                        "kernel %s: a workgroup barrier was reached by only %d of %d work-items; %d returned without it",
                        d.code.name(), waiting, n, finished));
            }
        }
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
    }

    private MemorySegment privateSlices(int perItem, int count) {
        long need = (long) perItem * count;
        if (privateBuffer.byteSize() < need) {
            privateBuffer = arena.allocate(Math.max(need, privateBuffer.byteSize() * 2), 64);
        }
        return privateBuffer;
    }

    void barrier() {
        switch (mode) {
            case MODE_SINGLE -> {
            }
            case MODE_PLAIN -> throw WorkgroupBarrier.undeclared(kernelName);
            default -> {
                ComputeUnitThread.checkAbort();
                if (!Continuations.yieldToWorkgroup()) {
                    throw new HsaException(HsaStatus.EXCEPTION, "kernel " + kernelName
                            + ": a work-item could not yield at a barrier (pinned by a native frame)");
                }
            }
        }
    }

    @Override
    public void close() {
        arena.close();
    }
}
