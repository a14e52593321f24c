package org.hsa4j.kernel;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The default barrier strategy ({@code HSA4J_BARRIERS=threads}): the work-items of a workgroup run
 * on virtual threads, one at a time, passing a baton; supported API only.
 *
 * <h2>How</h2>
 * The executor keeps one virtual thread per work-item index ("lane"), started the first time a
 * group that large runs and kept until {@link #close()}; lane {@code i} runs work-item {@code i} of
 * every group, inside {@link ComputeUnitThread#runAsWorkItemOf}, so memory accesses, fences and
 * abort points see the unit. A volatile {@link #turn} names the one lane that may run (or
 * {@link #UNIT} when the group is over): the unit binds the work-items, sets {@code turn = 0},
 * unparks lane 0 and parks. The holder runs its work-item to its next barrier or its end, then
 * {@link #advance} hands the baton to the next live lane and parks. When the last lane of a round
 * hands over, the round is a barrier phase: if some work-items ended while others wait, the
 * barrier was partial and the group fails (exactly as on continuations); then the next round
 * starts at the first live lane. The lane that ends the last work-item sets {@code turn = UNIT}
 * and unparks the unit, which rethrows the group's first failure. Group state (states, counts,
 * failure) is written only by the baton holder; the volatile {@code turn} orders each hand-off.
 *
 * <h2>Failures</h2>
 * A work-item that throws records the group's failure and sets {@link #abandoned}: work-items not
 * yet started are skipped, and each one suspended at a barrier throws there when it next gets the
 * baton, running its finally blocks and releasing its monitors.
 *
 * <p>A work-item that waits at a barrier holding a Java monitor that the next work-item enters
 * leaves the baton holder BLOCKED forever. The unit re-checks every {@link #RECHECK_NANOS}: a
 * holder seen BLOCKED with no hand-off for {@link #MONITOR_DEADLOCK_NANOS} is taken for this
 * deadlock (the JDK does not tell who owns a monitor a virtual thread waits for, so a monitor held
 * that long by a thread outside the group is taken for it too). {@link #rescue} then resumes each
 * suspended work-item in turn with the group abandoned, so each throws at its barrier and releases
 * its monitors; the blocked holder gets its monitor, throws at its next barrier, and the dispatch
 * fails with EXCEPTION naming the monitor.
 */
final class VirtualThreadBarriers extends BarrierStrategy {
    /** The value of {@link #turn} while no lane holds the baton. */
    private static final int UNIT = -1;
    private static final byte NEW = 0;
    private static final byte SUSPENDED = 1;
    private static final byte DONE = 2;
    /** How long the baton holder may stay BLOCKED on a monitor with no hand-off before the group is rescued. */
    static final long MONITOR_DEADLOCK_NANOS = 1_000_000_000L;
    /** How often the waiting unit looks for that deadlock. */
    private static final long RECHECK_NANOS = 50_000_000L;
    /** Longest a rescue waits for one suspended work-item to unwind. */
    private static final long RESCUE_WAIT_NANOS = 5_000_000_000L;
    /** Longest {@link #close()} waits for the lanes to end. */
    private static final long CLOSE_WAIT_NANOS = 2_000_000_000L;

    /** The lane that may run, or {@link #UNIT}. */
    private volatile int turn = UNIT;
    /** The lane a rescue resumes now, or {@link #UNIT}. */
    private volatile int rescueTurn = UNIT;
    /** True while the unit rescues; the unblocked holder waits for it to end before touching group state. */
    private volatile boolean rescuing;
    /** Set when the group failed: every barrier from now on throws EXCEPTION with this message. */
    private volatile String abandoned;
    /** Tells the lanes to end. */
    private volatile boolean closed;
    /** Set by {@link #close()}: no group runs any more. */
    private volatile boolean shutDown;

    // Written by the unit only.
    private Thread[] lanes = new Thread[0];
    private Thread unit;

    // Group state: written by the unit before it hands the baton out, then by the baton holder only.
    private WorkItem[] items;
    private Kernel kernel;
    private String kernelName;
    private int n;
    private byte[] states = new byte[0];
    private int finished;
    private int waiting;
    private Throwable failure;
    /** Hand-offs in this group; read racily by the waiting unit to see progress. */
    private long steps;

    @Override
    String name() {
        return THREADS;
    }

    static String monitorMessage(String kernelName) {
        return "kernel " + kernelName + ": a work-item reached a workgroup barrier while holding a Java monitor"
                + " that another work-item of its workgroup waits for; release every monitor before a barrier";
    }

    @Override
    void runGroup(WorkItem[] items, int n, Kernel kernel, String kernelName) {
        if (shutDown) {
            throw new HsaException(HsaStatus.EXCEPTION, "kernel " + kernelName + ": its compute unit is closed");
        }
        Thread me = Thread.currentThread();
        if (unit != me) {
            stopLanes();
            unit = me;
            closed = false;
        }
        startLanes(n);
        if (states.length < n) {
            states = new byte[n];
        } else {
            Arrays.fill(states, 0, n, NEW);
        }
        this.items = items;
        this.kernel = kernel;
        this.kernelName = kernelName;
        this.n = n;
        finished = 0;
        waiting = 0;
        failure = null;
        steps = 0;
        abandoned = null;
        turn = 0;
        LockSupport.unpark(lanes[0]);
        awaitGroup();
        Throwable f = failure;
        this.items = null;
        this.kernel = null;
        failure = null;
        if (f instanceof RuntimeException r) {
            throw r;
        }
        if (f instanceof Error e) {
            throw e;
        }
        if (f != null) {
            throw new HsaException(HsaStatus.EXCEPTION, "kernel " + kernelName + " threw " + f, f);
        }
    }

    /** The unit waits for the group's last hand-off, looking for a monitor deadlock between parks. */
    private void awaitGroup() {
        int lastHolder = UNIT;
        long lastSteps = -1;
        long blockedSince = 0;
        boolean rescued = false;
        boolean interrupted = false;
        while (turn != UNIT) {
            LockSupport.parkNanos(this, RECHECK_NANOS);
            if (Thread.interrupted()) {
                interrupted = true;
            }
            int holder = turn;
            if (holder == UNIT) {
                break;
            }
            long s = steps;
            if (!rescued && holder == lastHolder && s == lastSteps
                    && lanes[holder].getState() == Thread.State.BLOCKED) {
                long now = System.nanoTime();
                if (blockedSince == 0) {
                    blockedSince = now;
                } else if (now - blockedSince >= MONITOR_DEADLOCK_NANOS) {
                    rescued = rescue(holder, s);
                    blockedSince = 0;
                }
            } else {
                blockedSince = 0;
            }
            lastHolder = holder;
            lastSteps = s;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The unit unwinds every work-item suspended at a barrier while {@code holder} is blocked on a
     * monitor; false when the holder moved on meanwhile. It announces the rescue first and only then
     * looks again: a holder checks {@link #rescuing} before it touches group state, so one that got
     * past that check is seen running (or has handed off) and the rescue is called off.
     */
    private boolean rescue(int holder, long seenSteps) {
        rescuing = true;
        if (turn != holder || steps != seenSteps || lanes[holder].getState() != Thread.State.BLOCKED) {
            rescuing = false;
            return false;
        }
        String message = monitorMessage(kernelName);
        failure = new HsaException(HsaStatus.EXCEPTION, message);
        abandoned = message;
        try {
            for (int i = 0; i < n; i++) {
                if (i != holder && states[i] == SUSPENDED) {
                    rescueTurn = i;
                    LockSupport.unpark(lanes[i]);
                    long deadline = System.nanoTime() + RESCUE_WAIT_NANOS;
                    while (rescueTurn == i && System.nanoTime() - deadline < 0) {
                        LockSupport.parkNanos(this, 1_000_000);
                    }
                }
            }
        } finally {
            rescueTurn = UNIT;
            rescuing = false;
        }
        return true;
    }

    private void startLanes(int count) {
        if (lanes.length >= count) {
            return;
        }
        Thread[] grown = Arrays.copyOf(lanes, count);
        ComputeUnitThread unitThread = ComputeUnitThread.current();
        String prefix = unit.getName() + "-work-item-";
        for (int i = lanes.length; i < count; i++) {
            int lane = i;
            Runnable body = unitThread == null ? () -> laneLoop(lane)
                    : () -> ComputeUnitThread.runAsWorkItemOf(unitThread, () -> laneLoop(lane));
            grown[i] = Thread.ofVirtual().name(prefix + i).start(body);
        }
        lanes = grown;
    }

    /** Lane {@code me}: runs work-item {@code me} of each group it is handed. */
    private void laneLoop(int me) {
        while (awaitTurn(me)) {
            Throwable thrown = null;
            if (abandoned == null) {
                try {
                    ComputeUnitThread.checkAbort();
                    kernel.execute(items[me]);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
            finish(me, thrown);
        }
    }

    /** Parks lane {@code me} until it holds the baton (or a rescue resumes it); false once closed. */
    private boolean awaitTurn(int me) {
        while (turn != me && rescueTurn != me) {
            if (closed) {
                return false;
            }
            LockSupport.park(this);
        }
        return true;
    }

    /** Work-item {@code me} ended (having thrown {@code thrown}, or null). */
    private void finish(int me, Throwable thrown) {
        if (rescueTurn == me) {
            states[me] = DONE;
            finished++;
            rescueTurn = UNIT;
            LockSupport.unpark(unit);
            return;
        }
        if (rescuing) {
            awaitRescueEnd();
        }
        if (thrown != null) {
            if (failure == null) {
                failure = thrown;
            }
            if (abandoned == null) {
                abandoned = "kernel " + kernelName + ": its workgroup failed";
            }
        }
        states[me] = DONE;
        finished++;
        advance(me);
    }

    private void awaitRescueEnd() {
        long deadline = System.nanoTime() + RESCUE_WAIT_NANOS * Math.max(1, n);
        while (rescuing && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(this, 1_000_000);
        }
    }

    @Override
    void barrier(int me) {
        ComputeUnitThread.checkAbort();
        if (rescuing && rescueTurn != me) {
            awaitRescueEnd();
        }
        checkAbandoned();
        states[me] = SUSPENDED;
        waiting++;
        advance(me);
        if (!awaitTurn(me)) {
            throw new HsaException(HsaStatus.EXCEPTION, "kernel " + kernelName + ": its compute unit closed");
        }
        checkAbandoned();
    }

    /** The baton holder {@code me} hands the baton to the next live lane, ending a round or the group as it goes. */
    private void advance(int me) {
        steps++;
        int next = nextLive(me + 1);
        if (next < 0) {
            if (finished == n) {
                turn = UNIT;
                LockSupport.unpark(unit);
                return;
            }
            if (abandoned == null) {
                if (waiting > 0 && finished > 0) {
                    failure = partial(kernelName, waiting, n, finished);
                    abandoned = "kernel " + kernelName + ": its workgroup failed";
                } else {
                    try {
                        ComputeUnitThread.checkAbort();
                    } catch (HsaException e) {
                        failure = e;
                        abandoned = "kernel " + kernelName + ": its workgroup was aborted";
                    }
                }
            }
            waiting = 0;
            next = nextLive(0);
        }
        if (next != me) {
            turn = next;
            LockSupport.unpark(lanes[next]);
        }
    }

    private int nextLive(int from) {
        byte[] s = states;
        for (int k = from; k < n; k++) {
            if (s[k] != DONE) {
                return k;
            }
        }
        return -1;
    }

    private void checkAbandoned() {
        String a = abandoned;
        if (a != null) {
            throw new HsaException(HsaStatus.EXCEPTION, a);
        }
    }

    /** Ends the lanes (each is parked between groups); waits for them, bounded. */
    private void stopLanes() {
        closed = true;
        for (Thread t : lanes) {
            LockSupport.unpark(t);
        }
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        boolean interrupted = false;
        for (Thread t : lanes) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                t.join(java.time.Duration.ofNanos(left));
            } catch (InterruptedException e) {
                interrupted = true;
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        lanes = new Thread[0];
    }

    @Override
    public void close() {
        shutDown = true;
        stopLanes();
    }
}
