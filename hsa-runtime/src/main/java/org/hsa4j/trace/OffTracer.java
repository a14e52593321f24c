package org.hsa4j.trace;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/** The tracer of a runtime that records nothing: live traces only while JFR enables hsa4j's events. */
final class OffTracer extends Tracer {
    OffTracer(LongSupplier clock) {
        super(clock);
    }

    @Override
    public boolean recording() {
        return false;
    }

    @Override
    boolean listening(Jfr.Kind kind) {
        return Jfr.enabled(kind);
    }

    @Override
    public Optional<Path> file() {
        return Optional.empty();
    }

    @Override
    public DispatchTrace launched(int agent, String agentName, long queueId, long packetId, String kernel,
                                  long gridX, long gridY, long gridZ, int workgroupX, int workgroupY, int workgroupZ,
                                  int units) {
        if (!listening(Jfr.Kind.DISPATCH)) {
            return DispatchTrace.NONE;
        }
        return new LiveDispatch(this, agent, agentName, queueId, packetId, kernel, gridX, gridY, gridZ,
                workgroupX, workgroupY, workgroupZ, units);
    }

    @Override
    public void barrier(int agent, String agentName, long queueId, long packetId, boolean and, long begin, long end) {
        Jfr.barrier(agentName, queueId, packetId, and, end - begin);
    }

    @Override
    public WaitTrace waitBegins(long signalHandle) {
        return listening(Jfr.Kind.SIGNAL_WAIT) ? new LiveWait(this, signalHandle) : WaitTrace.NONE;
    }

    @Override
    public CallTrace callBegins() {
        return listening(Jfr.Kind.SERVICE_CALL) ? new LiveCall(this) : CallTrace.NONE;
    }

    @Override
    public List<QueueStatistics> queueStatistics() {
        return List.of();
    }

    @Override
    public QueueStatistics queueStatistics(long queueId) {
        return QueueStatistics.none(queueId);
    }

    @Override
    public List<KernelStatistics> kernelStatistics() {
        return List.of();
    }

    @Override
    public void close() {
    }

    @Override
    void dispatchDone(LiveDispatch d, long end, boolean failed) {
    }

    @Override
    void waitDone(LiveWait w, long end) {
    }

    @Override
    void callDone(LiveCall c, long end, String service, String opcode, String status) {
    }
}
