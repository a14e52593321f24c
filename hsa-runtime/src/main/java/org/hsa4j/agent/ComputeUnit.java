package org.hsa4j.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.idle.Idler;
import org.hsa4j.kernel.WorkgroupExecutor;
import org.hsa4j.kernel.spi.WorkgroupExecutors;
import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.memory.SvmAccess;
import org.hsa4j.status.HsaException;

/**
 * One compute unit: a worker thread with its own group and private segment buffers.
 *
 * <p>Every unit runs the same loop: run a claimable workgroup if there is one; else try to take
 * the agent's processor role and act as the packet processor for a bounded spin (one scan when
 * another unit is running a part); else park. A unit that took the role as it completed a packet
 * scans first, before it claims anything. A parked unit is woken by
 * {@link ProcessorRole#notifyWork()} (doorbell, dependency signal, queue state change), by a
 * dispatch with a workgroup per unit, or by a {@link HelperPacer} asking for help with a long
 * dispatch. Every unit parks untimed ({@link PacketProcessor#unitIdle}): the agent's one timer is
 * its watchdog's, which also finds a doorbell written behind the API (and then notifies as a
 * doorbell would), so an idle agent has one timer whatever its unit count, and a unit parking
 * between two dispatches arms none. Once a unit has parked without finding work it is in back-off:
 * it scans the queues once per wake instead of spinning for {@link PacketProcessor#PROCESSOR_SPIN_NANOS},
 * until it finds work again.
 *
 * <h2>Why an untimed park is live</h2>
 * A unit parks only after it set {@code parked} and then (all volatile) re-read the epoch, the ring
 * and, with the role free, the queues; every producer of work changes one of those before it wakes
 * ({@link ProcessorRole#notifyWork} bumps the epoch and then, seeing the role free, wakes a parked
 * unit; a launch appends to the ring and then wakes units or leaves the work to the launcher, which is
 * running). So either the parking unit sees the change and does not park, or the waker sees it
 * parked, clears the flag by compare-and-set and unparks it, and the permit makes a park that
 * follows the unpark return at once. What a parked helper never gets is a wake for work that a
 * running unit or the role holder will run anyway: that costs parallelism, never progress, and the
 * watchdog (awake while work is in flight) wakes a unit when the ring's head stops moving. The
 * watchdog's looks cover the one producer that wakes nobody, a packet published without a doorbell.
 *
 * <h2>A look nobody asked for</h2>
 * A unit whose park ended without a waker (a spurious return of {@code LockSupport.park}; units
 * had timers once, and these looks were then 20 a second) looks for doorbells and orphaned work, but it
 * does not join launched work that a running unit or the role holder will run: if that work paid
 * for another unit, the running unit's {@link HelperPacer} (or the launch, or the watchdog) would
 * have woken one. Joining it anyway cost a stream of tiny dispatches a third runnable thread on
 * two cores and compare-and-set races on the ring's head, once per look per unit, so the
 * cost grew with the units configured (16 units: ~35 such joins a second, each resetting the
 * unit's back-off). During such a look the unit stays marked parked, so a waker may still claim
 * it ({@link #wake()}), and then it joins as any woken unit does.
 */
final class ComputeUnit implements Runnable {
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
    /** This unit's thread, made by {@link #bindThread}. */
    private ComputeUnitThread thread;
    /** The work this unit is claiming or running, so a shutdown can fail its completion signal. */
    private volatile Work current;
    /** True while the part this unit runs was claimed with launched works queued behind it (own thread only). */
    private boolean worksQueuedBehind;
    @SuppressWarnings("unused")
    private volatile boolean parked;
    /** The agent's per-unit counters (this unit writes only its own run). */
    private final UnitCounters counters;
    /** The processor's role and wake protocol (null for units tests drive without a processor). */
    private final ProcessorRole role;
    /** Where the works this unit finishes are completed (null for units tests drive without a processor). */
    private final WorkCompletion completion;
    /** When to wake idle units to help with the work this unit runs. */
    private final HelperPacer pacer;
    /** This unit's progress through its idle strategy since it last found work, or null while it finds work. */
    private Idler idler;
    /** True when this unit took the processor role as it completed a packet and must scan next. */
    private boolean roleTaken;
    /** True while this unit looks around after a park nobody ended; {@code parked} stays set meanwhile. */
    private boolean idleLook;

    ComputeUnit(int id, PacketProcessor processor, int groupSegmentMax) {
        this(id, processor, groupSegmentMax,
                new HelperPacer(PacketProcessor.HELPER_WAKE_NANOS, System::nanoTime, processor.role()::wakeHelpers));
    }

    /** A unit with its own {@code pacer} (tests drive units without a processor). */
    ComputeUnit(int id, PacketProcessor processor, int groupSegmentMax, HelperPacer pacer) {
        this.id = id;
        this.processor = processor;
        this.executor = WorkgroupExecutors.create(groupSegmentMax, processor != null && processor.fidelity());
        this.pacer = pacer;
        this.counters = processor != null ? processor.unitCounters : new UnitCounters(id + 1);
        this.completion = processor != null ? processor.completion : null;
        this.role = processor != null ? processor.role() : null;
    }

    /**
     * Completes {@code work}, whose last part this unit ran. Before it signals a success with no
     * launched work left to claim (none was queued behind it when it was claimed, and the ring shows
     * none now) it takes the processor role, so the producer woken by that signal
     * finds the role held and rings its next doorbell without unparking another unit; this unit
     * scans next. (A failing packet's error callback is user code that may wait for the agent, so
     * it runs without the role.)
     */
    void complete(Work work, HsaException failure, int releaseScope) {
        if (failure == null && !roleTaken && !worksQueuedBehind) {
            roleTaken = processor.takeRoleWhenIdle(this);
        }
        completion.complete(work, failure, work.completion, releaseScope);
    }

