package org.hsa4j.agent;

import java.util.concurrent.atomic.AtomicBoolean;

import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.hsa4j.trace.DispatchTrace;

/** A launched agent dispatch: one compute unit runs its handler. */
final class AgentWork extends Work {
    private final AgentDispatchHandler handler;
    private final AgentDispatchRequest request;
    private final int releaseScope;
    private final PacketProcessor processor;
    private final AtomicBoolean claimed = new AtomicBoolean();
    /** What the tracer wants to hear of this dispatch ({@code DispatchTrace.NONE} when nothing listens). */
    private final DispatchTrace trace;

    AgentWork(QueueSlot slot, AgentDispatchHandler handler, AgentDispatchRequest request, Signal completion,
              int releaseScope, PacketProcessor processor) {
        super(slot, request.packetId(), completion);
        this.handler = handler;
        this.request = request;
        this.releaseScope = releaseScope;
        this.processor = processor;
        this.trace = processor.tracer.agentDispatchLaunched(processor.agentIndex(), processor.agentName(),
                slot.queue.id(), request.packetId(), request.type(), processor.unitCount());
    }

    @Override
    boolean claimable() {
        return !claimed.get();
    }

    @Override
    long unclaimedParts() {
        return claimed.get() ? 0 : 1;
    }

    @Override
    long claim() {
        return claimed.compareAndSet(false, true) ? 0 : -1;
    }

    @Override
    boolean isLastPart(long part) {
        return true;
    }

    @Override
    void run(long part, ComputeUnit unit) {
        HsaException failure = null;
        processor.beginPart();
        trace.partBegin(unit.id, 0);
        unit.thread().enterWork(this);
        try {
            handler.handle(request);
        } catch (HsaException e) {
            failure = e;
        } catch (Throwable t) {
            failure = new HsaException(HsaStatus.EXCEPTION, "agent dispatch handler for type " + request.type()
                    + " threw: " + t, t);
        } finally {
            unit.thread().exitWork();
        }
        processor.endPart(releaseScope);
        trace.partEnd(unit.id);
        trace.completed(failure != null);
        unit.complete(this, failure, releaseScope);
    }

    @Override
    public String toString() {
        return "agent dispatch type " + request.type() + "#" + request.packetId();
    }
}
