package org.hsa4j.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The role and wake protocol of an agent's packet processor: which thread acts as processor, the
 * epoch that says something may be ready, and which idle units to wake.
 *
 * <h2>How it works</h2>
 * The role is one int taken by compare-and-set and given back by a volatile store; the holder's
 * thread is kept beside it so a queue's error callback may destroy its queue under the role.
 * {@link #notifyWork()} bumps the epoch and, with the role free, unparks one idle unit; a doorbell
 * ({@link #notifyDoorbell()}) costs one volatile read while a unit holds the role, because that unit
 * either sees the packet in its scan or gives the role up before the producer read it as held, and
 * then finds the packet before it parks (the header store, the role read, the role release and the
 * header load are all volatile, so one side sees the other). A unit about to park marks itself
 * parked and re-reads the epoch; a waker clears that mark by compare-and-set before it unparks, so
 * a notification is never lost and no unit is unparked twice for one.
 *
 * <h2>Whom to wake</h2>
 * Wakes go to the first parked units in unit order ({@link #wakeIdle}); helpers for unclaimed parts
 * ({@link #wakeHelpers}) never make the running units outnumber the machine's processors, read once,
 * because on a machine with as many cores as units each extra runnable unit takes the core that the
 * running one, or the host thread waiting for it, needs.
 */
final class ProcessorRole {
    private static final VarHandle ROLE;

    static {
        try {
            ROLE = MethodHandles.lookup().findVarHandle(ProcessorRole.class, "role", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The machine's processors, read once: helpers woken for computing work never outnumber them. */
    private final int cores = Runtime.getRuntime().availableProcessors();
    private final AtomicLong epoch = new AtomicLong();
    private ComputeUnit[] units = new ComputeUnit[0];
    @SuppressWarnings("unused")
    private volatile int role;
    /** The thread holding the role, so a queue's error callback may destroy its queue under the role. */
    private volatile Thread roleHolder;

    /** Names the agent's units, once, before their threads start. */
    void start(ComputeUnit[] made) {
        units = made;
    }

    /** The epoch (a volatile read): it changes whenever something may have become ready. */
    long epoch() {
        return epoch.get();
    }

    /** Something changed that a processor blocked on a queue waits for: bumps the epoch, wakes nobody. */
    void bumpEpoch() {
        epoch.incrementAndGet();
    }

    /** Takes the role for the calling thread (not a unit: nothing is counted); true when taken. */
    boolean tryAcquire() {
        if (role == 0 && ROLE.compareAndSet(this, 0, 1)) {
            roleHolder = Thread.currentThread();
            return true;
        }
        return false;
    }

    /** {@link #tryAcquire()} by {@code unit}, counting the hand-off or the failed compare-and-set. */
    boolean tryAcquire(ComputeUnit unit) {
        if (role != 0) {
            return false;
        }
        if (ROLE.compareAndSet(this, 0, 1)) {
            roleHolder = Thread.currentThread();
            unit.count(UnitCounters.ROLE_HANDOFFS);
            return true;
        }
        unit.count(UnitCounters.CAS_RETRIES);
        return false;
    }

    /** True while some thread holds the role (a volatile read). */
    boolean held() {
        return role != 0;
    }

    /** True when the calling thread holds the role. */
    boolean heldByCurrentThread() {
        return roleHolder == Thread.currentThread();
    }

    /** Gives the role back (a volatile store); only its holder calls this. */
    void release() {
        roleHolder = null;
        role = 0;
    }

    /** Something may be ready: a doorbell rang, a dependency changed, a queue changed state. */
    void notifyWork() {
        epoch.incrementAndGet();
        if (role == 0) {
            wakeIdle(1);
        }
    }

    /** A doorbell rang: one volatile read while the role is held, else {@link #notifyWork()}. */
    void notifyDoorbell() {
        if (role == 0) {
            notifyWork();
        }
    }

    /** Unparks up to {@code count} parked units, first ones first. */
    void wakeIdle(long count) {
        for (ComputeUnit u : units) {
            if (count <= 0) {
                return;
            }
            if (u.wake()) {
                count--;
            }
        }
    }

    /**
     * Wakes up to {@code helpers} idle units to help with unclaimed parts, never all of the units and
     * never more than leave every core one running unit: a unit beyond the cores adds no throughput
     * to work that computes, only wake-ups and hand-offs (work that blocks is the watchdog's to rescue).
     */
    void wakeHelpers(long helpers) {
        long room = cores - runningUnits();
        wakeIdle(Math.min(Math.min(units.length - 1, helpers), room));
    }

    /** Units claiming or running a part now (volatile reads of each unit's current work). */
    private int runningUnits() {
        int n = 0;
        for (ComputeUnit u : units) {
            if (u.current() != null) {
                n++;
            }
        }
        return n;
    }

    /** True when a unit other than {@code self} is claiming or running a part. */
    boolean anotherUnitRunning(ComputeUnit self) {
        for (ComputeUnit u : units) {
            if (u != self && u.current() != null) {
                return true;
            }
        }
        return false;
    }
}
