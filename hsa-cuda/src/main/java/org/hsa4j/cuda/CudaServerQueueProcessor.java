package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.cuda.CudaServerProtocol.Frame;
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
 * The packet processor of a queue that a {@link CudaAgent} serves through a device server
 * ({@link CudaDeviceClient}) after its in-process context died: a host thread in the parent, like
 * {@link CudaQueueProcessor}, whose CUDA calls run in the server.
 *
 * <p><b>Why the parent keeps the processor.</b> Packets, doorbells and signals stay where they are:
 * completion and dependency signals are the runtime's objects in this JVM (any of them, not only
 * device-reachable ones), so a completion decrements the signal here and wakes its parked waiters at
 * once; the server needs none of the runtime and can die without taking any of it along. What
 * crosses the channel per kernel dispatch is the translated launch and its kernarg bytes (the driver
 * copies them at launch anyway); the kernel's data is SVM, the same bytes in both processes.
 *
 * <p><b>Loop.</b> Packets run in order. A kernel dispatch is translated ({@link PacketTranslation}),
 * its kernel object looked up in the agent's table and its function in the server's
 * ({@link CudaServerKernels}, loading the kept code object there on first use), and launched into
 * this queue's server stream without waiting; every launch is reported back (DONE or ERROR) on the
 * client's reader thread, which applies the release fence and decrements the completion signal, in
 * launch order (the server reports a stream's events in order). A barrier packet, or any packet with
 * the barrier bit but a kernel dispatch (the stream orders those), waits until every earlier launch
 * was reported. Barrier-AND/OR read their dependency signals and back off while they wait.
 *
 * <p><b>Errors.</b> An ERROR report (a kernel fault is MEMORY_FAULT) goes to the queue's error
 * callback and fails the packet's signal, both on this processor's thread (a callback may destroy
 * the queue, which must not block the client's reader); the queue is then in the error state and its
 * later packets are failed and consumed, as HSA has it. The server's death fails what it had pending
 * the same way.
 */
final class CudaServerQueueProcessor implements Runnable, CudaQueueServer {
    private static final long DOORBELL_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long BACK_OFF_NANOS = 50_000;
    private static final long FINISH_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final CudaAgent agent;
    private final Queue queue;
    private final MemorySegment ring;
    private final Signal doorbell;
    private final SignalManager signals;
    private final CudaDeviceClient server;
    private final Thread thread;
    /** Launches sent and not yet reported. */
    private final AtomicLong inflight = new AtomicLong();
    /**
     * Failures reported on the client's reader thread, raised on this thread: a user's error callback
     * may destroy the queue, which waits for this thread and for the reader's next reply.
     */
    private final ConcurrentLinkedQueue<Runnable> failures = new ConcurrentLinkedQueue<>();
    private final IdleStrategy idleStrategy;
    /** The current wait, or null after progress (a new wait starts spinning again). */
    private Idler idler;
    private volatile boolean stopping;
    private long stream;
    private final HostRingCursor cursor;

    CudaServerQueueProcessor(CudaAgent agent, Queue queue, CudaDeviceClient server) {
        this.agent = agent;
        this.queue = queue;
        this.ring = queue.ring();
        this.doorbell = queue.doorbell();
        this.signals = agent.runtime().signals();
        this.cursor = new HostRingCursor(queue, signals);
        this.idleStrategy = signals.idleStrategy();
        this.server = server;
        // the stream first: a queue the server cannot serve is refused at creation, not later
        this.stream = server.call(new Frame(CudaServerProtocol.STREAM, 0)).at(0);
        this.thread = Thread.ofPlatform().daemon().name("hsa4j-cuda" + agent.info().ordinal() + "-server"
                + server.number() + "-q" + queue.id()).unstarted(this);
    }

    /** The server this queue's kernels run in. */
    CudaDeviceClient server() {
        return server;
    }

    @Override
    public Queue queue() {
        return queue;
    }

    @Override
    public void start() {
        thread.start();
    }

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

    /** The server died: what it had pending failed already (each launch's report); later packets fail with the queue's error. */
    @Override
    public void contextLost(HsaException cause) {
        failures.add(() -> queue.raiseError(cause));
        LockSupport.unpark(thread);
    }

    @Override
    public void run() {
        try {
            while (!stopping) {
                step();
            }
        } catch (Throwable t) {
            queue.raiseError(new HsaException(HsaStatus.ERROR, "the device-server packet processor of queue " + queue.id()
                    + " failed: " + t, t));
        } finally {
            finish();
        }
    }

    private void step() {
        raiseFailures();
        if (stopping) {
            return;   // an error callback destroyed the queue: its ring may be gone
        }
        long bell = doorbell.loadScacquire();
        if (queue.state() != QueueState.ACTIVE) {
            HsaException reason = queue.error() != null ? queue.error()
                    : new HsaException(HsaStatus.INVALID_QUEUE, "queue " + queue.id() + " is " + queue.state());
            if (!drainPublished(reason)) {
                waitForWork(bell);
            }
            return;
        }
        long off = cursor.offset();
        int word = AqlPacket.loadHeaderWordAcquire(ring, off);
        int type = PacketHeader.typeCode(word);
        if (type == PacketType.INVALID.code()) {
            waitForWork(bell);
            return;
        }
        if (PacketHeader.barrier(word) && type != PacketType.KERNEL_DISPATCH.code() && inflight.get() != 0) {
            backOff();   // the reports unpark this thread
            return;
        }
        String problem = PacketTranslation.fenceProblem(word);
        if (problem != null) {
            reject(off, HsaStatus.INVALID_PACKET_FORMAT, problem);
        } else if (type == PacketType.KERNEL_DISPATCH.code()) {
            dispatch(off, word);
        } else if (type == PacketType.BARRIER_AND.code() || type == PacketType.BARRIER_OR.code()) {
            if (!barrier(off, word, type == PacketType.BARRIER_AND.code())) {
                backOff();
            }
        } else if (type == PacketType.AGENT_DISPATCH.code()) {
            reject(off, HsaStatus.INVALID_PACKET_FORMAT, agent.name() + " does not run agent dispatch packets");
        } else {
            reject(off, HsaStatus.INVALID_PACKET_FORMAT, type == PacketType.VENDOR_SPECIFIC.code()
                    ? "vendor-specific packets are not supported" : "unknown packet type " + type);
        }
    }

    private void dispatch(long off, int word) {
        PacketTranslation.Launch l;
        Signal completion = null;
        byte[] kernarg = new byte[0];
        long function;
        try {
            l = PacketTranslation.translate(ring, off, word, agent.limits(), agent::kernelObject);
            long handle = PacketTranslation.completionSignal(ring, off);
            if (handle != 0) {
                try {
                    completion = signals.fromHandle(handle);
                } catch (HsaException e) {
                    reject(off, HsaStatus.INVALID_SIGNAL, "completion signal: " + e.getMessage());
                    return;
                }
            }
            if (l.kernargBytes() > 0) {
                try {
                    kernarg = agent.hostBytes(l.kernargAddress(), l.kernargBytes()).toArray(JAVA_BYTE);
                } catch (RuntimeException e) {
                    reject(off, HsaStatus.INVALID_PACKET_FORMAT, String.format("kernarg segment of %d bytes at 0x%x is "
                            + "not host-visible memory (%s)", l.kernargBytes(), l.kernargAddress(), e.getMessage()));
                    return;
                }
            }
            function = server.kernels().function(l.kernel().module().codeObject(), l.kernel().symbol());
        } catch (HsaException e) {
            reject(off, e.status(), e.getMessage());
            return;
        }
        long index = cursor.readIndex();
        consume(off);
        if (completion != null) {
            completion.recordStart(agent.runtime().timestamp());
        }
        Signal signal = completion;
        int release = PacketHeader.releaseScopeCode(word);
        String what = "kernel " + l.kernel().symbol() + " of packet " + index + " on queue " + queue.id();
        idler = null;
        inflight.incrementAndGet();
        server.launch(new long[] {stream, function, l.blocksX(), l.blocksY(), l.blocksZ(), l.threadsX(), l.threadsY(),
                l.threadsZ(), l.dynamicShared(), 1}, kernarg, e -> completed(signal, release, what, e));
    }

    /** A launch's report, on the client's reader thread, in launch order. */
    private void completed(Signal completion, int release, String what, HsaException e) {
        try {
            if (e == null) {
                if (release != 0) {
                    VarHandle.fullFence();
                }
                if (completion != null) {
                    completion.recordEnd(agent.runtime().timestamp());
                    completion.subtractScrelease(1);
                }
            } else {
                HsaException failed = new HsaException(e.status(), what + ": " + e.getMessage(), e);
                failures.add(() -> {
                    queue.raiseError(failed);
                    if (completion != null) {
                        completion.fail(failed);
                    }
                });
            }
        } finally {
            inflight.decrementAndGet();
            LockSupport.unpark(thread);
        }
    }

    private void raiseFailures() {
        Runnable r;
        while ((r = failures.poll()) != null) {
            r.run();
        }
    }

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
        return true;
    }

    private void consume(long off) {
        idler = null;
        cursor.consume(off);
    }

    private void reject(long off, HsaStatus status, String problem) {
        idler = null;
        cursor.fail(off, new HsaException(status, "packet " + cursor.readIndex() + " on queue " + queue.id() + " ("
                + agent.name() + ", " + server + "): " + problem));
    }

    @Override
    public boolean drainPublished(HsaException reason) {
        boolean any = cursor.drainPublished(reason);
        if (any) {
            idler = null;
        }
        return any;
    }

    private void waitForWork(long bell) {
        if (inflight.get() != 0) {
            backOff();
            return;
        }
        idler = null;
        try {
            doorbell.waitScacquire(SignalCondition.NE, bell, DOORBELL_WAIT_NANOS, WaitState.BLOCKED);
        } catch (HsaException e) {
            backOff();   // the doorbell was destroyed with the queue: stop follows
        }
    }

    /** Waits a little through the runtime's idle strategy (parks capped at {@link #BACK_OFF_NANOS}; a report unparks). */
    private void backOff() {
        if (idler == null) {
            idler = idleStrategy.idler().blocker(this);
        }
        idler.idle(BACK_OFF_NANOS);
    }

    /** On exit: waits (bounded) for the launches in flight, then destroys the stream in the server. */
    private void finish() {
        long deadline = System.nanoTime() + FINISH_NANOS;
        while (inflight.get() != 0 && server.dead() == null && System.nanoTime() - deadline < 0) {
            backOff();
        }
        if (server.dead() == null && inflight.get() == 0) {
            try {
                server.call(new Frame(CudaServerProtocol.DESTROY_STREAM, 0, stream));
            } catch (HsaException ignored) {
                // the server died meanwhile: the stream went with it
            }
        }
        raiseFailures();
    }
}
