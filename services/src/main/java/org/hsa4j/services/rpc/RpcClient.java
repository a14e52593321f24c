package org.hsa4j.services.rpc;

import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;
import org.hsa4j.kernel.ServiceCaller;
import org.hsa4j.memory.Svm;
import org.hsa4j.signal.WaitState;

/**
 * Makes RPC calls to the host from kernels (through the work-item's {@link Svm} view) and from
 * host threads (through {@code rt.svm()}). Thread-safe and allocation-light: share one instance.
 *
 * <h2>Ports and back-pressure</h2>
 * A caller takes a free port with a compare-and-swap on its lock, starting at a port chosen by its
 * thread (so a compute unit tends to reuse one port). Ports still busy finishing a fire-and-forget
 * call are skipped. When every port is taken the caller waits holding nothing: it spins a little,
 * then parks with a back-off capped at 1 ms, and a caller releasing a port (or a server thread
 * ending a fire-and-forget call on an unlocked port) unparks one waiter.
 * Since a port holder never waits for another work-item (see {@link RpcCall}), every held port is
 * released after a bounded amount of server work, so waiting callers always progress: any number
 * of work-items may call at once with any number of ports, fewer ports only cost throughput.
 *
 * <h2>Kept ports</h2>
 * A one-shot call ({@link #invoke}, {@link #call}, {@link #invokeBatch}) that ends in the client's
 * turn on its thread's first port keeps the port for that thread's next one-shot call, when no
 * caller waits for a port: the lock stays held and the open-call count stays counted, and the
 * port's keeper slot names the thread ({@link PortSet#keep}). The thread's next call takes the port
 * back with one compare-and-set on that slot, a word no other thread writes unless it takes the
 * port over, and skips the count, the lock's compare-and-set, the lock's release and the look for
 * waiters. A kept port is idle, never held by a call: any caller that finds the ports busy takes a
 * kept one over with the same compare-and-set, and a parked caller counts kept ports as free, so
 * keeping changes nothing about back-pressure or progress; the services' close takes every kept
 * port back. Measured: back-to-back no-op calls about 25 ns faster a call (see docs/SERVICES.md).
 */
public final class RpcClient {
    private static final int CLOSED = -1;
    private static final int INTERRUPTED = -2;
    private static final int NO_PORT = -3;
    /** Default longest wait for a free port before a call ends with {@link RpcStatus#BUSY}. */
    public static final long DEFAULT_PORT_WAIT_NANOS = 30_000_000_000L;

    private final PortSet ports;
    private final WaitState waitState;
    private final long portWaitNanos;

    /** A client of {@code ports} whose calls wait for replies in {@code waitState}, and for a port up to the default limit. */
    public RpcClient(PortSet ports, WaitState waitState) {
        this(ports, waitState, DEFAULT_PORT_WAIT_NANOS);
    }

    /**
     * A client of {@code ports} whose calls wait for replies in {@code waitState}; a call that finds
     * every port taken for {@code portWaitNanos} ends with {@link RpcStatus#BUSY} without being sent.
     */
    public RpcClient(PortSet ports, WaitState waitState, long portWaitNanos) {
        this.ports = Objects.requireNonNull(ports, "ports");
        this.waitState = Objects.requireNonNull(waitState, "waitState");
        if (portWaitNanos < 1) {
            throw new IllegalArgumentException("port wait must be positive, was " + portWaitNanos);
        }
        this.portWaitNanos = portWaitNanos;
    }

    /** The port set this client calls through. */
    public PortSet ports() {
        return ports;
    }

    /** How calls wait for replies: ACTIVE spins 200 us before parking, BLOCKED 10 us. */
    public WaitState waitState() {
        return waitState;
    }

    /** A client of the same ports waiting in {@code state}. */
    public RpcClient withWaitState(WaitState state) {
        return state == waitState ? this : new RpcClient(ports, state, portWaitNanos);
    }

    /** Lanes per port: the most lanes one batched call can carry. */
    public int lanes() {
        return ports.lanes();
    }

    // ---- opening calls --------------------------------------------------------------------------

    /** Opens a call from a kernel work-item: takes a port; the dispatch is recorded as the caller. */
    public RpcCall open(ServiceCaller wi, int opcode, long laneMask) {
        return open(wi.svm(), wi.kernargAddress(), wi.packetId(), opcode, laneMask);
    }

