package org.hsa4j.trace;

/**
 * A dispatch somebody listens to. Each compute unit writes only its own slot of the per-unit
 * arrays (plain writes); the completing unit reads them all after the dispatch's last workgroup
 * finished, and every unit's writes come before its own decrement of the groups-left count (an
 * atomic read-modify-write the completing unit's decrement follows), so it sees them.
 */
final class LiveDispatch extends DispatchTrace {
    final Tracer tracer;
    final int agent;
    final String agentName;
    final long queueId;
    final long packetId;
    final String kernel;
    final long gridX;
    final long gridY;
    final long gridZ;
    final int workgroupX;
    final int workgroupY;
    final int workgroupZ;
    final long launched;
    /** Per unit: begin of its first part, end of its last, time in parts, parts run, begin of the current part. */
    final long[] first;
    final long[] last;
    final long[] busy;
    final long[] parts;
    private final long[] current;
    private final Jfr.DispatchEvent event;
    private final Jfr.WorkgroupEvent[] open;

    LiveDispatch(Tracer tracer, int agent, String agentName, long queueId, long packetId, String kernel, long gridX,
                 long gridY, long gridZ, int workgroupX, int workgroupY, int workgroupZ, int units) {
        this.tracer = tracer;
        this.agent = agent;
        this.agentName = agentName;
        this.queueId = queueId;
        this.packetId = packetId;
        this.kernel = kernel;
        this.gridX = gridX;
        this.gridY = gridY;
        this.gridZ = gridZ;
        this.workgroupX = workgroupX;
        this.workgroupY = workgroupY;
        this.workgroupZ = workgroupZ;
        this.first = new long[units];
        this.last = new long[units];
        this.busy = new long[units];
        this.parts = new long[units];
        this.current = new long[units];
        if (Jfr.enabled(Jfr.Kind.DISPATCH)) {
            event = new Jfr.DispatchEvent();
            event.begin();
        } else {
            event = null;
        }
        open = event != null && Jfr.enabled(Jfr.Kind.WORKGROUP) ? new Jfr.WorkgroupEvent[units] : null;
        this.launched = tracer.now();
    }

    @Override
    public void partBegin(int unit, long part) {
        long now = tracer.now();
        if (parts[unit] == 0) {
            first[unit] = now;
        }
        current[unit] = now;
        if (open != null) {
            Jfr.WorkgroupEvent e = new Jfr.WorkgroupEvent();
            e.agent = agentName;
            e.unit = unit;
            e.queue = queueId;
            e.packet = packetId;
            e.kernel = kernel;
            e.group = part;
            e.begin();
            open[unit] = e;
        }
    }

    @Override
    public void partEnd(int unit) {
        long now = tracer.now();
        last[unit] = now;
        busy[unit] += now - current[unit];
        parts[unit]++;
        if (open != null) {
            Jfr.WorkgroupEvent e = open[unit];
            open[unit] = null;
            e.commit();
        }
    }

    @Override
    public void completed(boolean failed) {
        long end = tracer.now();
        tracer.dispatchDone(this, end, failed);
        if (event != null) {
            event.agent = agentName;
            event.queue = queueId;
            event.packet = packetId;
            event.kernel = kernel;
            event.grid = gridX + "x" + gridY + "x" + gridZ;
            event.workgroup = workgroupX + "x" + workgroupY + "x" + workgroupZ;
            long groups = 0;
            for (long p : parts) {
                groups += p;
            }
            event.workgroups = groups;
            event.failed = failed;
            event.commit();
        }
    }
}
