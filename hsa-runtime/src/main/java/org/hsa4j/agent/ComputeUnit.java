package org.hsa4j.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.kernel.WorkgroupExecutor;

/**
 * One compute unit: a worker thread with its own group and private segment buffers.
 *
 * <p>Every unit runs the same loop: run a claimable workgroup if there is one; else try to take
 * the agent's processor role and act as the packet processor for a bounded spin; else spin briefly
 * and park. A parked unit is woken by {@link PacketProcessor#notifyWork()} (doorbell, dependency
 * signal, queue state change) or to help with a many-workgroup dispatch, and it also re-checks on
 * a timer that backs off to {@link #MAX_IDLE_PARK_NANOS}, so a doorbell written behind the API
 * is never missed for good while an idle agent costs next to nothing. Once a unit has parked
 * without finding work it is in back-off: it scans the queues once per wake instead of spinning
 * for {@link PacketProcessor#PROCESSOR_SPIN_NANOS}, until it finds work again.
 */
final class ComputeUnit implements Runnable {
    /** First park of an idle unit. */
    static final long MIN_IDLE_PARK_NANOS = 1_000_000;
    /** Longest park of an idle unit between two looks at the queues. */
    static final long MAX_IDLE_PARK_NANOS = 50_000_000;
    /** How long a unit without the processor role spins for work before parking. */
    static final long UNIT_SPIN_NANOS = 2_000;

    private static final VarHandle PARKED;

    static {
        try {
            PARKED = MethodHandles.lookup().findVarHandle(ComputeUnit.class, "parked", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final int id;
    final WorkgroupExecutor executor;
    private final PacketProcessor processor;
    Thread thread;
    /** The work this unit is claiming or running, so a shutdown can fail its completion signal. */
    volatile Work current;
    @SuppressWarnings("unused")
    private volatile boolean parked;

    ComputeUnit(int id, PacketProcessor processor, int groupSegmentMax) {
        this.id = id;
        this.processor = processor;
        this.executor = new WorkgroupExecutor(groupSegmentMax);
    }

    /** Unparks this unit if it is parked; true when it was. */
    boolean wake() {
        if (parked && PARKED.compareAndSet(this, true, false)) {
            LockSupport.unpark(thread);
            return true;
        }
        return false;
    }

    @Override
    public void run() {
        long idlePark = MIN_IDLE_PARK_NANOS;
        while (!processor.isShutdown()) {
            try {
                idlePark = round(idlePark);
            } catch (RuntimeException e) {
                // packets and kernels fail through their queues; this is a runtime bug, and the unit survives it
                System.getLogger(ComputeUnit.class.getName()).log(System.Logger.Level.ERROR,
                        "compute unit " + id + " caught an unexpected exception", e);
            }
        }
        executor.close();
    }

    /** One round of the loop; returns the next idle park time. */
    private long round(long idlePark) {
        long epoch = processor.epoch();
        if (processor.runWork(this)) {
            return MIN_IDLE_PARK_NANOS;
        }
        long spin = idlePark > MIN_IDLE_PARK_NANOS ? 0 : PacketProcessor.PROCESSOR_SPIN_NANOS;
        if (processor.tryAcquireRole() && processor.actAsProcessor(spin)) {
            return MIN_IDLE_PARK_NANOS;
        }
        if (spinForWork(epoch)) {
            return idlePark;
        }
        parked = true;
        if (processor.epoch() != epoch || processor.hasClaimableWork() || processor.hasPublishedWork()
                || processor.isShutdown()) {
            parked = false;
            return idlePark;
        }
        LockSupport.parkNanos(processor, idlePark);
        parked = false;
        return Math.min(idlePark * 2, MAX_IDLE_PARK_NANOS);
    }

    private boolean spinForWork(long epoch) {
        long end = System.nanoTime() + UNIT_SPIN_NANOS;
        do {
            if (processor.epoch() != epoch || processor.hasClaimableWork() || processor.hasPublishedWork()) {
                return true;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() - end < 0);
        return false;
    }
}
