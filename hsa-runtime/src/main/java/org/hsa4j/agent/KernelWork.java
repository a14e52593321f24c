package org.hsa4j.agent;

import org.hsa4j.kernel.Dispatch;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.hsa4j.trace.DispatchTrace;

/** A launched kernel dispatch: compute units claim and run its workgroups one at a time. */
final class KernelWork extends Work {
    final Dispatch dispatch;
    final int releaseScope;
    private final PacketProcessor processor;
    /** What the tracer wants to hear of this dispatch ({@code DispatchTrace.NONE} when nothing listens). */
    private final DispatchTrace trace;

    KernelWork(QueueSlot slot, Dispatch dispatch, Signal completion, int releaseScope, PacketProcessor processor) {
        super(slot, dispatch.packetId(), completion);
        this.dispatch = dispatch;
        this.releaseScope = releaseScope;
        this.processor = processor;
        this.trace = processor.tracer.launched(processor.agentIndex(), processor.agentName(), slot.queue.id(),
                dispatch.packetId(), dispatch.code().name(), dispatch.gridSize(0), dispatch.gridSize(1),
                dispatch.gridSize(2), dispatch.workgroupSize(0), dispatch.workgroupSize(1), dispatch.workgroupSize(2),
                processor.unitCount());
    }

    @Override
    boolean claimable() {
        return dispatch.hasUnclaimedGroups();
    }

    @Override
    long unclaimedParts() {
        return dispatch.unclaimedGroups();
    }

    @Override
    long claim() {
        return dispatch.claimGroup();
    }

    @Override
    boolean isLastPart(long part) {
        return part == dispatch.totalGroups() - 1;
    }

    @Override
    void run(long group, ComputeUnit unit) {
        processor.beginPart();
        trace.partBegin(unit.id, group);
        unit.thread().enterWork(this);
        try {
            unit.executor.run(dispatch, group);
        } catch (HsaException e) {
            dispatch.fail(e);
        } catch (Throwable t) {
            dispatch.fail(new HsaException(HsaStatus.EXCEPTION, "kernel " + dispatch.code().name()
                    + " threw in workgroup " + group + ": " + t, t));
        } finally {
            unit.thread().exitWork();
        }
        processor.endPart(releaseScope);
        trace.partEnd(unit.id);
        if (dispatch.finishGroup()) {
            trace.completed(dispatch.failure() != null);
            unit.complete(this, dispatch.failure(), releaseScope);
        }
    }

    @Override
    public String toString() {
        return dispatch.toString();
    }
}
