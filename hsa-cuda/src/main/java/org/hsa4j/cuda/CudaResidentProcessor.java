package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.agent.spi.QueueFactory;
import org.hsa4j.cuda.driver.CuResult;
import org.hsa4j.cuda.driver.CudaCallException;
import org.hsa4j.cuda.driver.CudaDriver;
import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;
import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.MemoryKind;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueState;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.SignalManager;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The host half of a GPU-resident packet processor: launches the processor grid
 * ({@code hsa4j_resident.cu}) of one queue, relaunches it when it parked and the doorbell rings,
 * stops it, and turns what the grid reports into the queue's errors.
 *
 * <p><b>Who is on the dispatch path.</b> No host thread of the runtime: while the grid runs, its
 * command processor reads each packet from the ring in registered host memory (system-scope
 * acquire), runs it and completes it (slot INVALID, read index, completion signal with a
 * system-scope release RMW). The producer's own doorbell store copies its first packets into the
 * shadow ring ({@link ResidentShadow}), from which a quiet queue's packet comes in the header's
 * round trip, without the body's. This class's thread ("the monitor") only watches the grid's stream ({@code cuStreamQuery},
 * parking up to {@value #WATCH_PARK_MAX_NANOS} ns between looks) and, once the grid ended, decides:
 * <ul>
 * <li>PARKED (idle): wait on the doorbell (a host store wakes the monitor); relaunch when the write
 *     index is past the read index. Dekker with the grid: the grid stores PARKED, fences, re-reads
 *     the write index; a producer stores the write index, then the doorbell; the monitor reads the
 *     doorbell value, then the write index, and waits for the doorbell to change only when the
 *     write index says nothing is pending. Either the grid saw the packet or the monitor does.
 * <li>WAITING (a barrier packet's dependencies were not met for the idle period): relaunch after
 *     {@value #WAITING_PAUSE_NANOS} ns, so a blocked barrier holds no SM meanwhile.
 * <li>FAILED (a packet the grid refused, left in the ring): consume it, raise the queue's error
 *     (INVALID_PACKET_FORMAT naming the field), fail its completion signal, then fail what follows.
 * <li>STOPPED: {@link #stop} asked; done.
 * </ul>
 * A CUDA error from the stream (a resident kernel faulted: sticky) is the queue's MEMORY_FAULT or
 * EXCEPTION, the published packets' signals fail, and the agent recovers (or is lost) as for the
 * host-side processor.
 *
 * <p><b>Memory.</b> The control block ({@link ResidentLayout}) is pinned host memory; the mailbox
 * through which the command processor hands multi-workgroup dispatches to the other blocks is
 * device memory. The queue's descriptor, ring, doorbell, and the packets' kernargs and signals must
 * be in memory the device reaches: {@link CudaAgent#createResidentQueue} places queue and doorbell
 * in the agent's registered SVM; signals come from {@link CudaAgent#createSignal}, kernargs and
 * buffers from {@link CudaAgent#svmPool()} or pinned/device buffers. An address the device cannot
 * reach faults the context (as any kernel's bad pointer does).
 *
 * <p><b>Bounds.</b> Every wait of the monitor is bounded and sees {@link #stop}; a stop stores the
 * control block's stop word, which the grid reads within 16 idle polls or 64 packets; if the grid
 * has not ended within {@value #STOP_NANOS} ns (a resident kernel that never returns) the queue
 * gets an error saying so and the grid's memory is left allocated (freeing it under a running
 * grid would fault it).
 */
final class CudaResidentProcessor implements Runnable, CudaQueueServer {
    private static final int CU_STREAM_NON_BLOCKING = 0x1;
    static final long WATCH_PARK_MAX_NANOS = 500_000;
    static final long WAITING_PAUSE_NANOS = 1_000_000;
    static final long STOP_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long DOORBELL_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    private static final int PARAMS = 10;
    /** Debug option: the phase timer printed to stderr when the processor ends ({@code -Dhsa4j.cuda.resident.phases=true}). */
    private static final boolean PRINT_PHASES = Boolean.getBoolean("hsa4j.cuda.resident.phases");

    private final CudaAgent agent;
    private final Queue queue;
    private final MemorySegment ring;
    private final Signal doorbell;
    private final SignalManager signals;
    /** How the monitor waits for a live grid to end: parks from 1 us doubling to {@link #WATCH_PARK_MAX_NANOS}. */
    private final IdleStrategy watchWait;
    private final CudaResidentProgram program;
    private final CudaResidentOptions options;
    private final CudaKernel processorKernel;
    private final CudaBuffer control;
    private final MemorySegment ctl;
    private final CudaBuffer mailbox;
    /** The shadow ring (SVM the device reaches), {@link ResidentLayout#shadowBytes}. */
    private final Allocation shadowLines;
    /** Copies each doorbell's first packets into {@link #shadowLines}; a waiter on the doorbell from start to finish. */
    private final ResidentShadow shadow;
    private final int blocks;
    private final Thread thread;
    private final AtomicLong launches = new AtomicLong();
    private final AtomicLong parks = new AtomicLong();
    /** The grid's phase timer (ResidentLayout.PH_*), summed over the grids that ended; guarded by itself. */
    private final long[] phases = new long[ResidentLayout.PHASE_COUNT];
    private volatile boolean stopping;
    private volatile HsaException lost;
    /** True while a launched grid may still run: its memory must stay. */
    private volatile boolean gridLive;
    /** The grid's last state, kept by {@link #finish} before the control block is freed. */
    private volatile int finalState = ResidentLayout.STATE_LAUNCHED;
    private MemorySegment stream = MemorySegment.NULL;
    private int streamGeneration = -1;

    /**
     * Makes the control block, the mailbox (zeroed) and the grid's size; the grid starts with {@link #start}.
     *
     * @throws HsaException INCOMPATIBLE_ARGUMENTS when the driver lacks cooperative launches or no
     *                      processor block fits on an SM; CUDA errors as mapped
     */
    CudaResidentProcessor(CudaAgent agent, Queue queue, SignalManager signals, CudaResidentProgram program,
                          CudaResidentOptions options) {
        this.agent = agent;
        this.queue = queue;
        this.ring = queue.ring();
        this.doorbell = queue.doorbell();
        this.signals = signals;
        this.watchWait = signals.idleStrategy().background().withBusyNanos(0).withParks(1_000, WATCH_PARK_MAX_NANOS);
        this.program = program;
        this.options = options;
        this.processorKernel = program.module().kernel(CudaResidentProgram.PROCESSOR);
        this.blocks = gridBlocks();
        this.control = agent.allocatePinned(ResidentLayout.CTL_BYTES);
        try {
            this.ctl = control.hostSegment();
            ctl.fill((byte) 0);
            this.mailbox = agent.allocateDevice(ResidentLayout.MAILBOX_BYTES);
        } catch (RuntimeException e) {
            control.close();
            throw e;
        }
        try {
            this.shadowLines = agent.runtime().memory().allocate(agent.svmPool(),
                    ResidentLayout.shadowBytes(queue.size()), ResidentLayout.SHADOW_PIECE_BYTES,
                    MemoryKind.INTERNAL, -1L, 0, null);
        } catch (RuntimeException e) {
            mailbox.close();
            control.close();
            throw e;
        }
        this.shadow = new ResidentShadow(queue, shadowLines.segment(), watchWait);
        this.thread = Thread.ofPlatform().daemon().name("hsa4j-cuda" + agent.info().ordinal() + "-rq" + queue.id())
                .unstarted(this);
    }

    private int gridBlocks() {
        CudaContext ctx = agent.context();
        CudaDriver d = ctx.driver();
        ctx.enter();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment n = a.allocate(JAVA_INT);
            MemorySegment f = processorKernel.function(ctx.generation());
            int rc = d.cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, ResidentLayout.BLOCK, 0);
            if (rc == CudaDriver.MISSING) {
                throw new HsaException(HsaStatus.INCOMPATIBLE_ARGUMENTS, agent.name() + ": the driver lacks "
                        + "cuOccupancyMaxActiveBlocksPerMultiprocessor or cuLaunchCooperativeKernel, which a resident queue needs");
            }
            d.check(rc, "cuOccupancyMaxActiveBlocksPerMultiprocessor(" + CudaResidentProgram.PROCESSOR + ")");
            int perSm = n.get(JAVA_INT, 0);
            if (perSm < 1) {
                throw new HsaException(HsaStatus.INCOMPATIBLE_ARGUMENTS, agent.name() + ": no block of "
                        + ResidentLayout.BLOCK + " threads of the resident processor fits on an SM");
            }
            int fit = perSm * agent.info().multiprocessors();
            int want = options.maxBlocks() > 0 ? options.maxBlocks() : agent.info().multiprocessors();
            return Math.max(1, Math.min(fit, want));
        } finally {
            ctx.exit();
        }
    }

    @Override
    public Queue queue() {
        return queue;
    }

    /** Blocks of the processor grid. */
    int blocks() {
        return blocks;
    }

    /** Grids launched so far (the first and every relaunch). */
    long launches() {
        return launches.get();
    }

    /** Times the grid parked idle. */
    long parks() {
        return parks.get();
    }

    /** The state the grid last stored (a {@code ResidentLayout.STATE_*}); after the control block was freed, its last value. */
    int state() {
        try {
            return (int) INT.getVolatile(ctl, ResidentLayout.CTL_STATE);
        } catch (IllegalStateException closed) {
            return finalState;   // stored by finish() before it freed the control block
        }
    }

    /** The phase timer of the grids that ended so far (a copy; {@code ResidentLayout.PH_*}, {@link ResidentLayout#phaseReport}). */
    long[] phases() {
        synchronized (phases) {
            return phases.clone();
        }
    }

    /** True while a grid is launched and has not been seen to end. */
    boolean gridLive() {
        return gridLive;
    }

    @Override
    public void start() {
        QueueFactory.observePublish(queue, shadow);   // before the queue is handed out
        doorbell.addWaiter(shadow);
        thread.start();
    }

    /** A grid that did not stop still reads the queue's ring and descriptor: they must not be freed. */
    @Override
    public boolean holdsQueueMemory() {
        return gridLive;
    }

    @Override
    public void stop(long timeoutNanos) {
        stopping = true;
        storeStop();
        LockSupport.unpark(thread);
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void storeStop() {
        INT.setVolatile(ctl, ResidentLayout.CTL_STOP, 1);
    }

    @Override
    public void contextLost(HsaException cause) {
        lost = cause;
        LockSupport.unpark(thread);
    }

    // ---- the monitor --------------------------------------------------------------------------

    @Override
    public void run() {
        boolean launchNow = true;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment args = arena.allocate(JAVA_LONG, PARAMS);
            MemorySegment params = arena.allocate(ADDRESS, PARAMS);
            for (int i = 0; i < PARAMS; i++) {
                params.setAtIndex(ADDRESS, i, args.asSlice(8L * i, 8));
            }
            while (true) {
                if (gridLive) {
                    int rc = watch();   // stores the stop word when stopping or the queue went inactive
                    if (rc == TIMED_OUT) {
                        break;
                    }
                    if (rc == CuResult.SUCCESS) {
                        launchNow = ended();
                    }
                    continue;   // otherwise reported, and the grid is gone
                }
                if (stopping) {
                    break;
                }
                if (queue.state() != QueueState.ACTIVE || lost != null) {
                    idleInError();
                } else if (!launchNow) {
                    launchNow = awaitWork();
                } else {
                    launch(args, params);   // on failure reported: the queue is in the error state
                }
            }
        } catch (Throwable t) {
            HsaException e = new HsaException(HsaStatus.ERROR, "the resident packet processor of queue " + queue.id()
                    + " failed on the host: " + t, t);
            queue.raiseError(e);
        } finally {
            finish();
        }
    }

    /** Launches the grid; false when that failed (reported). */
    private boolean launch(MemorySegment args, MemorySegment params) {
        INT.setVolatile(ctl, ResidentLayout.CTL_STATE, ResidentLayout.STATE_LAUNCHED);
        INT.setVolatile(ctl, ResidentLayout.CTL_ERROR, 0);
        args.setAtIndex(JAVA_LONG, 0, control.address());
        args.setAtIndex(JAVA_LONG, 1, queue.handle());
        args.setAtIndex(JAVA_LONG, 2, queue.baseAddress());
        args.setAtIndex(JAVA_LONG, 3, queue.size());
        args.setAtIndex(JAVA_LONG, 4, mailbox.address());
        args.setAtIndex(JAVA_LONG, 5, options.idleNanos());
        args.setAtIndex(JAVA_LONG, 6, 0L);   // the mailbox's generation after the memset below
        args.setAtIndex(JAVA_LONG, 7, options.sleepMaxNanos());
        args.setAtIndex(JAVA_LONG, 8, ResidentLayout.programKey(program.id()));
        args.setAtIndex(JAVA_LONG, 9, shadowLines.base());
        CudaContext ctx = agent.context();
        CudaDriver d = ctx.driver();
        int gen;
        int rc;
        String what = "cuLaunchCooperativeKernel of the resident processor (" + blocks + " blocks of "
                + ResidentLayout.BLOCK + " threads)";
        ctx.enter();
        try {
            gen = ctx.generation();
            if (streamGeneration != gen) {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment out = a.allocate(ADDRESS);
                    d.check(d.cuStreamCreate(out, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
                    stream = out.get(ADDRESS, 0);
                }
                streamGeneration = gen;
            }
            MemorySegment f = processorKernel.function(gen);
            // a zeroed mailbox (generation 0, the base passed) before every launch, in the stream's order
            rc = d.cuMemsetD8Async(mailbox.address(), (byte) 0, ResidentLayout.MAILBOX_BYTES, stream);
            if (rc != CuResult.SUCCESS) {
                what = "cuMemsetD8Async of the resident processor's mailbox";
            } else {
                rc = d.cuLaunchCooperativeKernel(f, blocks, 1, 1, ResidentLayout.BLOCK, 1, 1, 0, stream, params);
            }
        } catch (HsaException e) {
            ctx.exit();
            fail(e);
            return false;
        }
        ctx.exit();
        if (rc != CuResult.SUCCESS) {
            cudaFailure(rc, gen, what);
            return false;
        }
        gridLive = true;
        launches.incrementAndGet();
        return true;
    }

    private static final int TIMED_OUT = -1;
    private static final int LOST = -2;

    /** Waits (bounded by stop) until the grid ended: SUCCESS, a CUDA error (reported), or TIMED_OUT after a stop. */
    private int watch() {
        Idler idler = watchWait.idler().blocker(this);
        long stopDeadline = 0;
        boolean stopAsked = false;
        while (true) {
            HsaException l = lost;
            if (l != null) {
                gridLive = false;   // the context, and the grid with it, is gone
                return LOST;
            }
            CudaContext ctx = agent.context();
            int rc;
            int gen;
            ctx.enter();
            try {
                gen = ctx.generation();
                rc = gen == streamGeneration ? ctx.driver().cuStreamQuery(stream) : LOST;
            } finally {
                ctx.exit();
            }
            if (rc == LOST) {
                gridLive = false;   // another queue's fault recreated the context: contextLost() says so
                return LOST;
            }
            if (rc == CuResult.SUCCESS) {
                gridLive = false;
                return rc;
            }
            if (rc != CuResult.NOT_READY) {
                gridLive = false;
                cudaFailure(rc, gen, "the resident processor grid (" + blocks + " blocks) after packet "
                        + LONG.getVolatile(ctl, ResidentLayout.CTL_PROCESSED));
                return rc;
            }
            if ((stopping || queue.state() != QueueState.ACTIVE) && !stopAsked) {
                storeStop();
                stopAsked = true;
                stopDeadline = System.nanoTime() + STOP_NANOS;
                idler = watchWait.idler().blocker(this);   // look again at once: the stop is near
            }
            if (stopAsked && System.nanoTime() - stopDeadline > 0) {
                queue.raiseError(new HsaException(HsaStatus.RESOURCE_BUSY, "the resident processor grid of queue " + queue.id()
                        + " did not stop within " + TimeUnit.NANOSECONDS.toMillis(STOP_NANOS) + " ms (state "
                        + ResidentLayout.stateName(state()) + ", read index " + queue.loadReadIndexScacquire()
                        + "): a resident kernel that does not return holds it; its memory stays allocated"));
                return TIMED_OUT;
            }
            idler.idle();
        }
    }

    /** The grid ended: acts on its state; true when it must be launched again at once. */
    private boolean ended() {
        VarHandle.fullFence();
        int state = state();
        finalState = state;
        synchronized (phases) {
            for (int i = 0; i < ResidentLayout.PHASE_COUNT; i++) {
                phases[i] += ctl.get(JAVA_LONG, ResidentLayout.CTL_PHASES + 8L * i);
            }
        }
        switch (state) {
            case ResidentLayout.STATE_PARKED -> {
                parks.incrementAndGet();
                return false;
            }
            case ResidentLayout.STATE_WAITING -> {
                LockSupport.parkNanos(WAITING_PAUSE_NANOS);
                return true;
            }
            case ResidentLayout.STATE_STOPPED -> {
                return false;
            }
            case ResidentLayout.STATE_FAILED -> {
                refused();
                return false;
            }
            default -> {
                fail(new HsaException(HsaStatus.ERROR, "the resident processor grid of queue " + queue.id()
                        + " ended in state " + ResidentLayout.stateName(state) + " without saying why"));
                return false;
            }
        }
    }

    /** The grid refused the packet it names: consume it, raise the queue's error, fail its signal. */
    private void refused() {
        int error = (int) INT.getVolatile(ctl, ResidentLayout.CTL_ERROR);
        int detail = (int) INT.getVolatile(ctl, ResidentLayout.CTL_ERROR_DETAIL);
        long packet = (long) LONG.getVolatile(ctl, ResidentLayout.CTL_ERROR_PACKET);
        HsaException e = new HsaException(ResidentLayout.errorStatus(error), "packet " + packet + " on queue "
                + queue.id() + " (" + agent.name() + ", resident processor): " + ResidentLayout.errorMessage(error, detail));
        long off = queue.slotOffset(packet);
        long completion = ring.get(JAVA_LONG, off + AqlPacket.COMPLETION_SIGNAL);
        AqlPacket.storeInvalid(ring, off);
        queue.storeReadIndexScrelease(packet + 1);
        queue.raiseError(e);
        failSignal(completion, e);
    }

    /** Parked: true when there is work (relaunch); otherwise waits (bounded) for the doorbell to change. */
    private boolean awaitWork() {
        long bell = doorbell.loadScacquire();
        if (queue.loadWriteIndexScacquire() != queue.loadReadIndexScacquire()) {
            return true;
        }
        try {
            doorbell.waitScacquire(SignalCondition.NE, bell, DOORBELL_WAIT_NANOS, WaitState.BLOCKED);
        } catch (HsaException e) {
            LockSupport.parkNanos(DOORBELL_WAIT_NANOS);   // the doorbell went with the queue: the stop follows
        }
        return false;
    }

    /** The queue is in the error state (or the context was lost): fail what is published, wait for the stop. */
    private void idleInError() {
        HsaException l = lost;
        if (l != null) {
            lost = null;
            gridLive = false;
            streamGeneration = -1;
            stream = MemorySegment.NULL;
            fail(new HsaException(l.status(), "queue " + queue.id() + " lost its resident processor when "
                    + agent.name() + " recreated its CUDA context after a fault elsewhere: " + l.getMessage(), l));
        }
        HsaException reason = queue.error() != null ? queue.error()
                : new HsaException(HsaStatus.INVALID_QUEUE, "queue " + queue.id() + " is " + queue.state());
        if (!drainPublished(reason)) {
            try {
                doorbell.waitScacquire(SignalCondition.NE, doorbell.loadScacquire(), DOORBELL_WAIT_NANOS, WaitState.BLOCKED);
            } catch (HsaException e) {
                LockSupport.parkNanos(DOORBELL_WAIT_NANOS);
            }
        }
    }

    private void fail(HsaException e) {
        queue.raiseError(e);
        drainPublished(e);
    }

    /** A CUDA call failed with {@code rc}: the queue's error, published packets failed, the context recovered if poisoned. */
    private void cudaFailure(int rc, int gen, String what) {
        CudaDriver d = agent.driver();
        CudaCallException e = (CudaCallException) CuResult.exception(rc, d.errorName(rc), what + " on " + agent.name()
                + " (queue " + queue.id() + ")");
        // the grid retires completed slots (INVALID, read index) late, so packets below the progress word
        // (every signalled packet completed stores it) may still look published: retired here, so that
        // the drain fails only packets that did not complete
        long read = queue.loadReadIndexScacquire();
        long processed = (long) LONG.getVolatile(ctl, ResidentLayout.CTL_PROCESSED);
        if (processed > read && processed <= queue.loadWriteIndexScacquire()) {
            for (long id = read; id < processed; id++) {
                AqlPacket.storeInvalid(ring, queue.slotOffset(id));
            }
            queue.storeReadIndexScrelease(processed);
        }
        fail(e);
        if (e.poisonsContext()) {
            gridLive = false;
            streamGeneration = -1;
            stream = MemorySegment.NULL;
            agent.recover(gen, e, this);
        }
    }

    private void failSignal(long handle, HsaException e) {
        if (handle != 0) {
            try {
                signals.fromHandle(handle).fail(e);
            } catch (HsaException ignored) {
                try {
                    agent.runtime().signals().fromHandle(handle).fail(e);
                } catch (HsaException alsoIgnored) {
                    // the packet named no live signal: nobody to tell
                }
            }
        }
    }

    /** Fails and consumes every published packet from the read index; only while no grid runs. */
    @Override
    public boolean drainPublished(HsaException reason) {
        if (gridLive) {
            return false;   // the grid owns the read index
        }
        boolean any = false;
        long read = queue.loadReadIndexScacquire();
        while (true) {
            long off = queue.slotOffset(read);
            int word = AqlPacket.loadHeaderWordAcquire(ring, off);
            if (PacketHeader.typeCode(word) == PacketType.INVALID.code()) {
                return any;
            }
            long completion = ring.get(JAVA_LONG, off + AqlPacket.COMPLETION_SIGNAL);
            AqlPacket.storeInvalid(ring, off);
            read++;
            queue.storeReadIndexScrelease(read);
            failSignal(completion, reason);
            any = true;
        }
    }

    /** On exit: stops the shadow's copies; frees the stream, control block, mailbox and shadow ring unless a grid may still run. */
    private void finish() {
        doorbell.removeWaiter(shadow);
        boolean shadowQuiet = shadow.close();
        if (gridLive) {
            return;   // reported by watch(): freeing under a running grid would fault it
        }
        if (shadowQuiet) {
            try {
                agent.runtime().memory().release(shadowLines);
            } catch (RuntimeException e) {
                // the runtime shut down first: its memory went with it
            }
        }
        finalState = state();
        if (PRINT_PHASES) {
            System.err.println("hsa4j resident processor, queue " + queue.id() + ", " + launches.get() + " launches: "
                    + ResidentLayout.phaseReport(phases()));
        }
        CudaContext ctx = agent.context();
        try {
            ctx.enter();
        } catch (HsaException e) {
            return;   // the agent is closed: its context took the stream and memory with it
        }
        try {
            if (streamGeneration == ctx.generation()) {
                ctx.driver().cuStreamDestroy(stream);
            }
        } finally {
            ctx.exit();
        }
        try {
            mailbox.close();
            control.close();
        } catch (RuntimeException e) {
            // the context died with a sticky error, and the memory with it
        }
    }

    @Override
    public String toString() {
        return "CudaResidentProcessor[queue " + queue.id() + ", " + blocks + " blocks, " + program + "]";
    }
}
