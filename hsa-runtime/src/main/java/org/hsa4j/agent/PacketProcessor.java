package org.hsa4j.agent;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;
import org.hsa4j.kernel.Dispatch;
import org.hsa4j.kernel.WorkgroupExecutor;
import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.memory.MemoryManager;
import org.hsa4j.memory.Svm;
import org.hsa4j.memory.SvmAccess;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueState;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalManager;
import org.hsa4j.signal.SignalWaiter;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.hsa4j.trace.Tracer;

/**
 * The packet processor of one agent. It is not a thread: it is a role that one compute unit at a
 * time holds (leader/follower), so the unit that finds a one-workgroup dispatch can run it itself
 * with no hand-off, which is what makes a dispatch round trip cost about one cache-line exchange
 * each way.
 *
 * <h2>Processing</h2>
 * The role holder scans the agent's queues. In each it acquire-loads the 32-bit header word at the
 * read index; INVALID means nothing is published. Packets launch in order: a set barrier bit waits
 * until the queue has nothing in flight; a barrier-AND/OR packet waits (without blocking the other
 * queues) until its dependencies are observed at 0, with the agent registered as a waiter on them.
 * A {@link PacketDecoder} reads and checks each packet (no threads, no signals: it is tested alone).
 * Launching copies what the packet says into a {@link Dispatch}, sets the slot back to INVALID and
 * advances the read index with a screlease store, so the slot is free for the producer at once and
 * packets may complete out of order. The launched work goes into the agent's {@link LaunchRing},
 * where any compute unit claims its workgroups; a full ring leaves packets in their queue. How it
 * goes there is a {@link LaunchOrder} chosen once: at once in packet order, or in fidelity mode
 * later dispatches without the barrier bit first.
 *
 * <h2>Between scans: watching the doorbells, not the slots</h2>
 * A role holder that found nothing waits for its next scan (spin, then yield, within its busy
 * budget) by reading each queue's doorbell value and the epoch, and scans again only when one of
 * them changed. It does not re-read the slot at the read index: a producer writing a batch writes
 * that slot's line field by field, and a reader polling it pulls the line back at each look, so
 * the producer's writes miss over and over. On a VM whose two vCPUs sat on cores of different cache
 * complexes (a cross-core round trip of ~420 ns instead of ~100 ns) that polling tripled the host's
 * time to write 256 packets and cut a stream of empty dispatches from ~10 to ~6.5 M/s; watching the
 * doorbell line, written once per batch, keeps it at ~10 M/s in both placements, for one more line
 * transfer (~40 ns) on a single packet's round trip. Nothing is missed: a doorbell value read
 * before the scan (then an acquire fence) shows the scan every packet it announces; a doorbell
 * written behind the API is a change of the value read; notifyWork, a blocked queue's completion
 * and a queue's state change bump the epoch; a full launch ring is watched for space; and a packet
 * published with no doorbell at all is found at the latest when the busy budget ends, by the first
 * scan of the next round, which every role holder makes before it can park (and
 * {@link #hasPublishedWork()} before any park).
 *
 * <h2>Completion</h2>
 * Completion flows one way, unit to work to {@link WorkCompletion}, never back into the processor.
 * The unit that finishes the last workgroup applies the release fence of the packet's scope,
 * records the end timestamp, and decrements the completion signal with screlease order (which
 * wakes its waiters); only then does it drop the queue's in-flight count, so a barrier-bit packet
 * behind starts after all of that. A bad packet or a failing kernel raises the queue's error
 * (callback once; a bad packet is consumed first, so the callback may even destroy the queue),
 * and fails the packet's completion signal, so no wait on it hangs; later packets of that queue
 * are drained the same way. Other queues and agents are untouched.
 *
 * <h2>Waking</h2>
 * The role, the epoch and the wakes are {@link ProcessorRole}'s. {@link #notifyWork()} bumps the
 * epoch and, if no unit holds the role, unparks one idle unit.
 * Completing work bumps the epoch too (without unparking). A unit about to signal a packet's
 * success with no launched work left takes the role first, so the producer it wakes finds the
 * role held and submits its next packet without an unpark; the unit scans next. A unit that is
 * about to park first marks itself parked and re-reads the epoch, and a role holder that gives up
 * re-reads the epoch it saw before its scans; all sides use volatile accesses, so a notification
 * is never lost between a last scan and a park.
 *
 * <h2>How many units run</h2>
 * On a machine with as many cores as units, the host thread waiting for a dispatch is one more
 * runnable thread, and every woken unit costs an unpark and a core. So one unit runs unless more
 * pay: only the role holder spins (and only while no other unit is running a part), other units
 * park as soon as they find nothing to claim; a dispatch with 2 to N workgroups on N units wakes a
 * unit per group at launch (its groups may wait on each other); a larger one wakes helpers only
 * when its running unit's {@link HelperPacer} estimates the unclaimed groups at
 * {@link #HELPER_WAKE_NANOS} or more. Launched works queued behind each other are paced the same
 * way, as one long work: a stream of one-workgroup dispatches stays on the unit that launched it
 * (waking a unit per launch batch cost more than the batch on 2 cores), and a part that blocks with
 * works queued behind it is rescued by the watchdog, which wakes a unit when the ring's head has
 * not moved for a whole period while work waits there.
 *
 * <h2>Aborts and shutdown</h2>
 * A Java thread cannot be killed, so running work is aborted cooperatively ({@link Work#abort}):
 * the kernel's next SVM access, signal operation, barrier or work-item start throws the cause and
 * unwinds it, and the work completes as a failure (completion signal failed, queue error callback
 * called). Inactivating or destroying a queue aborts its work and waits, bounded, for it to unwind;
 * an optional watchdog aborts work that runs longer than the kernel time limit. At shutdown queued,
 * launched and running work is aborted and has its completion signal failed first, then the units
 * (and the watchdog) are joined within the grace period, so waiters learn of the shutdown while
 * memory is still there. A kernel looping without reaching any abort point cannot be stopped: its
 * unit is abandoned (a daemon thread) once the grace period is over, and it faults at its next
 * access once the memory is released.
 */