    /** Opens a call from the host (no calling dispatch). */
    public RpcCall open(Svm svm, int opcode, long laneMask) {
        return open(svm, 0, 0, opcode, laneMask);
    }

    /**
     * Opens a call through {@code svm}, recording the calling dispatch (its kernarg address and
     * packet id; 0 for the host) and the agent whose view {@code svm} is: the service touches the
     * call's buffers with that agent's access rights. Waits for a free port; a call opened after
     * the server closed has no port and status {@link RpcStatus#CLOSED}, one whose thread is
     * interrupted while it waits for a port has none and status {@link RpcStatus#CANCELLED}, one
     * that found every port taken for the port wait limit has none and status
     * {@link RpcStatus#BUSY}.
     */
    public RpcCall open(Svm svm, long callerDispatch, long callerPacket, int opcode, long laneMask) {
        return take(svm, callerDispatch, callerPacket, opcode, laneMask, false);
    }

    /**
     * Takes a port for a call. With {@code oneShot} the call object is the port's spare one, reused
     * by every one-shot call on that port (so such a call allocates nothing): only for calls made
     * and closed inside this class, which never hand the object out.
     */
    private RpcCall take(Svm svm, long callerDispatch, long callerPacket, int opcode, long laneMask, boolean oneShot) {
        Objects.requireNonNull(svm, "svm");
        int lanes = ports.lanes();
        long allowed = lanes == 64 ? -1L : (1L << lanes) - 1;
        if (laneMask == 0 || (laneMask & ~allowed) != 0) {
            throw new IllegalArgumentException("lane mask " + Long.toHexString(laneMask) + " must be a non-empty subset of "
                    + lanes + " lanes");
        }
        int agent = svm.agentIndex();
        if (oneShot) {
            RpcCall kept = takeKept(callerDispatch, callerPacket, agent, opcode, laneMask);
            if (kept != null) {
                return kept;
            }
        }
        ports.callOpened();
        while (true) {
            int port = ports.isClosing() ? CLOSED : acquire();
            if (port < 0) {
                ports.callClosed();
                return new RpcCall(this, opcode, laneMask, port == CLOSED ? RpcStatus.CLOSED
                        : port == INTERRUPTED ? RpcStatus.CANCELLED : RpcStatus.BUSY);
            }
            int flag = ports.getInt(ports.portOffset(port) + RpcLayout.CLIENT_FLAG);
            RpcCall call;
            if (!oneShot) {
                call = new RpcCall(this, port, opcode, laneMask, callerDispatch, callerPacket, agent, waitState, flag);
            } else {
                // the spare slot is read and written only by the port's lock holder
                RpcCall spare = ports.spareCalls[port];
                if (spare == null) {
                    call = new RpcCall(this, port, opcode, laneMask, callerDispatch, callerPacket, agent, waitState, flag);
                    ports.spareCalls[port] = call;
                } else {
                    call = spare.reuse(this, opcode, laneMask, callerDispatch, callerPacket, agent, waitState, flag);
                }
            }
            if (call.takeOver()) {
                return call;
            }
            releasePort(port);
        }
    }

    /**
     * A one-shot call on the port this thread kept from its last one (its lock, count and client's
     * turn kept with it), or null when it keeps none or another caller took the port over.
     */
    private RpcCall takeKept(long callerDispatch, long callerPacket, int agent, int opcode, long laneMask) {
        Thread me = Thread.currentThread();
        int port = home(ports.hostPorts());
        if (ports.keeper(port) != me || !ports.takeKept(port, me)) {
            return null;
        }
        int flag = ports.getInt(ports.portOffset(port) + RpcLayout.CLIENT_FLAG);
        RpcCall spare = ports.spareCalls[port];
        if (spare == null) {
            spare = new RpcCall(this, port, opcode, laneMask, callerDispatch, callerPacket, agent, waitState, flag);
            ports.spareCalls[port] = spare;
            return spare;
        }
        return spare.reuse(this, opcode, laneMask, callerDispatch, callerPacket, agent, waitState, flag);
    }

