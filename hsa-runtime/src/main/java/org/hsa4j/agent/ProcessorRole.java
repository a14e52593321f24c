package org.hsa4j.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;


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
 *
 * <h2>Layout</h2>
 * The role word, its holder and the epoch are the lines the host (at each doorbell) and the units
 * share; {@link ProcessorRolePad} and this class's first fields pad them with 64 bytes on each side, so no other object's field
 * (after a GC moves things around) ends up on their line.
 */
final class ProcessorRole extends ProcessorRoleWords {
    /** 64 bytes behind the shared words (a subclass's longs are laid out before its other fields). */
    long p11, p12, p13, p14, p15, p16, p17, p18;
    /** The machine's processors, read once: helpers woken for computing work never outnumber them. */
    private final int cores = Runtime.getRuntime().availableProcessors();
    private ComputeUnit[] units = new ComputeUnit[0];

    /** Names the agent's units, once, before their threads start. */
    void start(ComputeUnit[] made) {
        units = made;
    }

    /** The epoch (a volatile read): it changes whenever something may have become ready. */
    long epoch() {
        return epoch;
    }

    /** Something changed that a processor blocked on a queue waits for: bumps the epoch, wakes nobody. */
    void bumpEpoch() {
        EPOCH.getAndAdd(this, 1L);
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
        EPOCH.getAndAdd(this, 1L);
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

/** 64 bytes ahead of {@link ProcessorRoleWords}' fields. */
abstract class ProcessorRolePad {
    long p01, p02, p03, p04, p05, p06, p07, p08;
}

/** The shared words of {@link ProcessorRole}, padded on both sides. */
abstract class ProcessorRoleWords extends ProcessorRolePad {
    static final VarHandle ROLE;
    static final VarHandle EPOCH;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ROLE = lookup.findVarHandle(ProcessorRoleWords.class, "role", int.class);
            EPOCH = lookup.findVarHandle(ProcessorRoleWords.class, "epoch", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** 1 while some thread holds the processor role. */
    volatile int role;
    /** The thread holding the role, so a queue's error callback may destroy its queue under the role. */
    volatile Thread roleHolder;
    /** Bumped whenever something may have become ready. */
    volatile long epoch;
}