final class PacketProcessor {
    /** How long the role holder keeps scanning idle queues before it gives up the role. */
    static final long PROCESSOR_SPIN_NANOS = 50_000;
    /** Most packets launched from one queue before the scan moves on (fairness). */
    static final int BATCH = 64;
    /**
     * While a queue had more than {@link #BATCH} packets ready, the role holder keeps launching until
     * this many works wait in the ring, so a streamed batch costs one role hand-off and one wake-up
     * per this many packets instead of per {@link #BATCH}.
     */
    static final int LAUNCH_AHEAD = 4 * BATCH;
    /**
     * Estimated time left in a dispatch's unclaimed workgroups from which its running unit wakes
     * idle units to help ({@link HelperPacer}): about what a wake-up costs a 2-core machine in
     * unpark, scheduling and a third runnable thread, with a margin.
     */
    static final long HELPER_WAKE_NANOS = 50_000;
    /** Fidelity mode: how long a launched dispatch with an empty slot behind it waits for a successor to overlap with. */
    static final long OVERLAP_WINDOW_NANOS = 200_000;
    /** How long a unit must stay blocked on an unowned monitor in a barrier round before the watchdog rescues it. */
    static final long MONITOR_DEADLOCK_NANOS = 200_000_000;
    /** How long nothing must be launched or in flight before the watchdog sleeps until the next launch. */
    static final long WATCHDOG_QUIET_NANOS = 1_000_000_000;
    /** The watchdog's period while work is in flight (the kernel time limit may shorten it). */
    static final long WATCHDOG_PERIOD_NANOS = 50_000_000;
    /** First pause of a quiet watchdog between two looks for doorbells written behind the API. */
    static final long LOOK_MIN_NANOS = 1_000_000;
    /** Longest pause of a quiet watchdog between two such looks (it doubles from {@link #LOOK_MIN_NANOS}). */
    static final long LOOK_MAX_NANOS = 1_000_000_000;

    private static final VarHandle WATCHDOG_ASLEEP;

