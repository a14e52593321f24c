package org.hsa4j.kernel;

import java.util.concurrent.locks.LockSupport;

import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The opt-in barrier strategy ({@code HSA4J_BARRIERS=continuations}): each work-item is a JDK
 * continuation ({@link Continuations}, needs {@code --add-exports}); the unit's own thread resumes
 * them in turn, each runs to its next barrier (a yield) or its end, and a round in which all
 * yielded is one barrier phase. A barrier only part of the group reaches is detected exactly: some
 * work-items finished while others wait.
 *
 * <p>A work-item that reaches a barrier while holding a Java monitor takes the monitor with it, so
 * another work-item entering the same monitor blocks the unit on itself. The agent's watchdog
 * finds such a unit blocked in a barrier round and calls {@link #rescueMonitorDeadlock()}.
 */
final class ContinuationBarriers extends BarrierStrategy {
    private static final byte SUSPENDED = 1;
    private static final byte DONE = 2;
    /** Longest a unit waits for a rescuer to unwind the rest of its workgroup. */
    private static final long RESCUE_WAIT_NANOS = 5_000_000_000L;

    private String kernelName;
    /** The continuations of the barrier round running now, or null; published for a rescuer. */
    private volatile Object[] round;
    /** Each work-item's state in that round (NEW, SUSPENDED, DONE); written by the unit before {@link #running}. */
    private byte[] roundStates;
    /** The work-item the unit runs now, or -1. */
    private volatile int running = -1;
    /** Set by a rescuer: every barrier from now on throws EXCEPTION with this message. */
    private volatile String abandoned;
    /** Set by a rescuer once it has unwound the suspended work-items. */
    private volatile boolean rescued;

    @Override
    String name() {
        return CONTINUATIONS;
    }

    @Override
    String unavailableReason() {
        return Continuations.UNAVAILABLE_REASON;
    }

    @Override
    void runGroup(WorkItem[] items, int n, Kernel kernel, String kernelName) {
        if (!Continuations.AVAILABLE) {
            throw new HsaException(HsaStatus.EXCEPTION, "kernel " + kernelName + ": "
                    + Continuations.UNAVAILABLE_REASON + " (or run with " + VARIABLE + "=" + THREADS + ")");
        }
        this.kernelName = kernelName;
        Object[] continuations = new Object[n];
        for (int i = 0; i < n; i++) {
            WorkItem w = items[i];
            continuations[i] = Continuations.create(() -> kernel.execute(w));
        }
        byte[] states = new byte[n];
        int finished = 0;
        roundStates = states;
        abandoned = null;
        rescued = false;
        round = continuations;
        boolean completed = false;
        try {
            while (finished < n) {
                ComputeUnitThread.checkAbort();
                int waiting = 0;
                for (int k = 0; k < n; k++) {
                    if (states[k] != DONE) {
                        running = k;
                        checkAbandoned();
                        Continuations.run(continuations[k]);
                        if (Continuations.isDone(continuations[k])) {
                            states[k] = DONE;
                            finished++;
                        } else {
                            states[k] = SUSPENDED;
                            waiting++;
                        }
                    }
                }
                if (waiting > 0 && finished > 0) {
                    throw partial(kernelName, waiting, n, finished);
                }
            }
            completed = true;
        } finally {
            round = null;
            running = -1;
            if (abandoned != null) {
                awaitRescue();
            } else if (!completed) {
                unwindSuspended(continuations, states);
            }
        }
    }

    /**
     * A failed workgroup unwinds its work-items suspended at a barrier: each resumes, throws at the
     * barrier and runs its finally blocks, so the monitors it holds are released rather than kept
     * forever by a continuation nobody resumes.
     */
    private void unwindSuspended(Object[] continuations, byte[] states) {
        abandoned = "kernel " + kernelName + ": its workgroup failed";
        for (int i = 0; i < continuations.length; i++) {
            if (states[i] == SUSPENDED && !Continuations.isDone(continuations[i])) {
                try {
                    Continuations.run(continuations[i]);
                } catch (Throwable expected) {
                    // the work-item threw at its barrier, releasing what it held
                }
            }
        }
        abandoned = null;
    }

    @Override
    boolean inBarrierRound() {
        return round != null;
    }

    /**
     * Called from another thread while the unit is blocked: marks the round abandoned and resumes
     * every suspended work-item here, where each throws at its barrier and so releases its
     * monitors; the blocked work-item then gets its monitor and throws at its own next barrier, and
     * the dispatch fails with EXCEPTION.
     */
    @Override
    boolean rescueMonitorDeadlock() {
        Object[] r = round;
        int k = running;
        if (r == null || k < 0) {
            return false;
        }
        abandoned = VirtualThreadBarriers.monitorMessage(kernelName);
        byte[] states = roundStates;
        for (int i = 0; i < r.length; i++) {
            if (i != k && states[i] == SUSPENDED) {
                try {
                    Continuations.run(r[i]);
                } catch (Throwable expected) {
                    // the work-item threw at its barrier, releasing what it held
                }
            }
        }
        rescued = true;
        return true;
    }

    private void checkAbandoned() {
        String a = abandoned;
        if (a != null) {
            throw new HsaException(HsaStatus.EXCEPTION, a);
        }
    }

    /** The unit waits (bounded) until the rescuer has unwound the suspended work-items it resumes. */
    private void awaitRescue() {
        long deadline = System.nanoTime() + RESCUE_WAIT_NANOS;
        while (!rescued && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(this, 100_000);
        }
    }

    @Override
    void barrier(int lane) {
        ComputeUnitThread.checkAbort();
        checkAbandoned();
        if (!Continuations.yieldToWorkgroup()) {
            throw new HsaException(HsaStatus.EXCEPTION, "kernel " + kernelName
                    + ": a work-item could not yield at a barrier (pinned by a native frame)");
        }
        checkAbandoned();
    }
}
