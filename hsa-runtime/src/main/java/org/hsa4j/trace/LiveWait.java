package org.hsa4j.trace;

/** A blocking signal wait somebody listens to, on the waiting thread. */
final class LiveWait extends WaitTrace {
    final Tracer tracer;
    final long signal;
    final long begin;
    final Thread thread = Thread.currentThread();
    boolean parked;
    private final Jfr.SignalWaitEvent event;

    LiveWait(Tracer tracer, long signal) {
        this.tracer = tracer;
        this.signal = signal;
        if (Jfr.enabled(Jfr.Kind.SIGNAL_WAIT)) {
            event = new Jfr.SignalWaitEvent();
            event.begin();
        } else {
            event = null;
        }
        this.begin = tracer.now();
    }

    @Override
    public void ended(boolean parked) {
        this.parked = parked;
        tracer.waitDone(this, tracer.now());
        if (event != null) {
            event.signal = signal;
            event.parked = parked;
            event.commit();
        }
    }
}