    /**
     * Ends a one-shot call: keeps its port for this thread's next one-shot call when the call ended
     * in the client's turn on the thread's first port, no caller waits for a port and the server is
     * not closing; closes it otherwise.
     */
    private void endOneShot(RpcCall c) {
        int port = c.port();
        if (port >= 0 && port == home(ports.hostPorts()) && c.endedInClientsTurn() && !ports.isClosing()
                && ports.portWaiters.isEmpty()) {
            c.kept();
            ports.keep(port, Thread.currentThread());
            return;
        }
        c.close();
    }

    /** The port a thread tries first: its hashed id mapped onto 0..n-1 by a multiply, not a division. */
    private int home(int n) {
        long id = Thread.currentThread().threadId() * 0x9E3779B97F4A7C15L;
        return (int) ((((id ^ (id >>> 29)) >>> 32) * n) >>> 32);
    }

    /**
     * Takes a free port (lock 0 -> 1, then not still busy on the server side); {@link #CLOSED} when
     * the server closed, {@link #INTERRUPTED} when the thread is interrupted while it waits,
     * {@link #NO_PORT} when every port stayed taken for the port wait limit (exhaustion is a
     * status, never a hang).
     */
    private int acquire() {
        int n = ports.hostPorts(); // device ports are never locked here (see RpcLayout.SET_DEVICE_FIRST)
        int start = home(n);
        Idler idler = null;
        long since = 0;
        while (!ports.isClosing()) {
            for (int i = 0; i < n; i++) {
                int p = start + i;
                if (p >= n) {
                    p -= n;
                }
                long port = ports.portOffset(p);
                long lock = port + RpcLayout.LOCK;
                if (ports.loadIntRelaxed(lock) == 0 && ports.compareExchangeInt(lock, 0, 1) == 0) {
                    if (ports.loadIntAcquire(port + RpcLayout.SERVER_FLAG) == ports.getInt(port + RpcLayout.CLIENT_FLAG)) {
                        return p;
                    }
                    ports.storeIntRelease(lock, 0);
                }
            }
            int taken = takeOverKept(start, n);
            if (taken >= 0) {
                return taken;
            }
            if (ports.isClosing() || ports.isClosed()) {
                return CLOSED;
            }
            if (idler == null) {
                idler = ports.portWait.idler().blocker(this);
                since = System.nanoTime();
            }
            if (idler.nextPhase() == IdleStrategy.Phase.SPIN) {
                idler.idle();
                continue;
            }
            Thread me = Thread.currentThread();
            if (me.isInterrupted()) {
                return INTERRUPTED;
            }
            long left = portWaitNanos - (System.nanoTime() - since);
            if (left <= 0) {
                return NO_PORT;
            }
            if (!idler.parksNext()) {
                idler.idle();
                continue;
            }
            // register, then look once more: releasePort stores the lock and then polls the
            // waiters, and a server handing a port back with a final packet flips its flag and
            // then peeks at them (all volatile), so either they find this thread or this look
            // finds the port; a port unlocked but still on the server's turn is not free
            ports.portWaiters.add(me);
            if (!anyPortFree(n)) {
                idler.idle(left);
            }
            ports.portWaiters.remove(me);
        }
        return CLOSED;
    }

    /**
     * Takes over a port another thread keeps idle (after a look found no free port): its lock and
     * its open-call count come with it, so this caller's own count goes; -1 when none was taken.
     */
    private int takeOverKept(int start, int n) {
        for (int i = 0; i < n; i++) {
            int p = start + i;
            if (p >= n) {
                p -= n;
            }
            if (ports.keeper(p) instanceof Thread keeper && ports.takeKept(p, keeper)) {
                ports.callClosed();
                return p;
            }
        }
        return -1;
    }

    /** True when some port is kept idle, or unlocked and on the client's turn: one this caller could take now. */
    private boolean anyPortFree(int n) {
        if (ports.anyKept()) {
            return true;
        }
        for (int p = 0; p < n; p++) {
            long port = ports.portOffset(p);
            if (ports.loadIntAcquire(port + RpcLayout.LOCK) == 0
                    && ports.loadIntAcquire(port + RpcLayout.SERVER_FLAG) == ports.loadIntAcquire(port + RpcLayout.CLIENT_FLAG)) {
                return true;
            }
        }
        return false;
    }