    static {
        try {
            WATCHDOG_ASLEEP = MethodHandles.lookup()
                    .findVarHandle(PacketProcessor.class, "watchdogAsleep", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }


    private final Agent agent;
    /** Reads and checks each packet (role holder only). */
    private final PacketDecoder decoder;
    private final SignalManager signals;
    private final Svm svm;
    /** The runtime's memory access strategy: packet fences and workgroup ends act on it (fidelity mode: on the caches). */
    private final SvmAccess access;
    private final LongSupplier clock;
    /** The runtime's tracer, chosen once: launched work reports to it, and so do barrier packets. */
    final Tracer tracer;
    /** How the role holder idles between scans of idle queues: the runtime's strategy with a {@link #PROCESSOR_SPIN_NANOS} budget. */
    private final IdleStrategy roleWait;
    /**
     * How an idle unit parks: at once and untimed ({@link IdleStrategy#UNTIMED}), because every reason
     * for it to run is an unpark that cannot be lost ({@link ComputeUnit#wake}: {@link ProcessorRole#wakeIdle},
     * shutdown, aborts). The one producer that wakes nobody, a doorbell written behind the API, is the
     * watchdog's to find on its timer, so idle cost does not grow with units (a helper timer of 1 s cost
     * 16 units 15 wakes a second) and a unit that parks between two dispatches arms no timer (on a
     * virtual machine a timed park cost the busy-thread round trip 4-10 us, PERFORMANCE.md).
     */
    final IdleStrategy unitIdle;
    /** How a thread outside the units waits for the role or for aborted work (bounded by a deadline). */
    private final IdleStrategy roleTakeWait;
    /** Who acts as processor, the epoch, and whom to wake. */
    private final ProcessorRole role = new ProcessorRole();
    private final LaunchRing launchRing = new LaunchRing(LaunchRing.CAPACITY);
    /** How launched dispatches enter the ring: in order, or (fidelity mode) overlapping adversarially. */
    private final LaunchOrder launchOrder;
    /** How finished work is completed (the units call it; it never calls back here). */
    final WorkCompletion completion;
    final SignalWaiter waiter = s -> role.notifyWork();
    private final SignalWaiter doorbellWaiter = s -> role.notifyDoorbell();
    private volatile QueueSlot[] queues = new QueueSlot[0];
    private ComputeUnit[] units = new ComputeUnit[0];
    /** Per-unit counters (wake-ups, role hand-offs, CAS retries, parks, packets), sized at start. */
    UnitCounters unitCounters = new UnitCounters(0);
    /** The unit holding the role while it scans, so packets are counted on its line (role holder only). */
    private ComputeUnit scanningUnit;
    /** The watchdog thread (kernel time limit, monitor deadlocks at barriers), or null before start. */
    private Thread watchdog;
    /** True while the watchdog sleeps because nothing was launched for {@link #WATCHDOG_QUIET_NANOS}: a launch wakes it. */
    private volatile boolean watchdogAsleep;
    private volatile boolean shutdown;
    /** True when the launch ring had no space at the role holder's last {@link #watch} (role holder only). */
    private boolean ringWasFull;
    /** Completed scans over all queues, for diagnostics and tests. */
    private volatile long scans;
    /** The watchdog's looks for doorbells written behind the API (written by the watchdog only; tests). */
    private volatile long watchdogLooks;
    private int nextQueue;
    /** Set by a scan in which some queue stopped at {@link #BATCH} with packets possibly left (role holder only). */
    private boolean backlog;

    PacketProcessor(Agent agent, MemoryManager memory, SignalManager signals, Svm svm, LongSupplier clock) {
        this.agent = agent;
        this.signals = signals;
        this.svm = svm;
        this.access = svm.access();
        this.launchOrder = access.coherent() ? LaunchOrder.overlapping(launchRing, role::notifyWork, OVERLAP_WINDOW_NANOS)
                : LaunchOrder.inOrder(launchRing);
        this.clock = clock;
        IdleStrategy idle = agent.idleStrategy();
        this.completion = new WorkCompletion(agent.index(), access, clock, role, launchOrder, idle.coreSharing());
        this.tracer = agent.tracer();
        this.roleWait = idle.background().withBusyNanos(PROCESSOR_SPIN_NANOS).parkingUnderLoad();
        this.unitIdle = idle.background().withBusyNanos(0).withParks(IdleStrategy.UNTIMED, IdleStrategy.UNTIMED);
        this.roleTakeWait = idle;
        this.decoder = new PacketDecoder(agent.name(), agent.index(), agent.properties(), memory, svm);
    }

    void start(int computeUnits, int groupSegmentMax, String threadPrefix, long kernelTimeLimitNanos) {
        unitCounters = new UnitCounters(computeUnits);
        ComputeUnit[] made = new ComputeUnit[computeUnits];
        for (int i = 0; i < computeUnits; i++) {
            made[i] = new ComputeUnit(i, this, groupSegmentMax);
        }
        units = made;
        role.start(made);
        for (ComputeUnit u : made) {
            u.bindThread(threadPrefix + "-cu" + u.id, agent.index(), access);
        }
        for (ComputeUnit u : made) {
            u.thread().start();
        }
        watchdog = Thread.ofPlatform().daemon().name(threadPrefix + "-watchdog")
                .unstarted(new Watchdog(kernelTimeLimitNanos));
        watchdog.start();
    }

    /** True in fidelity mode (the agent's SVM runs the coherence model). */
    boolean fidelity() {
        return access.coherent();
    }

    int agentIndex() {
        return agent.index();
    }

    String agentName() {
        return agent.name();
    }

    /** Number of compute units (0 before start). */
    int unitCount() {
        return units.length;
    }

    // ---- role and waking ------------------------------------------------------------------------

    boolean isShutdown() {
        return shutdown;
    }

    /** The role and wake protocol. */
    ProcessorRole role() {
        return role;
    }

    /** Takes the role for {@code unit} when no launched work is left to claim; true when taken. */
    boolean takeRoleWhenIdle(ComputeUnit unit) {
        return launchRing.peekClaimable() == null && role.tryAcquire(unit);
    }

    /** The watchdog's looks for doorbells written behind the API so far (tests). */
    long watchdogLooks() {
        return watchdogLooks;
    }

    /** Parks of unit {@code unit} so far (tests). */
    long parksOf(int unit) {
        return unitCounters.get(unit, UnitCounters.PARKS);
    }

    /** A snapshot of the agent's scaling counters. */
    AgentCounters counters() {
        return unitCounters.snapshot();
    }

    /** Number of completed scans over all queues: each one looked at the head of every queue. */
    long scans() {
        return scans;
    }

    /** Something may be ready: a doorbell rang, a dependency changed, a queue changed state. */
    void notifyWork() {
        role.notifyWork();
    }

    /**
     * True when some queue has a published packet the processor could act on: one at its read
     * index that is not the packet it is blocked at, or is but only by its barrier bit with nothing
     * in flight any more. Needs no role; cheap enough to run before every park.
     */
    boolean hasPublishedWork() {
        for (QueueSlot q : queues) {
            try {
                long index = q.queue.loadReadIndexScacquire();
                int word = AqlPacket.loadHeaderWordAcquire(q.ring, (index & q.mask) * AqlPacket.SIZE);
                if (actionable(word, index, q.blockedIndex, q.blockedOnBarrierBit, q.inflight.get())) {
                    return true;
                }
            } catch (IllegalStateException destroyedMeanwhile) {
                // the queue was destroyed after this snapshot of the queues: its memory is gone, it has no work
            }
        }
        return false;
    }

    /**
     * The rule of {@link #hasPublishedWork()} for one queue: a published packet at the read index,
     * unless the processor stopped at it and the stop still holds. A stop for the barrier bit is over
     * once nothing of the queue is in flight (a timed look that parked beside such a packet left a
     * batch's last packet unlaunched for good); a barrier packet's dependencies are watched elsewhere.
     */
    static boolean actionable(int headerWord, long index, long blockedIndex, boolean blockedOnBarrierBit, long inflight) {
        return PacketHeader.typeCode(headerWord) != PacketType.INVALID.code()
                && (index != blockedIndex || blockedOnBarrierBit && inflight == 0);
    }

    /** True when some launched work can still be claimed. */
    boolean hasClaimableWork() {
        return launchRing.peekClaimable() != null;
    }

    /** Runs one claimable part of launched work; false when there is none. */
    boolean runWork(ComputeUnit unit) {
        return launchRing.runOne(unit);
    }

    /**
     * Acts as packet processor until work is launched (true) or the queues stayed idle for
     * their {@link #PROCESSOR_SPIN_NANOS} busy budget (false; {@code spinNanos} 0 means one scan).
     * The caller holds the role; this releases it. Between idle scans it spins, then yields, as
     * the runtime's idle strategy says. With {@code ownLaunchesOnly} (a unit looking around after a
     * timed park while others run the ring's work) claimable work counts only once this call launched some.
     */
    boolean actAsProcessor(ComputeUnit unit, long spinNanos, boolean ownLaunchesOnly) {
        Idler idler = null;
        boolean launched = false;
        boolean consumed = false;
        scanningUnit = unit;
        try {
            while (!shutdown) {
                QueueSlot[] watched = queues;
                long epoch = watch(watched);
                boolean progress = processQueues();
                consumed |= progress;
                if (backlog && launchRing.size() < LAUNCH_AHEAD) {
                    continue;
                }
                if ((consumed || !ownLaunchesOnly) && hasClaimableWork()) {
                    launched = true;
                    return true;
                }
                if (progress) {
                    idler = null;
                    continue;
                }
                if (launchOrder.holding()) {
                    // dispatches wait (bounded by the window) for a successor to overlap with
                    if (idler == null) {
                        idler = roleWait.idler().blocker(this);
                    }
                    idler.idle(OVERLAP_WINDOW_NANOS / 8);
                    continue;
                }
                if (spinNanos <= 0) {
                    return false;
                }
                if (idler == null) {
                    idler = roleWait.idler().blocker(this);
                }
                if (idler.parksNext()) {
                    return false; // never parks holding the role (under load its first phase may be a park)
                }
                idler.idle();
                while (!idler.parksNext() && !shutdown && quietSince(epoch, watched)) {
                    idler.idle();
                }
            }
            return false;
        } finally {
            scanningUnit = null;
            role.release();
            if (launched && hasPublishedWork()) {
                role.wakeIdle(1);
            }
            if (launched) {
                Work w = launchRing.peekClaimable();
                long groups = w instanceof KernelWork k ? k.dispatch.totalGroups() : 1;
                if (groups > 1 && groups <= units.length) {
                    role.wakeIdle(groups - 1);
                }
            }
        }
    }

    /**
     * Records each of {@code watched}'s doorbell values for {@link #quietSince}; returns the epoch,
     * read first. The acquire fence orders these reads before the scan's, so a packet whose doorbell
     * was seen here is seen by the scan.
     */
    private long watch(QueueSlot[] watched) {
        long epoch = role.epoch();
        for (QueueSlot q : watched) {
            q.doorbellSeen = doorbellValue(q);
        }
        ringWasFull = !launchRing.hasSpace();
        VarHandle.acquireFence();
        return epoch;
    }

    /**
     * True when the epoch is still {@code epoch}, the queues are still {@code watched}, no doorbell
     * of theirs changed, and the launch ring, if it was full, still is (units claiming from a full
     * ring bump nothing, and packets wait in their queues for its space).
     */
    private boolean quietSince(long epoch, QueueSlot[] watched) {
        if (role.epoch() != epoch || queues != watched || ringWasFull && launchRing.hasSpace()) {
            return false;
        }
        for (QueueSlot q : watched) {
            if (doorbellValue(q) != q.doorbellSeen) {
                return false;
            }
        }
        return true;
    }

    /** The queue's doorbell value (relaxed), or a value no doorbell holds once the signal is gone. */
    private static long doorbellValue(QueueSlot q) {
        try {
            return q.queue.doorbell().loadRelaxed();
        } catch (RuntimeException destroyed) {
            return Long.MIN_VALUE + q.readIndex;
        }
    }

    // ---- queues ---------------------------------------------------------------------------------

    void attach(Queue queue) {
        synchronized (this) {
            QueueSlot[] grown = Arrays.copyOf(queues, queues.length + 1);
            grown[queues.length] = new QueueSlot(queue, new BarrierWatch(signals, waiter, clock));
            queues = grown;
        }
        queue.doorbell().addWaiter(doorbellWaiter);
    }

    int queueCount() {
        return queues.length;
    }

    /**
     * Drains and detaches a destroyed queue: waits (bounded) for the processor role so no scan
     * is reading the ring, fails every published packet's completion signal, then removes it.
     */
    void detach(Queue queue, HsaException reason) {
        boolean reentrant = role.heldByCurrentThread();
        boolean held = reentrant;
        long deadline = System.nanoTime() + 5_000_000_000L;
        Idler idler = roleTakeWait.idler().blocker(this);
        while (!held && !(held = role.tryAcquire())) {
            long left = deadline - System.nanoTime();
            if (left < 0) {
                break;
            }
            idler.idle(left);
        }
        try {
            synchronized (this) {
                QueueSlot found = null;
                for (QueueSlot s : queues) {
                    if (s.queue == queue) {
                        found = s;
                    }
                }
                if (found == null) {
                    return;
                }
                if (held) {
                    drain(found, reason);
                    found.barrier.unwatch();
                }
                QueueSlot target = found;
                queues = Arrays.stream(queues).filter(s -> s != target).toArray(QueueSlot[]::new);
            }
        } finally {
            if (held && !reentrant) {
                role.release();
            }
        }
        queue.doorbell().removeWaiter(doorbellWaiter);
    }

    /** One pass over every queue; true when some packet was consumed. */
    private boolean processQueues() {
        QueueSlot[] qs = queues;
        int n = qs.length;
        boolean progress = launchOrder.poll();
        if (n == 0) {
            return progress;
        }
        backlog = false;
        int start = nextQueue++ % n;
        for (int i = 0; i < n; i++) {
            QueueSlot q = qs[(start + i) % n];
            QueueState state = q.queue.state();
            if (state == QueueState.ACTIVE) {
                progress |= launch(q);
                launchOrder.endScan(q);
            } else if (state != QueueState.DESTROYED && published(q)) {
                HsaException reason = q.queue.error();
                progress |= drain(q, new HsaException(reason != null ? reason.status() : HsaStatus.INVALID_QUEUE,
                        "queue " + q.queue.id() + " is " + state + (reason != null ? ": " + reason.getMessage() : ""),
                        reason));
            }
        }
        scans = scans + 1;
        return progress;
    }

    /** True when the packet at the queue's read index is published. */
    private static boolean published(QueueSlot q) {
        long off = (q.readIndex & q.mask) * AqlPacket.SIZE;
        return PacketHeader.typeCode(AqlPacket.loadHeaderWordAcquire(q.ring, off)) != PacketType.INVALID.code();
    }

    private boolean launch(QueueSlot q) {
        int launched = 0;
        MemorySegment ring = q.ring;
        while (launched < BATCH && launchRing.hasSpace()) {
            long index = q.readIndex;
            long off = (index & q.mask) * AqlPacket.SIZE;
            int word = AqlPacket.loadHeaderWordAcquire(ring, off);
            int type = PacketHeader.typeCode(word);
            if (type == PacketType.INVALID.code()) {
                break;
            }
            if (PacketHeader.barrier(word) && q.inflight.get() > 0) {
                // publish the block first, then look again: complete() drops the count, then reads
                // blockedIndex (both volatile), so either it sees the block and bumps the epoch or
                // this look sees the count at zero
                q.blockedOnBarrierBit = true;
                q.blockedIndex = index;
                if (q.inflight.get() > 0) {
                    break;
                }
                q.blockedIndex = -1;
            }
            String bad = decoder.checkHeader(word);
            if (bad != null) {
                reject(q, index, off, decoder.status, bad);
                return true;
            }
            int acquire = PacketHeader.acquireScopeCode(word);
            int release = PacketHeader.releaseScopeCode(word);
            if (acquire != 0) {
                VarHandle.acquireFence();
                access.packetAcquire(agent.index(), acquire);
            }
            int outcome;
            try {
                outcome = launchOne(q, index, off, word, type, release);
            } catch (RuntimeException e) {
                // a signal destroyed under the processor, say: fail the packet, never the compute unit
                if (q.readIndex == index) {
                    reject(q, index, off, e instanceof HsaException h ? h.status() : HsaStatus.ERROR,
                            "could not be processed: " + e);
                } else {
                    q.queue.raiseError(new HsaException(HsaStatus.ERROR, "packet " + index + " on queue "
                            + q.queue.id() + " could not be launched: " + e, e));
                }
                return true;
            }
            if (outcome < 0) {
                return true;
            }
            if (outcome == 0) {
                q.blockedOnBarrierBit = false;
                q.blockedIndex = index;
                break;
            }
            if (q.blockedIndex != -1) {
                q.blockedIndex = -1;
            }
            launched++;
        }
        if (launched == BATCH) {
            backlog = true;
        }
        return launched > 0;
    }

    /** Launches (or completes) one published packet: 1 when done, 0 when it must wait, -1 when rejected. */
    private int launchOne(QueueSlot q, long index, long off, int word, int type, int release) {
        if (type == PacketType.KERNEL_DISPATCH.code()) {
            return launchKernel(q, index, off, word, release) ? 1 : -1;
        }
        if (type == PacketType.BARRIER_AND.code() || type == PacketType.BARRIER_OR.code()) {
            return barrier(q, index, off, type == PacketType.BARRIER_AND.code());
        }
        if (type == PacketType.AGENT_DISPATCH.code()) {
            return launchAgentDispatch(q, index, off, word, release) ? 1 : -1;
        }
        reject(q, index, off, HsaStatus.INVALID_PACKET_FORMAT, decoder.unsupportedType(type));
        return -1;
    }

    private void consume(QueueSlot q, long index, long off) {
        ComputeUnit unit = scanningUnit;
        if (unit != null) {
            unit.count(UnitCounters.PACKETS);
        }
        AqlPacket.storeInvalid(q.ring, off);
        q.readIndex = index + 1;
        q.queue.storeReadIndexScrelease(index + 1);
    }

    private boolean launchKernel(QueueSlot q, long index, long off, int word, int release) {
        MemorySegment ring = q.ring;
        PacketDecoder d = decoder;
        String problem = d.decodeKernel(ring, off, word);
        if (problem != null) {
            reject(q, index, off, d.status, problem);
            return false;
        }
        long completionHandle = ring.get(ValueLayout.JAVA_LONG, off + AqlPacket.COMPLETION_SIGNAL);
        Signal completion = completionSignal(q, index, off, completionHandle);
        if (completion == null && completionHandle != 0) {
            return false;
        }
        Dispatch dispatch = new Dispatch(d.code, d.dims, d.wgX, d.wgY, d.wgZ, d.gridX, d.gridY, d.gridZ, d.kernargAddress,
                d.kernarg, d.groupSize, d.privateSize, svm, index, q);
        consume(q, index, off);
        if (completion != null) {
            completion.recordStart(clock.getAsLong());
        }
        q.inflight.incrementAndGet();
        wakeWatchdog();
        launchOrder.launched(q, new KernelWork(q, dispatch, completion, release, this), PacketHeader.barrier(word));
        return true;
    }

    private boolean launchAgentDispatch(QueueSlot q, long index, long off, int word, int release) {
        int type = PacketDecoder.agentDispatchType(word);
        AgentDispatchHandler handler = agent.handler(type);
        String problem = decoder.checkAgentDispatch(word, handler);
        if (problem != null) {
            reject(q, index, off, decoder.status, problem);
            return false;
        }
        MemorySegment ring = q.ring;
        long completionHandle = ring.get(ValueLayout.JAVA_LONG, off + AqlPacket.COMPLETION_SIGNAL);
        Signal completion = completionSignal(q, index, off, completionHandle);
        if (completion == null && completionHandle != 0) {
            return false;
        }
        AgentDispatchRequest request = decoder.agentDispatchRequest(ring, off, type, index);
        consume(q, index, off);
        if (completion != null) {
            completion.recordStart(clock.getAsLong());
        }
        q.inflight.incrementAndGet();
        wakeWatchdog();
        launchOrder.launched(q, new AgentWork(q, handler, request, completion, release, this), PacketHeader.barrier(word));
        return true;
    }

    /**
     * Handles the barrier packet at {@code index}: 1 when it completed, 0 when it still waits
     * for dependencies, -1 when it was rejected.
     */
    private int barrier(QueueSlot q, long index, long off, boolean and) {
        launchOrder.endRun(q);
        MemorySegment ring = q.ring;
        BarrierWatch watch = q.barrier;
        int outcome = watch.evaluate(ring, off, index, and);
        if (outcome == BarrierWatch.REJECT) {
            reject(q, index, off, watch.status, watch.problem);
            return -1;
        }
        if (outcome == BarrierWatch.WAIT) {
            return 0;
        }
        long since = watch.since();
        watch.clear();
        long completionHandle = ring.get(ValueLayout.JAVA_LONG, off + AqlPacket.COMPLETION_SIGNAL);
        Signal completion = completionSignal(q, index, off, completionHandle);
        if (completion == null && completionHandle != 0) {
            return -1;
        }
        int word = AqlPacket.loadHeaderWordAcquire(ring, off);
        consume(q, index, off);
        long now = clock.getAsLong();
        tracer.barrier(agent.index(), agent.name(), q.queue.id(), index, and, since, now);
        if (PacketHeader.releaseScopeCode(word) != 0) {
            VarHandle.fullFence();
            access.packetRelease(agent.index(), PacketHeader.releaseScopeCode(word));
        }
        if (completion != null) {
            completion.recordStart(now);
            completion.recordEnd(now);
            completion.subtractScrelease(1);
        }
        return 1;
    }

    private Signal completionSignal(QueueSlot q, long index, long off, long handle) {
        if (handle == 0) {
            return null;
        }
        try {
            return signals.fromHandle(handle);
        } catch (HsaException e) {
            reject(q, index, off, HsaStatus.INVALID_SIGNAL, "completion signal: " + e.getMessage());
            return null;
        }
    }

    /**
     * Rejects the packet at {@code index}: consumes it, raises the queue's error (the callback runs
     * here, and may even destroy the queue, so the ring is not touched after it), then fails the
     * packet's completion signal, so a waiter that sees the failure also sees the callback done.
     */
    private void reject(QueueSlot q, long index, long off, HsaStatus status, String problem) {
        HsaException e = new HsaException(status, "packet " + index + " on queue " + q.queue.id() + " ("
                + agent.name() + "): " + problem);
        long completion = q.ring.get(ValueLayout.JAVA_LONG, off + AqlPacket.COMPLETION_SIGNAL);
        q.barrier.clear();
        consume(q, index, off);
        q.queue.raiseError(e);
        failCompletion(completion, e);
    }

    private void failCompletion(long handle, HsaException e) {
        if (handle != 0) {
            try {
                signals.fromHandle(handle).fail(e);
            } catch (HsaException ignored) {
                // the packet named no live signal: there is nobody to tell
            }
        }
    }

    /** Fails and consumes every published packet of a queue that is no longer active. */
    private boolean drain(QueueSlot q, HsaException reason) {
        boolean progress = false;
        q.barrier.clear();
        while (true) {
            long index = q.readIndex;
            long off = (index & q.mask) * AqlPacket.SIZE;
            int word = AqlPacket.loadHeaderWordAcquire(q.ring, off);
            if (PacketHeader.typeCode(word) == PacketType.INVALID.code()) {
                return progress;
            }
            long completion = q.ring.get(ValueLayout.JAVA_LONG, off + AqlPacket.COMPLETION_SIGNAL);
            consume(q, index, off);
            failCompletion(completion, reason);
            progress = true;
        }
    }

    /** The calling unit starts a workgroup or an agent dispatch: in fidelity mode it applies launch acquires it missed. */
    void beginPart() {
        access.beginWork();
    }

    /** The calling unit finished a workgroup or an agent dispatch of a packet with {@code releaseScope}: fidelity mode writes its L1 back. */
    void endPart(int releaseScope) {
        access.endWork(releaseScope);
    }

    /**
     * After a launch raised a queue's in-flight count: wakes the watchdog if it sleeps (one volatile
     * read otherwise). The count's increment and this read, and the watchdog's store of
     * {@link #watchdogAsleep} and its read of the counts, are all volatile, so either the launcher sees
     * it asleep or the watchdog sees the work and stays up.
     */
    private void wakeWatchdog() {
        if (watchdogAsleep && WATCHDOG_ASLEEP.compareAndSet(this, true, false)) {
            LockSupport.unpark(watchdog);
        }
    }

    /** True while the watchdog sleeps until the next launch (tests). */
    boolean watchdogAsleep() {
        return watchdogAsleep;
    }

    /** True when some queue of this agent has launched work that has not completed (volatile reads). */
    private boolean workInFlight() {
        for (QueueSlot q : queues) {
            if (q.inflight.get() > 0) {
                return true;
            }
        }
        return false;
    }

    // ---- aborts ---------------------------------------------------------------------------------

    /**
     * Aborts the launched and running work of {@code queue} (every work when null) with
     * {@code reason}: each one's abort points throw from now on, and a unit parked in a signal
     * wait inside it is unparked to see that. Returns the works it aborted.
     */
    private List<Work> abortWorks(Queue queue, HsaException reason) {
        List<Work> aborted = new ArrayList<>();
        Consumer<Work> abort = w -> {
            if ((queue == null || w.slot.queue == queue) && w.abort(reason)) {
                aborted.add(w);
            }
        };
        launchRing.forEach(abort);
        launchOrder.forEach(abort);
        for (ComputeUnit u : units) {
            Work w = u.current();
            if (w != null) {
                abort.accept(w);
                LockSupport.unpark(u.thread());
            }
        }
        return aborted;
    }

    /**
     * Aborts the launched and running dispatches of {@code queue} with {@code reason} and waits up
     * to {@code timeoutNanos} for them to unwind and complete (their completion signals fail with
     * {@code reason}'s status and the queue's error callback reports it). A call from one of this
     * agent's own units does not wait: it may be completing one of those dispatches itself.
     * A kernel in a loop that reaches no abort point is left running once the wait is over.
     */
    void abortQueue(Queue queue, HsaException reason, long timeoutNanos) {
        QueueSlot slot = null;
        for (QueueSlot s : queues) {
            if (s.queue == queue) {
                slot = s;
            }
        }
        if (slot == null || slot.inflight.get() == 0 || shutdown) {
            return; // after shutdown, work the units never finished was failed and given up there
        }
        abortWorks(queue, reason);
        ComputeUnitThread t = ComputeUnitThread.current();
        if (t != null && t.agentIndex() == agent.index()) {
            return;
        }
        long deadline = System.nanoTime() + timeoutNanos;
        Idler idler = roleTakeWait.idler().blocker(this);
        long left;
        while (slot.inflight.get() > 0 && !shutdown && (left = deadline - System.nanoTime()) > 0) {
            idler.idle(left);
        }
    }

    /**
     * The agent's watchdog thread. It enforces the kernel time limit: it looks at the running works
     * every eighth of the limit (at least every 1 ms) and aborts one that has been running (since it
     * was first seen on a unit) longer than the limit, with EXCEPTION, as a GPU's hang watchdog resets
     * a wave that runs too long; this costs the dispatch path nothing, only this thread keeps times.
     * It also rescues a unit blocked for {@link #MONITOR_DEADLOCK_NANOS} on a Java monitor inside a
     * barrier round when no other thread owns that monitor: a work-item suspended at a barrier holds
     * it (see {@link WorkgroupExecutor#rescueMonitorDeadlock()}). Without a time limit it looks every
     * {@link #WATCHDOG_PERIOD_NANOS}. Those looks need work in flight, so once nothing was launched or
     * in flight for {@link #WATCHDOG_QUIET_NANOS} it is quiet: it sleeps until a launch wakes it
     * ({@link #wakeWatchdog}) or its look timer ends, which backs off from {@link #LOOK_MIN_NANOS} to
     * {@link #LOOK_MAX_NANOS}. At each wake it looks for a packet published with no doorbell rung
     * (written behind the API) while nobody holds the role, and notifies as the doorbell would have:
     * the agent's one timer, so its units park untimed ({@link #unitIdle}).
     */
    private final class Watchdog implements Runnable {
        private final long limitNanos;
        private final Map<Work, Long> firstSeen = new IdentityHashMap<>();
        /** When each unit was first seen blocked in a barrier round, or 0. */
        private final long[] blockedSince;
        /** The ring's head sequence at the last look while it had claimable work, or -1. */
        private long stalledHead = -1;
        /** Works the ring had taken at the last look. */
        private long lastAppended;

        Watchdog(long limitNanos) {
            this.limitNanos = limitNanos;
            this.blockedSince = new long[units.length];
        }

        @Override
        public void run() {
            long period = limitNanos > 0 ? Math.clamp(limitNanos / 8, 1_000_000, WATCHDOG_PERIOD_NANOS)
                    : WATCHDOG_PERIOD_NANOS;
            long quietSince = System.nanoTime() - WATCHDOG_QUIET_NANOS; // nothing launched yet: quiet at once
            long look = LOOK_MIN_NANOS;
            while (!shutdown) {
                boolean quiet = false;
                if (System.nanoTime() - quietSince >= WATCHDOG_QUIET_NANOS) {
                    // the work's looks need work in flight: sleep until a launch wakes this thread or the next look
                    watchdogAsleep = true;
                    quiet = !workInFlight();
                    if (!quiet) {
                        watchdogAsleep = false;
                    }
                }
                // a launch's wake is never missed (wakeWatchdog), and shutdown unparks too
                LockSupport.parkNanos(this, quiet ? look : period);
                watchdogAsleep = false;
                look = quiet ? Math.min(look * 2, LOOK_MAX_NANOS) : LOOK_MIN_NANOS;
                lookBehindTheApi();
                long now = System.nanoTime();
                long appended = launchRing.appended();
                if (appended != lastAppended || workInFlight()) {
                    quietSince = now;
                }
                lastAppended = appended;
                if (limitNanos > 0) {
                    enforceTimeLimit(now);
                }
                rescueMonitorDeadlocks(now);
                rescueStalledRing();
            }
        }

        /**
         * Notifies as a doorbell would when a queue holds a published packet the processor could act
         * on while nobody holds the role: a doorbell written behind the API woke nobody. (A holder
         * finds the packet itself before it parks.)
         */
        private void lookBehindTheApi() {
            watchdogLooks = watchdogLooks + 1;
            if (!role.held() && hasPublishedWork()) {
                role.notifyWork();
            }
        }

        /**
         * Wakes an idle unit when claimable work waited at the ring's head for a whole period: the
         * running units are blocked in parts (say a kernel waiting for a dispatch queued behind it),
         * and the pacer, which looks only between parts, cannot ask for help.
         */
        private void rescueStalledRing() {
            long head = launchRing.headSequence();
            if (head == stalledHead && hasClaimableWork()) {
                role.wakeIdle(1);
            }
            stalledHead = hasClaimableWork() ? head : -1;
        }

        private void enforceTimeLimit(long now) {
            Set<Work> running = Collections.newSetFromMap(new IdentityHashMap<>());
            for (ComputeUnit u : units) {
                Work w = u.current();
                if (w != null) {
                    running.add(w);
                }
            }
            firstSeen.keySet().retainAll(running);
            for (Work w : running) {
                long since = firstSeen.computeIfAbsent(w, k -> now);
                if (now - since > limitNanos && w.abort(new HsaException(HsaStatus.EXCEPTION, w
                        + " on queue " + w.slot.queue.id() + " ran longer than the kernel time limit of "
                        + limitNanos / 1_000_000 + " ms and was aborted (HSA4J_KERNEL_TIME_LIMIT_MS)"))) {
                    for (ComputeUnit u : units) {
                        if (u.current() == w) {
                            LockSupport.unpark(u.thread());
                        }
                    }
                }
            }
        }

        private void rescueMonitorDeadlocks(long now) {
            for (int i = 0; i < units.length; i++) {
                ComputeUnit u = units[i];
                if (u.thread().getState() != Thread.State.BLOCKED || !u.executor.inBarrierRound()) {
                    blockedSince[i] = 0;
                } else if (blockedSince[i] == 0) {
                    blockedSince[i] = now;
                } else if (now - blockedSince[i] >= MONITOR_DEADLOCK_NANOS && !monitorOwnedByAnotherThread(u.thread())) {
                    blockedSince[i] = 0;
                    u.executor.rescueMonitorDeadlock();
                }
            }
        }

        /** True when {@code t} waits for a monitor that another live thread owns (plain contention, not a deadlock). */
        private static boolean monitorOwnedByAnotherThread(Thread t) {
            ThreadInfo info = ManagementFactory.getThreadMXBean().getThreadInfo(t.threadId());
            long owner = info == null ? -1 : info.getLockOwnerId();
            return owner != -1 && owner != t.threadId();
        }
    }

    // ---- shutdown -------------------------------------------------------------------------------

    /**
     * Stops the compute units, failing what is still queued or launched with {@code reason}.
     * Signals are failed first and the units joined after, so whoever waits on them sees the failure
     * during the grace period, while the memory behind the signals is still there.
     */
    void shutdown(HsaException reason, long timeoutNanos) {
        shutdown = true;
        List<Work> aborted = abortWorks(null, reason);
        for (ComputeUnit u : units) {
            LockSupport.unpark(u.thread());
        }
        if (watchdog != null) {
            LockSupport.unpark(watchdog);
        }
        long deadline = System.nanoTime() + timeoutNanos;
        // an error callback may shut the runtime down from the unit that holds the role
        boolean held = role.heldByCurrentThread();
        Idler idler = roleTakeWait.idler().blocker(this);
        long roleLeft;
        while (!held && !(held = role.tryAcquire()) && (roleLeft = deadline - System.nanoTime()) > 0) {
            idler.idle(roleLeft);
        }
        for (QueueSlot q : queues) {
            q.queue.doorbell().removeWaiter(doorbellWaiter);
            if (held) {
                drain(q, reason);
            }
            q.barrier.unwatch();
        }
        launchRing.forEach(w -> failCompletion(w, reason));
        launchOrder.forEach(w -> failCompletion(w, reason));
        for (ComputeUnit u : units) {
            failCompletion(u.current(), reason);
        }
        List<Thread> threads = new ArrayList<>(Arrays.asList(threads()));
        if (watchdog != null) {
            threads.add(watchdog);
        }
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            if (left > 0 && t != Thread.currentThread()) {
                try {
                    t.join(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        // works left unclaimed (and kernels that never reached an abort point) are given up
        for (Work w : aborted) {
            w.finished();
        }
    }

    private static void failCompletion(Work w, HsaException reason) {
        if (w != null && w.completion != null) {
            w.completion.fail(reason);
        }
    }

    Thread[] threads() {
        return Arrays.stream(units).map(u -> u.thread()).toArray(Thread[]::new);
    }
}