    /**
     * Runs a claimed {@code part} of {@code work}: {@code last} when no part of {@code work} is left
     * to claim, {@code worksBehind} the launched works queued behind it. Only a part with nothing
     * behind it, in its work or in the ring, ends the pacer's run, so a stream of one-workgroup
     * dispatches is paced as one long work: helpers wake only once it looks long enough.
     */
    void runPart(Work work, long part, boolean last, long worksBehind) {
        worksQueuedBehind = worksBehind > 0;
        if (last && worksBehind <= 0) {
            pacer.endRun();
            work.run(part, this);
        } else {
            pacer.beforeSharedPart();
            work.run(part, this);
            pacer.afterSharedPart(work, worksBehind);
        }
    }

    /** Makes this unit's (unstarted) thread; called once, before the agent starts its units. */
    void bindThread(String name, int agentIndex, SvmAccess access) {
        thread = new ComputeUnitThread(this, name, agentIndex, id, access);
    }

    /** This unit's thread. */
    ComputeUnitThread thread() {
        return thread;
    }

    /** The work this unit is claiming or running, or null (a volatile read). */
    Work current() {
        return current;
    }

    /**
     * Names {@code work} (or null) as what this unit claims and runs, for shutdown, aborts, the
     * watchdog and the wake protocol ({@link ProcessorRole#anotherUnitRunning}): a volatile store,
     * because a unit about to park and a unit deciding whom to wake read each other's: without the
     * store's fence a unit could still look running after it decided to park (a release store was
     * tried and withdrawn, PERFORMANCE.md 2026-11-26).
     */
    void claiming(Work work) {
        current = work;
    }

    /** Counts a repeated claim or failed compare-and-set of this unit (its own thread only). */
    void countCasRetry() {
        count(UnitCounters.CAS_RETRIES);
    }

    /** Counts one event of {@code counter} on this unit's own line (its own thread only). */
    void count(int counter) {
        counters.increment(id, counter);
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
        while (!processor.isShutdown()) {
            try {
                round();
            } catch (RuntimeException e) {
                // packets and kernels fail through their queues; this is a runtime bug, and the unit survives it
                System.getLogger(ComputeUnit.class.getName()).log(System.Logger.Level.ERROR,
                        "compute unit " + id + " caught an unexpected exception", e);
            }
        }
        if (roleTaken) {
            role.release();
        }
        executor.close();
    }

    /** One round of the loop: run work, or act as processor, or idle one step of {@link PacketProcessor#unitIdle}. */
    private void round() {
        long epoch = role.epoch();
        boolean holding = roleTaken;
        roleTaken = false;
        if (idleLook && parked && !processor.hasPublishedWork() && !processor.hasClaimableWork()
                && !processor.isShutdown()) {
            park(); // a look with nothing to find: no role, no scan
            return;
        }
        if (!holding) {
            if (mayJoin() && processor.runWork(this)) {
                idler = null;
                return;
            }
            pacer.endRun();
            holding = role.tryAcquire(this);
        }
        boolean backingOff = idler != null && idler.parks() > 0;
        long spin = backingOff || role.anotherUnitRunning(this) ? 0 : PacketProcessor.PROCESSOR_SPIN_NANOS;
        if (holding && processor.actAsProcessor(this, spin, othersRunWork())) {
            idler = null;
            endLook();
            return;
        }
        if (idleLook) {
            if (!parked) {
                endLook(); // a waker claimed this unit during its look
                return;
            }
        } else {
            parked = true;
        }
        // published work keeps this unit up only while nobody holds the role: a holder looks for it
        // itself after it releases the role (before it parks), so the unit that lost the role race
        // parks instead of looping hot beside a holder that may be waiting for a core
        if (role.epoch() != epoch || (!othersRunWork() && processor.hasClaimableWork())
                || (!role.held() && processor.hasPublishedWork()) || processor.isShutdown()) {
            if (!idleLook) {
                parked = false;
            } // a look goes on, still marked parked: the next round's mayJoin decides whether it joins
            return;
        }
        park();
    }

    /** Parks one step of this unit's idle strategy; {@code parked} is set. */
    private void park() {
        if (idler == null) {
            idler = processor.unitIdle.idler().blocker(processor);
        }
        count(UnitCounters.PARKS); // before the park: an untimed one may last as long as the agent is idle
        idler.idle();
        if (parked) {
            idleLook = true; // no waker (a spurious return, or a raw unpark: shutdown) ended the park: stay marked parked while looking around
        } else {
            count(UnitCounters.WAKE_UPS); // a waker's compare-and-set cleared the flag before it unparked
            idleLook = false;
        }
    }

    /**
     * True when this unit may claim launched work now: always, unless it is looking around after a
     * park with nobody having woken it while another unit runs parts or holds the role.
     */
    private boolean mayJoin() {
        if (!idleLook) {
            return true;
        }
        if (parked && othersRunWork()) {
            return false;
        }
        endLook();
        return true;
    }

    /** True when this unit is in a look nobody asked for and another unit runs parts or holds the role (which runs what it launches). */
    private boolean othersRunWork() {
        return idleLook && parked && (role.held() || role.anotherUnitRunning(this));
    }

    /** Ends a look nobody asked for (if any): the unit is up, and no longer marked parked; counts a waker that claimed it meanwhile. */
    private void endLook() {
        if (idleLook) {
            idleLook = false;
            if (!parked) {
                count(UnitCounters.WAKE_UPS);
            }
        }
        parked = false;
    }
}
