package org.hsa4j.agent;

import java.lang.invoke.VarHandle;
import java.util.function.LongSupplier;

import org.hsa4j.idle.CoreSharing;
import org.hsa4j.memory.SvmAccess;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * How an agent completes launched work. Completion flows one way: a compute unit runs a work's
 * last part, the work hands itself here, and nothing calls back into the packet processor; the
 * processor learns of it only through what this writes (the queue's in-flight count, and the
 * role protocol's epoch when the processor waits on that count).
 */
final class WorkCompletion {
    private final int agentIndex;
    /** Fidelity mode's caches, or null: a packet's release fence acts on them. */
    private final SvmAccess access;
    private final LongSupplier clock;
    /** The processor's role protocol: its epoch is bumped when a queue waits for its in-flight count (a barrier bit). */
    private final ProcessorRole role;
    private final LaunchOrder launchOrder;
    /** Where completions are signalled from: a host wait beginning on that core parks at once. */
    private final CoreSharing sharing;

    WorkCompletion(int agentIndex, SvmAccess access, LongSupplier clock, ProcessorRole role, LaunchOrder launchOrder,
                   CoreSharing sharing) {
        this.agentIndex = agentIndex;
        this.access = access;
        this.clock = clock;
        this.role = role;
        this.launchOrder = launchOrder;
        this.sharing = sharing;
    }

    /**
     * Completes launched work: release fence, then the queue's error or the end timestamp and the
     * completion signal's decrement, and only then the in-flight count, so a packet with the
     * barrier bit behind it starts after all of this. When the processor is blocked on this queue
     * ({@code blockedIndex}), bumping the epoch makes the role holder (or this unit, next round) scan
     * again; otherwise there is nothing to wake, and no shared counter is touched per packet.
     * The release fence orders the kernel's writes before the signal's (volatile) decrement and
     * the in-flight count, which are what other agents acquire.
     */
    void complete(Work work, HsaException failure, Signal completion, int releaseScope) {
        work.finished();
        if (releaseScope != 0) {
            access.packetRelease(agentIndex, releaseScope);
            VarHandle.releaseFence();
        }
        try {
            if (failure != null) {
                work.slot.queue.raiseError(failure);
                if (completion != null) {
                    completion.fail(failure);
                }
            } else if (completion != null) {
                completion.recordEnd(clock.getAsLong());
                completion.subtractScrelease(1);
                sharing.completionSignalled(); // after the signal: off its path, read only by a later wait
            }
        } catch (HsaException e) {
            work.slot.queue.raiseError(new HsaException(HsaStatus.INVALID_SIGNAL, "completion signal of " + work
                    + " on queue " + work.slot.queue.id() + " could not be signalled: " + e.getMessage(), e));
        } finally {
            work.slot.inflight.decrementAndGet();
            if (work.slot.blockedIndex != -1) {
                role.bumpEpoch();
            }
            launchOrder.completed(work);
        }
    }
}