    /** Ends a call on {@code port}: releases the port (fire-and-forget). */
    void release(int port) {
        try {
            if (!ports.isFreed()) {
                releasePort(port);
            }
        } finally {
            ports.callClosed();
        }
    }

    private void releasePort(int port) {
        if (ports.keeper(port) == PortSet.IN_CALL) {
            ports.unkeep(port);
        }
        ports.storeIntRelease(ports.portOffset(port) + RpcLayout.LOCK, 0);
        Thread waiting = ports.portWaiters.poll();
        if (waiting != null) {
            LockSupport.unpark(waiting);
        }
    }

    // ---- one-shot calls -------------------------------------------------------------------------

    /**
     * One single-lane call from a work-item: up to eight arguments in, result 0 out.
     *
     * @throws RpcException when the call ends with an error status (unknown opcode, service error, ...)
     */
    public long call(ServiceCaller wi, int opcode, long... args) {
        return call(wi.svm(), wi.kernargAddress(), wi.packetId(), opcode, args);
    }

    /** One single-lane call from the host; see {@link #call(ServiceCaller, int, long...)}. */
    public long call(Svm svm, int opcode, long... args) {
        return call(svm, 0, 0, opcode, args);
    }

    private long call(Svm svm, long dispatch, long packet, int opcode, long... args) {
        if (args.length > RpcLayout.LANE_WORDS) {
            throw new IllegalArgumentException("a lane holds 8 arguments, got " + args.length);
        }
        RpcCall c = take(svm, dispatch, packet, opcode, 1L, true);
        try {
            c.stageFirstLane(args, args.length);
            RpcStatus s = c.finish();
            if (s != RpcStatus.OK) {
                throw new RpcException(s, "call " + Opcodes.toString(opcode) + " failed");
            }
            return c.result(0, 0);
        } finally {
            endOneShot(c);
        }
    }

    /**
     * One single-lane call that reports errors as a status instead of throwing: {@code inOut}
     * holds up to eight arguments and receives the eight results when the status is OK.
     */
    public RpcStatus invoke(ServiceCaller wi, int opcode, long[] inOut) {
        return invoke(wi.svm(), wi.kernargAddress(), wi.packetId(), opcode, inOut);
    }

    /** {@link #invoke(ServiceCaller, int, long[])} from the host or with an explicit caller. */
    public RpcStatus invoke(Svm svm, long callerDispatch, long callerPacket, int opcode, long[] inOut) {
        int n = Math.min(inOut.length, RpcLayout.LANE_WORDS);
        RpcCall c = take(svm, callerDispatch, callerPacket, opcode, 1L, true);
        try {
            c.stageFirstLane(inOut, n);
            RpcStatus s = c.finish();
            if (s == RpcStatus.OK) {
                c.readFirstLane(inOut, n);
            }
            return s;
        } finally {
            endOneShot(c);
        }
    }

    /**
     * A batched call: one call carries the lanes of {@code laneMask} (up to {@link #lanes()}), each
     * lane's eight arguments from {@code inOut[lane]}, which receives that lane's eight results when
     * the status is OK. One caller fills all lanes, as one wavefront's lanes share one packet.
     */
    public RpcStatus invokeBatch(Svm svm, long callerDispatch, long callerPacket, int opcode, long laneMask,
                                 long[][] inOut) {
        RpcCall c = take(svm, callerDispatch, callerPacket, opcode, laneMask, true);
        try {
            for (long m = laneMask; m != 0; m &= m - 1) {
                int lane = Long.numberOfTrailingZeros(m);
                long[] a = inOut[lane];
                for (int i = 0; i < Math.min(a.length, RpcLayout.LANE_WORDS); i++) {
                    c.arg(lane, i, a[i]);
                }
            }
            RpcStatus s = c.finish();
            if (s == RpcStatus.OK) {
                for (long m = laneMask; m != 0; m &= m - 1) {
                    int lane = Long.numberOfTrailingZeros(m);
                    long[] a = inOut[lane];
                    for (int i = 0; i < Math.min(a.length, RpcLayout.LANE_WORDS); i++) {
                        a[i] = c.result(lane, i);
                    }
                }
            }
            return s;
        } finally {
            endOneShot(c);
        }
    }
}
