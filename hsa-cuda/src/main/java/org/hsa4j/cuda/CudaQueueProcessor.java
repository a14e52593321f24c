package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.cuda.driver.CuResult;
import org.hsa4j.cuda.driver.CudaCallException;
import org.hsa4j.cuda.driver.CudaDriver;
import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;
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
 * The packet processor of one queue of a {@link CudaAgent}: a host thread that plays the GPU's
 * command processor for this stage.
 *
 * <p><b>Loop.</b> Read the doorbell, then the header of the packet at the read index (acquire). An
 * INVALID header means nothing is published: complete what finished, or wait on the doorbell for a
 * value other than the one read (bounded, so stop is seen). A published packet is decoded by
 * {@link PacketTranslation}, launched into the queue's CUDA stream with its kernarg segment as one
 * buffer, and followed by an event; then it is consumed (slot INVALID, read index released).
 * Completion runs in order: the oldest event that {@code cuEventQuery} reports done gets its
 * release fence and its completion signal decremented.
 *
 * <p><b>Ordering.</b> One stream per queue runs kernels in packet order, so the barrier bit costs
 * nothing on the device; on the host it holds the packet until every earlier one completed, which
 * is what the bit promises for barrier packets and signal effects. A SYSTEM or AGENT release fence
 * is a full fence after the event completed and before the signal changes: the event's completion
 * means the kernel's writes to pinned and managed memory are visible to the host. An acquire fence
 * needs nothing more: the launch is issued after the header's acquire load.
 *
 * <p><b>Barrier-AND/OR</b> read their dependency signals (the runtime's, completed by anyone) and
 * poll with a bounded back-off while they wait, completing kernels meanwhile. AGENT_DISPATCH and
 * unknown types are rejected with INVALID_PACKET_FORMAT on the queue's error callback.
 *
 * <p><b>Faults.</b> A launch or event that returns a sticky error fails this queue (MEMORY_FAULT or
 * EXCEPTION via {@link CuResult#toStatus}) and its in-flight signals, then asks the agent to
 * recreate the context; other queues learn through {@link #contextLost}.
 */
final class CudaQueueProcessor implements Runnable, CudaQueueServer {
    private static final int CU_STREAM_NON_BLOCKING = 0x1;
    private static final int CU_EVENT_DISABLE_TIMING = 0x2;
    private static final long DOORBELL_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_PARK_NANOS = 50_000;

    private record InFlight(long index, MemorySegment event, Signal completion, int release, CudaKernel kernel) {
        String what(long queueId) {
            return "kernel " + kernel.symbol() + " of packet " + index + " on queue " + queueId;
        }
    }

    private final CudaAgent agent;
    private final Queue queue;
    private final MemorySegment ring;
    private final Signal doorbell;
    private final SignalManager signals;
    private final Thread thread;
    private final java.util.function.LongFunction<CudaKernel> kernels;
    private final ArrayDeque<InFlight> inflight = new ArrayDeque<>();
    /**
     * True while the stream holds launches no event covers yet: packets without a completion
     * signal record no event (nobody waits for them), and the stream's order already runs later
     * kernels after them; an event is recorded only when something must see them finish (a later
     * barrier packet with the barrier bit, or the queue's end).
     */
    private boolean unfenced;
    private long unfencedIndex;
    private CudaKernel unfencedKernel;
    private final ArrayDeque<MemorySegment> freeEvents = new ArrayDeque<>();
    private volatile boolean stopping;
    private volatile HsaException lost;
    private MemorySegment stream = MemorySegment.NULL;
    private int streamGeneration = -1;
    private final HostRingCursor cursor;
    /** How the processor waits for in-flight kernels: the runtime's strategy, parks capped at {@link #MAX_PARK_NANOS}. */
    private final IdleStrategy inflightWait;
    /** The current wait for in-flight kernels, or null after progress (a new wait starts spinning again). */
    private Idler idler;
    // per-thread launch buffers
    private Arena arena;
    private MemorySegment extra;
    private MemorySegment kernargSize;
    private MemorySegment out;

    CudaQueueProcessor(CudaAgent agent, Queue queue) {
        this.agent = agent;
        this.queue = queue;
        this.ring = queue.ring();
        this.doorbell = queue.doorbell();
        this.signals = agent.runtime().signals();
        this.cursor = new HostRingCursor(queue, signals);
        this.inflightWait = signals.idleStrategy();
        this.kernels = agent::kernelObject;
        this.thread = Thread.ofPlatform().daemon().name("hsa4j-cuda" + agent.info().ordinal() + "-q" + queue.id())
                .unstarted(this);
    }

    @Override
    public Queue queue() {
        return queue;
    }

    @Override
    public void start() {
        thread.start();
    }

    /** Stops the thread within {@code timeoutNanos} (not when called from it: an error callback may destroy its queue). */
    @Override
    public void stop(long timeoutNanos) {
        stopping = true;
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

    /** The agent recreated the context after another queue's fault: this queue's stream and work are gone. */
    @Override
    public void contextLost(HsaException cause) {
        lost = cause;
        LockSupport.unpark(thread);
    }

    @Override
    public void run() {
        arena = Arena.ofConfined();
        extra = arena.allocate(ADDRESS, 5);
        kernargSize = arena.allocate(JAVA_LONG);
        out = arena.allocate(ADDRESS);
        extra.setAtIndex(ADDRESS, 0, MemorySegment.ofAddress(1));   // CU_LAUNCH_PARAM_BUFFER_POINTER
        extra.setAtIndex(ADDRESS, 2, MemorySegment.ofAddress(2));   // CU_LAUNCH_PARAM_BUFFER_SIZE
        extra.setAtIndex(ADDRESS, 3, kernargSize);
        extra.setAtIndex(ADDRESS, 4, MemorySegment.NULL);          // CU_LAUNCH_PARAM_END
        try {
            while (!stopping) {
                step();
            }
        } catch (Throwable t) {
            queue.raiseError(new HsaException(HsaStatus.ERROR, "the CUDA packet processor of queue " + queue.id()
                    + " failed: " + t, t));
            failInflight(new HsaException(HsaStatus.ERROR, "the CUDA packet processor failed: " + t, t));
        } finally {
            finish();
            arena.close();
        }
    }

    private void step() {
        HsaException l = lost;
        if (l != null) {
            lost = null;
            HsaException e = new HsaException(l.status(), "queue " + queue.id() + " lost its work when " + agent.name()
                    + " recreated its CUDA context after a fault elsewhere: " + l.getMessage(), l);
            queue.raiseError(e);
            failInflight(e);
            streamGeneration = -1;
            stream = MemorySegment.NULL;
            freeEvents.clear();
            unfenced = false;
        }
        if (queue.state() != QueueState.ACTIVE) {
            boolean progress = poll();
            HsaException reason = queue.error() != null ? queue.error()
                    : new HsaException(HsaStatus.INVALID_QUEUE, "queue " + queue.id() + " is " + queue.state());
            progress |= cursor.drainPublished(reason);
            if (!progress) {
                waitForWork(doorbell.loadScacquire());
            }
            return;
        }
        long bell = doorbell.loadScacquire();
        long off = cursor.offset();
        int word = AqlPacket.loadHeaderWordAcquire(ring, off);
        int type = PacketHeader.typeCode(word);
        if (type == PacketType.INVALID.code()) {
            if (!poll()) {
                waitForWork(bell);
            }
            return;
        }
        // a kernel dispatch with the barrier bit needs no host wait: its stream starts it only after
        // every kernel launched before it has finished (barrier packets are done on the host in order)
        if (PacketHeader.barrier(word) && type != PacketType.KERNEL_DISPATCH.code()) {
            if (unfenced && !fence()) {
                return;
            }
            if (!inflight.isEmpty()) {
                if (!poll()) {
                    backOff();
                }
                return;
            }
        }
        String problem = PacketTranslation.fenceProblem(word);
        if (problem != null) {
            reject(off, HsaStatus.INVALID_PACKET_FORMAT, problem);
            return;
        }
        if (type == PacketType.KERNEL_DISPATCH.code()) {
            dispatch(off, word);
        } else if (type == PacketType.BARRIER_AND.code() || type == PacketType.BARRIER_OR.code()) {
            if (!barrier(off, word, type == PacketType.BARRIER_AND.code())) {
                if (!poll()) {
                    backOff();
                }
            }
        } else if (type == PacketType.AGENT_DISPATCH.code()) {
            reject(off, HsaStatus.INVALID_PACKET_FORMAT, agent.name() + " does not run agent dispatch packets");
        } else {
            reject(off, HsaStatus.INVALID_PACKET_FORMAT, type == PacketType.VENDOR_SPECIFIC.code()
                    ? "vendor-specific packets are not supported" : "unknown packet type " + type);
        }
    }

    // ---- kernel dispatch ------------------------------------------------------------------------

    private void dispatch(long off, int word) {
        PacketTranslation.Launch l;
        try {
            l = PacketTranslation.translate(ring, off, word, agent.limits(), kernels);
        } catch (HsaException e) {
            reject(off, e.status(), e.getMessage());
            return;
        }
        long completionHandle = PacketTranslation.completionSignal(ring, off);
        Signal completion = null;
        if (completionHandle != 0) {
            try {
                completion = signals.fromHandle(completionHandle);
            } catch (HsaException e) {
                reject(off, HsaStatus.INVALID_SIGNAL, "completion signal: " + e.getMessage());
                return;
            }
        }
        MemorySegment kernarg = MemorySegment.NULL;
        if (l.kernargBytes() > 0) {
            try {
                kernarg = agent.hostBytes(l.kernargAddress(), l.kernargBytes());
            } catch (RuntimeException e) {
                reject(off, HsaStatus.INVALID_PACKET_FORMAT, String.format("kernarg segment of %d bytes at 0x%x is not "
                        + "host-visible memory (%s)", l.kernargBytes(), l.kernargAddress(), e.getMessage()));
                return;
            }
        }
        CudaContext ctx = agent.context();
        CudaDriver d = ctx.driver();
        int gen;
        int rc;
        MemorySegment event;
        ctx.enter();
        try {
            gen = ctx.generation();
            ensureStream(gen);
            MemorySegment f = l.kernel().function(gen, l.dynamicShared(), d);
            MemorySegment ex = MemorySegment.NULL;
            if (l.kernargBytes() > 0) {
                extra.setAtIndex(ADDRESS, 1, kernarg);
                kernargSize.set(JAVA_LONG, 0, l.kernargBytes());
                ex = extra;
            }
            rc = d.cuLaunchKernel(f, l.blocksX(), l.blocksY(), l.blocksZ(), l.threadsX(), l.threadsY(), l.threadsZ(),
                    l.dynamicShared(), stream, MemorySegment.NULL, ex);
            event = null;
            if (rc == CuResult.SUCCESS && completion != null) {
                event = takeEvent();
                rc = d.cuEventRecord(event, stream);
            }
        } catch (HsaException e) {
            ctx.exit();
            reject(off, e.status(), "kernel " + l.kernel().symbol() + ": " + e.getMessage());
            return;
        }
        ctx.exit();
        if (rc != CuResult.SUCCESS) {
            failure(off, rc, gen, "cuLaunchKernel of kernel " + l.kernel().symbol() + " of packet " + cursor.readIndex()
                    + " on queue " + queue.id());
            return;
        }
        consume(off);
        if (completion != null) {
            completion.recordStart(agent.runtime().timestamp());
        }
        if (event != null) {
            inflight.add(new InFlight(cursor.readIndex() - 1, event, completion, PacketHeader.releaseScopeCode(word), l.kernel()));
            unfenced = false;   // the stream runs the earlier launches first: this event covers them
        } else {
            unfenced = true;
            unfencedIndex = cursor.readIndex() - 1;
            unfencedKernel = l.kernel();
        }
        idler = null;
    }

    /**
     * Records an event behind the launches no event covers yet, so that waiting for the in-flight
     * work waits for them too; false when the record failed (the failure is reported).
     */
    private boolean fence() {
        CudaContext ctx = agent.context();
        CudaDriver d = ctx.driver();
        int gen;
        int rc;
        MemorySegment event;
        ctx.enter();
        try {
            gen = ctx.generation();
            if (gen != streamGeneration) {
                unfenced = false;   // the stream died with its context: contextLost() reports it
                return false;
            }
            event = takeEvent();
            rc = d.cuEventRecord(event, stream);
        } finally {
            ctx.exit();
        }
        unfenced = false;
        if (rc != CuResult.SUCCESS) {
            failure(-1, rc, gen, "cuEventRecord behind packet " + unfencedIndex + " on queue " + queue.id());
            return false;
        }
        inflight.add(new InFlight(unfencedIndex, event, null, 0, unfencedKernel));
        return true;
    }

    private void ensureStream(int gen) {
        if (streamGeneration != gen) {
            CudaDriver d = agent.driver();
            d.check(d.cuStreamCreate(out, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
            stream = out.get(ADDRESS, 0);
            streamGeneration = gen;
            freeEvents.clear();
        }
    }

    private MemorySegment takeEvent() {
        MemorySegment e = freeEvents.poll();
        if (e != null) {
            return e;
        }
        CudaDriver d = agent.driver();
        d.check(d.cuEventCreate(out, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
        return out.get(ADDRESS, 0);
    }

    /** Completes finished work in order; true when something completed. */
    private boolean poll() {
        if (inflight.isEmpty()) {
            return false;
        }
        CudaContext ctx = agent.context();
        CudaDriver d = ctx.driver();
        boolean progress = false;
        while (!inflight.isEmpty()) {
            InFlight w = inflight.peek();
            int rc;
            int gen;
            ctx.enter();
            try {
                gen = ctx.generation();
                if (gen != streamGeneration) {
                    return progress;   // contextLost() is on its way
                }
                rc = d.cuEventQuery(w.event());
            } finally {
                ctx.exit();
            }
            if (rc == CuResult.NOT_READY) {
                break;
            }
            if (rc != CuResult.SUCCESS) {
                failure(-1, rc, gen, w.what(queue.id()));
                return true;
            }
            inflight.poll();
            freeEvents.push(w.event());
            if (w.release() != 0) {
                VarHandle.fullFence();
            }
            Signal s = w.completion();
            if (s != null) {
                s.recordEnd(agent.runtime().timestamp());
                s.subtractScrelease(1);
            }
            progress = true;
        }
        if (progress) {
            idler = null;
        }
        return progress;
    }

    /**
     * A CUDA call for this queue failed with {@code rc}: the queue's error callback gets the mapped
     * status, the packet at {@code off} (if any) and in-flight work fail, and a sticky error makes
     * the agent try to recreate the context (it is lost for good when CUDA refuses: see
     * {@link CudaAgent#isLost()}).
     */
    private void failure(long off, int rc, int gen, String what) {
        CudaDriver d = agent.driver();
        CudaCallException e = (CudaCallException) CuResult.exception(rc, d.errorName(rc), what + " on " + agent.name());
        if (off >= 0) {
            cursor.fail(off, e);
        } else {
            queue.raiseError(e);
        }
        failInflight(e);
        if (e.poisonsContext()) {
            streamGeneration = -1;
            stream = MemorySegment.NULL;
            freeEvents.clear();
            unfenced = false;
            agent.recover(gen, e, this);
        }
    }

    private void failInflight(HsaException e) {
        InFlight w;
        while ((w = inflight.poll()) != null) {
            if (w.completion() != null) {
                w.completion().fail(e);
            }
        }
    }

    // ---- barriers -------------------------------------------------------------------------------

    /** Completes the barrier packet at {@code off} if its dependencies allow: true when it is done (or rejected). */
    private boolean barrier(long off, int word, boolean and) {
        CudaBarrierPacket.Outcome o = CudaBarrierPacket.evaluate(ring, off, and, signals);
        if (o.problem() != null) {
            reject(off, o.status(), o.problem());
            return true;
        }
        if (!o.ready()) {
            return false;
        }
        consume(off);
        CudaBarrierPacket.complete(word, o.completion(), agent.runtime().timestamp());
        idler = null;
        return true;
    }

    // ---- consuming, rejecting, draining ---------------------------------------------------------

    private void consume(long off) {
        cursor.consume(off);
    }

    /** Consumes the packet at {@code off}, raises the queue's error, then fails the packet's completion signal. */
    private void reject(long off, HsaStatus status, String problem) {
        cursor.fail(off, new HsaException(status, "packet " + cursor.readIndex() + " on queue " + queue.id() + " ("
                + agent.name() + "): " + problem));
    }

    /** Fails and consumes every published packet; true when there was one. */
    @Override
    public boolean drainPublished(HsaException reason) {
        return cursor.drainPublished(reason);
    }

    // ---- waiting --------------------------------------------------------------------------------

    private void waitForWork(long bell) {
        if (!inflight.isEmpty()) {
            backOff();
            return;
        }
        idler = null;
        try {
            doorbell.waitScacquire(SignalCondition.NE, bell, DOORBELL_WAIT_NANOS, WaitState.BLOCKED);
        } catch (HsaException e) {
            // the doorbell was destroyed with the queue: the stop flag follows
            backOff();
        }
    }

    private void backOff() {
        if (idler == null) {
            idler = inflightWait.idler().blocker(this);
        }
        idler.idle(MAX_PARK_NANOS);
    }

    /** On exit: waits (bounded) for in-flight kernels, fails what did not finish, frees the stream and events. */
    private void finish() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        if (unfenced) {
            try {
                fence();
            } catch (RuntimeException e) {
                unfenced = false;   // the context is gone: nothing left to wait for
            }
        }
        while (!inflight.isEmpty() && System.nanoTime() - deadline < 0 && streamGeneration == agent.context().generation()) {
            try {
                if (!poll()) {
                    backOff();
                }
            } catch (RuntimeException e) {
                break;
            }
        }
        failInflight(new HsaException(HsaStatus.INVALID_QUEUE, "queue " + queue.id() + " was destroyed"));
        CudaContext ctx = agent.context();
        try {
            ctx.enter();
        } catch (HsaException e) {
            return;   // the agent is closed: its context took the stream with it
        }
        try {
            if (streamGeneration == ctx.generation()) {
                CudaDriver d = ctx.driver();
                for (MemorySegment e : freeEvents) {
                    d.cuEventDestroy(e);
                }
                d.cuStreamDestroy(stream);
            }
        } finally {
            ctx.exit();
        }
    }
}
