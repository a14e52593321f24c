package org.hsa4j.trace;

import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The tracer that keeps per-queue and per-kernel statistics and hands trace events to its sink.
 * Statistics cells are updated under their own monitor (one per queue, one per kernel name): this
 * costs a lock per completed packet, which only a recording runtime pays.
 */
final class RecordingTracer extends Tracer {
    private final EventSink sink;
    private final ConcurrentHashMap<Long, Cell> queues = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Cell> kernels = new ConcurrentHashMap<>();

    RecordingTracer(EventSink sink, LongSupplier clock) {
        super(clock);
        this.sink = sink;
    }

    /** Counts of one queue or one kernel; guarded by itself. */
    private static final class Cell {
        final String agent;
        long dispatches;
        long barriers;
        long failures;
        long workgroups;
        long total;
        long min = Long.MAX_VALUE;
        long max;

        Cell(String agent) {
            this.agent = agent;
        }

        synchronized void dispatch(long nanos, boolean failed, long groups) {
            dispatches++;
            failures += failed ? 1 : 0;
            workgroups += groups;
            total += nanos;
            min = Math.min(min, nanos);
            max = Math.max(max, nanos);
        }

        synchronized void barrier() {
            barriers++;
        }

        synchronized QueueStatistics queue(long id) {
            return new QueueStatistics(id, agent, dispatches, barriers, failures, total,
                    dispatches == 0 ? 0 : min, max);
        }

        synchronized KernelStatistics kernel(String name) {
            return new KernelStatistics(name, dispatches, failures, workgroups, total, dispatches == 0 ? 0 : min, max);
        }
    }

    @Override
    public boolean recording() {
        return true;
    }

    @Override
    boolean listening(Jfr.Kind kind) {
        return true;
    }

    @Override
    public Optional<Path> file() {
        return sink instanceof TraceFile f ? Optional.of(f.path()) : Optional.empty();
    }

    @Override
    public DispatchTrace launched(int agent, String agentName, long queueId, long packetId, String kernel,
                                  long gridX, long gridY, long gridZ, int workgroupX, int workgroupY, int workgroupZ,
                                  int units) {
        return new LiveDispatch(this, agent, agentName, queueId, packetId, kernel, gridX, gridY, gridZ,
                workgroupX, workgroupY, workgroupZ, units);
    }

    private Cell queue(long id, String agentName) {
        return queues.computeIfAbsent(id, k -> new Cell(agentName));
    }

    @Override
    void dispatchDone(LiveDispatch d, long end, boolean failed) {
        long groups = 0;
        for (long p : d.parts) {
            groups += p;
        }
        long nanos = end - d.launched;
        queue(d.queueId, d.agentName).dispatch(nanos, failed, groups);
        kernels.computeIfAbsent(d.kernel, k -> new Cell("")).dispatch(nanos, failed, groups);
        int pid = d.agent + 1;
        long track = TraceEvent.QUEUE_TID + d.queueId;
        String trackName = "queue " + d.queueId;
        String id = "q" + d.queueId + "p" + d.packetId;
        sink.add(new TraceEvent('b', "dispatch", d.kernel, pid, d.agentName, track, trackName, d.launched, 0, id,
                "queue", d.queueId, "packet", d.packetId,
                "grid", d.gridX + "x" + d.gridY + "x" + d.gridZ,
                "workgroup", d.workgroupX + "x" + d.workgroupY + "x" + d.workgroupZ,
                "workgroups", groups, "failed", failed));
        sink.add(new TraceEvent('e', "dispatch", d.kernel, pid, d.agentName, track, trackName, end, 0, id));
        for (int u = 0; u < d.parts.length; u++) {
            if (d.parts[u] > 0) {
                sink.add(new TraceEvent('X', "compute-unit", d.kernel, pid, d.agentName, u, "cu" + u, d.first[u],
                        d.last[u] - d.first[u], null, "queue", d.queueId, "packet", d.packetId,
                        "workgroups", d.parts[u], "busy_us", d.busy[u] / 1000.0));
            }
        }
    }

    @Override
    public void barrier(int agent, String agentName, long queueId, long packetId, boolean and, long begin, long end) {
        queue(queueId, agentName).barrier();
        String name = and ? "barrier-and" : "barrier-or";
        long track = TraceEvent.QUEUE_TID + queueId;
        String id = "q" + queueId + "p" + packetId;
        sink.add(new TraceEvent('b', "barrier", name, agent + 1, agentName, track, "queue " + queueId, begin, 0, id,
                "queue", queueId, "packet", packetId));
        sink.add(new TraceEvent('e', "barrier", name, agent + 1, agentName, track, "queue " + queueId, end, 0, id));
        Jfr.barrier(agentName, queueId, packetId, and, end - begin);
    }

    @Override
    public WaitTrace waitBegins(long signalHandle) {
        return new LiveWait(this, signalHandle);
    }

    @Override
    void waitDone(LiveWait w, long end) {
        sink.add(new TraceEvent('X', "signal", "signal wait", TraceEvent.HOST_PID, "host", w.thread.threadId(),
                w.thread.getName(), w.begin, end - w.begin, null, "signal", "0x" + Long.toHexString(w.signal),
                "parked", w.parked));
    }

    @Override
    public CallTrace callBegins() {
        return new LiveCall(this);
    }

    @Override
    void callDone(LiveCall c, long end, String service, String opcode, String status) {
        sink.add(new TraceEvent('X', "service", service + " " + opcode, TraceEvent.HOST_PID, "host",
                c.thread.threadId(), c.thread.getName(), c.begin, end - c.begin, null, "service", service,
                "opcode", opcode, "status", status));
    }

    @Override
    public List<QueueStatistics> queueStatistics() {
        return queues.entrySet().stream().map(e -> e.getValue().queue(e.getKey()))
                .sorted(Comparator.comparingLong(QueueStatistics::queueId)).toList();
    }

    @Override
    public QueueStatistics queueStatistics(long queueId) {
        Cell c = queues.get(queueId);
        return c == null ? QueueStatistics.none(queueId) : c.queue(queueId);
    }

    @Override
    public List<KernelStatistics> kernelStatistics() {
        return kernels.entrySet().stream().map(e -> e.getValue().kernel(e.getKey()))
                .sorted(Comparator.comparing(KernelStatistics::kernel)).toList();
    }

    @Override
    public void close() {
        sink.close();
    }
}
