package org.hsa4j.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.hsa4j.memory.Abortable;
import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.queue.RunningPacket;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;

/**
 * Launched work that compute units execute: a kernel dispatch's workgroups or an agent dispatch.
 *
 * <p>Work may be aborted ({@link #abort}): its abort points then throw the cause, and the global
 * count of pending aborts ({@link ComputeUnitThread#beginAbortChecks()}) stays raised until the
 * work completes; {@code abortState} makes sure exactly one of the aborter and the completer
 * lowers it again.
 */
abstract class Work implements Abortable, RunningPacket {
    private static final int NOT_ABORTED = 0;
    private static final int ABORT_COUNTED = 1;
    private static final int ABORT_RELEASED = 2;
    private static final VarHandle ABORT_CAUSE;
    private static final VarHandle ABORT_STATE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ABORT_CAUSE = lookup.findVarHandle(Work.class, "abortCause", HsaException.class);
            ABORT_STATE = lookup.findVarHandle(Work.class, "abortState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final QueueSlot slot;
    /** The packet's completion signal, or null. */
    final Signal completion;
    private volatile HsaException abortCause;
    @SuppressWarnings("unused")
    private volatile int abortState;
    /** Set (volatile) when the work completed, before the abort count is released. */
    private volatile boolean completed;

    /** The packet's id in its queue. */
    private final long packetId;

    Work(QueueSlot slot, long packetId, Signal completion) {
        this.slot = slot;
        this.packetId = packetId;
        this.completion = completion;
    }

    @Override
    public final long queueId() {
        return slot.queue.id();
    }

    @Override
    public final long packetId() {
        return packetId;
    }

    @Override
    public final long completionSignalHandle() {
        return completion == null ? 0 : completion.handle();
    }

    /** True while a compute unit could still claim part of this work. */
    abstract boolean claimable();

    /** Parts nobody has claimed yet: what a helper woken now could still take. */
    abstract long unclaimedParts();

    /** Claims one part (a workgroup's flat id, or 0 for an agent dispatch); -1 when nothing is left. */
    abstract long claim();

    /** True when {@code part} is the last part there is to claim. */
    abstract boolean isLastPart(long part);

    /** Runs a part this unit claimed. */
    abstract void run(long part, ComputeUnit unit);

    @Override
    public final HsaException abortCause() {
        return abortCause;
    }

    /**
     * Aborts this work with {@code cause}: its abort points throw from now on. True for the call that
     * aborted it (later calls and calls after completion change nothing and return false).
     */
    final boolean abort(HsaException cause) {
        if (completed || !ABORT_CAUSE.compareAndSet(this, null, cause)) {
            return false;
        }
        ComputeUnitThread.beginAbortChecks();
        abortState = ABORT_COUNTED;
        if (completed) {
            releaseAbortChecks();
        }
        return true;
    }

    /** Called once the work completed (or was given up): the abort, if any, is no longer looked for. */
    final void finished() {
        completed = true;
        if (abortCause != null) {
            releaseAbortChecks();
        }
    }

    private void releaseAbortChecks() {
        if (ABORT_STATE.compareAndSet(this, ABORT_COUNTED, ABORT_RELEASED)) {
            ComputeUnitThread.endAbortChecks();
        }
    }
}
