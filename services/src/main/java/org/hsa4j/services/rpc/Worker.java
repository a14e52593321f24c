package org.hsa4j.services.rpc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One incarnation of a server or handler thread as the watchdog sees it: the service call it runs
 * now. Its thread stores the call with a release store before the service and takes it back with
 * an atomic exchange after it; the watchdog moves a stuck thread aside by a compare-and-set from
 * that call to {@link #RETIRED}. The exchange and the compare-and-set are the one handoff: either
 * the watchdog retires the thread while it is still in the stuck call (and the thread finds
 * {@link #RETIRED} when the service returns, and ends), or the thread left the call first (and
 * the watchdog retires nothing). A retired thread's successor gets a fresh worker.
 */
final class Worker {
    private static final VarHandle RUNNING;
    /** The {@link #running} value of a worker the watchdog retired. */
    private static final Object RETIRED = new Object();

    static {
        try {
            RUNNING = MethodHandles.lookup().findVarHandle(Worker.class, "running", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through RUNNING
    private Object running;
    /** Set by the worker's own thread when it found itself retired: it ends at its next look. */
    private boolean retired;
    /** The watchdog's own: the call it last saw running here and since when (its thread only). */
    ServerCall seen;
    long seenSince;

    /** Marks {@code call}'s service as running on this worker (release store, by the worker's thread). */
    void enter(ServerCall call) {
        RUNNING.setRelease(this, call);
    }

    /** Marks the service done (atomic exchange, by the worker's thread); true when the watchdog retired the worker meanwhile. */
    boolean exit() {
        if (RUNNING.getAndSet(this, (Object) null) == RETIRED) {
            retired = true;
        }
        return retired;
    }

    /** True once the worker's thread found itself retired (read by that thread). */
    boolean retired() {
        return retired;
    }

    /** The call whose service runs here now, or null (acquire load, by the watchdog). */
    ServerCall running() {
        return RUNNING.getAcquire(this) instanceof ServerCall c ? c : null;
    }

    /** Retires the worker if its thread still runs {@code call}'s service (by the watchdog): true when it did. */
    boolean retire(ServerCall call) {
        return RUNNING.compareAndSet(this, (Object) call, RETIRED);
    }
}
