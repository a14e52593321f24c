package org.hsa4j.trace;

/** A service call being served that somebody listens to, on the serving thread. */
final class LiveCall extends CallTrace {
    final Tracer tracer;
    final long begin;
    final Thread thread = Thread.currentThread();
    private final Jfr.ServiceCallEvent event;

    LiveCall(Tracer tracer) {
        this.tracer = tracer;
        if (Jfr.enabled(Jfr.Kind.SERVICE_CALL)) {
            event = new Jfr.ServiceCallEvent();
            event.begin();
        } else {
            event = null;
        }
        this.begin = tracer.now();
    }

    @Override
    public void ended(String service, int opcode, String status) {
        String name = String.format("%04x:%04x", opcode >>> 16, opcode & 0xFFFF);
        tracer.callDone(this, tracer.now(), service, name, status);
        if (event != null) {
            event.service = service;
            event.opcode = name;
            event.status = status;
            event.commit();
        }
    }
}
