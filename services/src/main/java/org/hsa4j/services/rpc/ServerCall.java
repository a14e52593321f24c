package org.hsa4j.services.rpc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Future;

import org.hsa4j.memory.Svm;

/**
 * The server side of one call, as a {@link RpcService} sees it, whatever carried it: an RPC port
 * (many lanes, payloads in chunks) or an agent dispatch packet (one lane, payloads by pointer).
 *
 * <p>Read the lanes' arguments with {@link #arg}, exchange payloads with {@link #recvN()} and
 * {@link #sendN}, set results with {@link #result}. The call ends once, with {@link #finish}: by
 * the server when the service returns (OK), or by the service itself, possibly later and from
 * another thread after {@link #defer()} (a network reply, a timer).
 *
 * <p>A call may also end from outside its service ({@link #abandon}): its caller cancelled it, a
 * deferred call passed its deadline, or the watchdog timed out a stuck service. From then on the
 * service must leave the caller's memory alone: work that finishes later (bytes a recv received,
 * a connection an accept got) goes through {@link #runIfLive}, which runs it only while the call
 * is live and keeps the call from ending from outside while it runs (both hold the call's monitor),
 * so such work either happens before the call ended or not at all, and loses nothing.
 */
public abstract class ServerCall {
    private static final VarHandle FINISHED;

    static {
        try {
            FINISHED = MethodHandles.lookup().findVarHandle(ServerCall.class, "finished", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** 1 once the call ended (compare-and-swap): a field, not an AtomicBoolean, so a call allocates one object less. */
    private volatile int finished;
    private volatile boolean deferred;
    /** The deferred call's deadline timer, cancelled when the call ends. */
    private volatile Future<?> deadline;

    /** The opcode. */
    public abstract int opcode();

    /** The lanes taking part (bit i for lane i). */
    public abstract long laneMask();

    /** The lowest lane of the mask: the lane of a single-lane call. */
    public final int firstLane() {
        return Long.numberOfTrailingZeros(laneMask());
    }

    /** Argument {@code index} (0-7) of {@code lane}. */
    public abstract long arg(int lane, int index);

    /** Argument {@code index} of the first lane. */
    public final long arg(int index) {
        return arg(firstLane(), index);
    }

    /** Sets result {@code index} (0-7) of {@code lane}; sent with the call's last packet. */
    public abstract void result(int lane, int index, long value);

    /** Sets result {@code index} of the first lane. */
    public final void result(int index, long value) {
        result(firstLane(), index, value);
    }

    /**
     * recv_n: the payload each lane sends with send_n, indexed by lane (null outside the mask).
     *
     * @throws CallEndedException when the client cancelled or stopped answering
     */
    public abstract byte[][] recvN();

    /** recv_n of the first lane. */
    public final byte[] recvNFirstLane() {
        return recvN()[firstLane()];
    }

    /**
     * send_n: sends {@code data[lane]} to each lane of the mask (null sends an empty payload).
     *
     * @throws CallEndedException when the client cancelled or stopped answering
     */
    public abstract void sendN(byte[][] data);

    /** send_n of one payload to the first lane. */
    public final void sendN(byte[] data) {
        byte[][] perLane = new byte[64][];
        perLane[firstLane()] = data;
        sendN(perLane);
    }

    /**
     * The calling agent's view of SVM, for pointer arguments: buffers are read and written with the
     * caller's access rights (memory the caller may not touch faults, as it would in the kernel).
     */
    public abstract Svm svm();

    /** The calling dispatch's kernarg address (its identity), 0 for a host caller. */
    public abstract long callerDispatch();

    /** The calling dispatch's packet id, 0 for a host caller. */
    public abstract long callerPacket();

    /**
     * Keeps the call open after the service returns: the service (or whatever it started) ends it
     * later with {@link #finish}. Until then the caller waits and its port stays taken.
     */
    public final ServerCall defer() {
        deferred = true;
        return this;
    }

    /** True once {@link #defer()} was called. */
    public final boolean isDeferred() {
        return deferred;
    }

    /** True once the call ended. */
    public final boolean isFinished() {
        return finished != 0;
    }

    /**
     * Ends the call with {@code status}, sending the results; only the first call has an effect
     * (true), so a timer and an error path may race safely.
     */
    public final boolean finish(RpcStatus status) {
        if (!FINISHED.compareAndSet(this, 0, 1)) {
            return false;
        }
        try {
            complete(status);
        } finally {
            Future<?> d = deadline;
            if (d != null) {
                d.cancel(false);
            }
        }
        return true;
    }

    /**
     * Runs {@code action} (a write into the caller's memory, a hand-over of a resource, and the
     * {@link #finish} that reports it) only while the call is live, holding the call's monitor so
     * that it cannot end from outside meanwhile: true when it ran, false when the call had ended
     * (the work is then not the caller's any more and must stay where it was).
     */
    public final boolean runIfLive(Runnable action) {
        synchronized (this) {
            if (finished != 0) {
                return false;
            }
            action.run();
            return true;
        }
    }

    /**
     * Ends the call with {@code status} from outside its service (a caller's cancel, a deadline,
     * the watchdog), after a {@link #runIfLive} in progress: true when this ended it, false when it
     * had ended already.
     */
    final boolean abandon(RpcStatus status) {
        synchronized (this) {
            if (finished != 0) {
                return false;
            }
            beforeAbandon();
            return finish(status);
        }
    }

    /** Called under the call's monitor just before {@link #abandon} ends a live call; a transport keeps what its service may still read. */
    void beforeAbandon() {
    }

    /** Arms the deferred call's deadline timer; it is cancelled when the call ends (at once if it ended already). */
    final void deadline(Future<?> timer) {
        deadline = timer;
        if (finished != 0) {
            timer.cancel(false);
        }
    }

    /** Sends the last packet of the call with {@code status}; called once. */
    protected abstract void complete(RpcStatus status);
}
