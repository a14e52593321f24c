package org.hsa4j.kernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaStatus;

/**
 * Runs workgroups on one compute unit (one worker thread), with that unit's group and private
 * segment buffers.
 *
 * <p>A kernel without barriers, or a workgroup of one work-item, runs as a plain loop over the
 * work-items with one reused {@link WorkItem}: the kernel class's own copy of the loop
 * ({@link KernelLoops}), so the JIT inlines the kernel, or one call of a {@link WorkgroupKernel}. A barrier kernel runs each work-item as a
 * continuation: the executor resumes them in turn, each runs to its next
 * {@link WorkgroupBarrier#await()} (a yield) or to its end, and a round in which all yielded is one
 * barrier phase. So a workgroup of any size progresses on a single thread (Aparapi's thread-pool
 * mode deadlocked when a group outnumbered its threads), and a barrier that only part of the
 * workgroup reaches is detected exactly: some work-items finished while others wait.
 *
 * <p>A work-item that reaches a barrier while holding a Java monitor takes the monitor with it
 * (the JDK moves held monitors with a continuation), so another work-item entering the same
 * monitor blocks the unit on itself. The agent's watchdog finds such a unit blocked in a barrier
 * round and calls {@link #rescueMonitorDeadlock()}: the workgroup is unwound, the dispatch fails with
 * EXCEPTION and the unit keeps serving.
 *
 * <p>The start of each work-item, each barrier and each barrier round are abort points
 * ({@link ComputeUnitThread#checkAbort()}): an aborted dispatch stops there.
 */
public final class WorkgroupExecutor implements AutoCloseable {
    private static final int MODE_SINGLE = 0;
    private static final int MODE_PLAIN = 1;
    private static final int MODE_CONTINUATION = 2;

    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);
    private static final byte SUSPENDED = 1;
    private static final byte DONE = 2;
    /** Longest a unit waits for a rescuer to unwind the rest of its workgroup. */
    private static final long RESCUE_WAIT_NANOS = 5_000_000_000L;

    private final Arena arena = Arena.ofShared();
    private final WorkgroupBarrier barrier = new WorkgroupBarrier(this);
    private final WorkItem plain = new WorkItem(barrier);
    private final MemorySegment groupBuffer;
    private MemorySegment privateBuffer;
    private WorkItem[] items = new WorkItem[0];
    private int mode;
    private String kernelName;
    /** The continuations of the barrier round running now, or null; published for a rescuer. */
    private volatile Object[] round;
    /** Each work-item's state in that round (NEW, SUSPENDED, DONE); written by the unit before {@link #running}. */
    private byte[] roundStates;
    /** The work-item the unit runs now, or -1. */
    private volatile int running = -1;
    /** Set by a rescuer: every barrier from now on throws EXCEPTION with this message. */
    private volatile String abandoned;
    /** Set by a rescuer once it has unwound the suspended work-items. */
    private volatile boolean rescued;

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
        d.code.runner.run(w, cx, cy, cz);
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
        byte[] states = new byte[n];
        int finished = 0;
        roundStates = states;
        abandoned = null;
        rescued = false;
        round = continuations;
        boolean completed = false;
        try {
            while (finished < n) {
                ComputeUnitThread.checkAbort();
                int waiting = 0;
                for (int k = 0; k < n; k++) {
                    if (states[k] != DONE) {
                        running = k;
                        checkAbandoned();
                        Continuations.run(continuations[k]);
                        if (Continuations.isDone(continuations[k])) {
                            states[k] = DONE;
                            finished++;
                        } else {
                            states[k] = SUSPENDED;
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
            completed = true;
        } finally {
            round = null;
            running = -1;
            if (abandoned != null) {
                awaitRescue();
            } else if (!completed) {
                unwindSuspended(continuations, states);
            }
        }
    }

    /**
     * A failed workgroup unwinds its work-items suspended at a barrier: each resumes, throws at the
     * barrier and runs its finally blocks, so the monitors it holds are released rather than kept
     * forever by a continuation nobody resumes.
     */
    private void unwindSuspended(Object[] continuations, byte[] states) {
        abandoned = "kernel " + kernelName + ": its workgroup failed";
        for (int i = 0; i < continuations.length; i++) {
            if (states[i] == SUSPENDED && !Continuations.isDone(continuations[i])) {
                try {
                    Continuations.run(continuations[i]);
                } catch (Throwable expected) {
                    // the work-item threw at its barrier, releasing what it held
                }
            }
        }
        abandoned = null;
    }

    /** True while this executor runs a barrier round (read by a watchdog from another thread). */
    public boolean inBarrierRound() {
        return round != null;
    }

    /**
     * Unwinds a workgroup whose compute unit is blocked on a Java monitor that a work-item suspended
     * at a barrier holds (a monitor moves with its continuation, so the unit waits for itself).
     * Called from another thread while the unit is blocked: it marks the round abandoned and resumes
     * every suspended work-item here, where each throws at its barrier and so releases its monitors;
     * the blocked work-item then gets its monitor and throws at its own next barrier, and the
     * dispatch fails with EXCEPTION. False when the unit runs no barrier round.
     */
    public boolean rescueMonitorDeadlock() {
        Object[] r = round;
        int k = running;
        if (r == null || k < 0) {
            return false;
        }
        abandoned = "kernel " + kernelName + ": a work-item reached a"
                + " workgroup barrier while holding a Java monitor that another work-item of its workgroup waits for;"
                + " release every monitor before a barrier";
        byte[] states = roundStates;
        for (int i = 0; i < r.length; i++) {
            if (i != k && states[i] == SUSPENDED) {
                try {
                    Continuations.run(r[i]);
                } catch (Throwable expected) {
                    // the work-item threw at its barrier, releasing what it held
                }
            }
        }
        rescued = true;
        return true;
    }

    private void checkAbandoned() {
        String a = abandoned;
        if (a != null) {
            throw new HsaException(HsaStatus.EXCEPTION, a);
        }
    }

    /** The unit waits (bounded) until the rescuer has unwound the suspended work-items it resumes. */
    private void awaitRescue() {
        long deadline = System.nanoTime() + RESCUE_WAIT_NANOS;
        while (!rescued && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(this, 100_000);
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
        w.clearViews();
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
                checkAbandoned();
                if (!Continuations.yieldToWorkgroup()) {
                    throw new HsaException(HsaStatus.EXCEPTION, "kernel " + kernelName
                            + ": a work-item could not yield at a barrier (pinned by a native frame)");
                }
                checkAbandoned();
            }
        }
    }

    @Override
    public void close() {
        arena.close();
    }
}
