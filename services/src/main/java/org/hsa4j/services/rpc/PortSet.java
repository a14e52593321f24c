package org.hsa4j.services.rpc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;

/**
 * The RPC ports of one services instance: the port set in fine-grained SVM (every agent may
 * access it; layout in {@link RpcLayout}), the doorbell signal that wakes sleeping server
 * threads, and the Java-side wake-up slots that let each side unpark the other instead of making
 * it poll. The SVM words are the protocol; the slots only shorten waits (every wait also re-checks
 * on a timer), so a missed unpark costs latency, never correctness.
 *
 * <h2>Access by offset</h2>
 * The port set is memory the services own for their whole life, so it is resolved once: the
 * checked segment {@link Svm#segment} gives at creation covers the whole set, and every protocol
 * access (by clients on any agent and by server threads) is a VarHandle access on it at an offset
 * from the set base ({@link #portOffset} plus an {@link RpcLayout} field), instead of translating
 * the SVM address again for each of the dozens of words a call touches. The orders are the ones
 * the protocol names: {@code load*Acquire} and {@code store*Release} are volatile (HSA's
 * scacquire/screlease, as {@link Svm} maps them), read-modify-writes are volatile too, and
 * {@code get*}/{@code set*} are plain accesses, ordered by the flag flip that follows or precedes
 * them. The memory is freed only when no call is open any more (see {@link #close()}), so no
 * access through the segment reaches memory that was given to someone else.
 */
public final class PortSet implements AutoCloseable {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** Longs from one stripe of the open-call count to the next: a cache line. */
    private static final int STRIPE_LONGS = 8;
    /** References from one port's keeper slot to the next: two cache lines even uncompressed. */
    private static final int KEEPER_STRIDE = 16;
    /** The {@link #keepers} value of a kept port a caller took: a call runs on it. */
    static final Object IN_CALL = new Object() {
        @Override
        public String toString() {
            return "IN_CALL";
        }
    };

    private final HsaRuntime runtime;
    private final Svm host;
    private final long base;
    private final int ports;
    /** Ports host clients use: {@code [0, hostPorts)}; the rest are device ports (see {@link RpcLayout#SET_DEVICE_FIRST}). */
    private final int hostPorts;
    private final int lanes;
    private final long stride;
    private final long portsBase;
    private final long pendingBase;
    private final long portsOffset;
    private final MemorySegment memory;
    private final Signal doorbell;
    /** Per port: the client thread parked waiting for its turn, or null. */
    final AtomicReferenceArray<Thread> clientWaiters;
    /** Per port: the server thread parked waiting for the client's next packet, or null. */
    final AtomicReferenceArray<Thread> serverWaiters;
    /** Callers parked because every port was busy (back-pressure). */
    final ConcurrentLinkedQueue<Thread> portWaiters = new ConcurrentLinkedQueue<>();
    /**
     * Per port: 1 + the status a server gave up a call with while the client had the turn (a
     * timeout), or 0. The client's next packet is answered with it.
     */
    final AtomicIntegerArray abandoned;
    /**
     * Per port: the call object RpcClient's one-shot calls reuse on that port. Read and written
     * only by the port's lock holder (the lock's CAS and release store order one holder's accesses
     * before the next one's), so the one-shot calls allocate nothing.
     */
    final RpcCall[] spareCalls;
    /** Per port: the server side of the call in progress, for a caller that cancels it (see {@link ServerSlot}). */
    private final ServerSlot[] serverSlots;
    /**
     * Per port ({@link #keeperIndex}), who keeps it between one-shot calls: null when nobody does
     * (its lock is free, or held for a call the usual way); the caller thread that keeps it, its lock
     * held since its last call ended in the client's turn; or {@link #IN_CALL} once a caller took
     * it (the keeper for its next call, or any caller taking it over). Taking is a compare-and-set
     * from the thread to IN_CALL, so one party gets a kept port; the holder sets the slot back.
     */
    private final AtomicReferenceArray<Object> keepers;
    /**
     * Calls opened and not closed yet, and ports kept, striped by thread: the memory is freed only once they are
     * gone (or after a grace period). Each stripe is a cache line apart and a line away from the
     * array's ends, so a caller's add moves no line any other object shares: a LongAdder's base,
     * which a lone caller adds to, sits unpadded beside whatever was allocated next to it (such
     * as lines a server thread reads on every call). Only the sum counts, so a call may be
     * counted in one stripe and uncounted in another.
     */
    private final AtomicLongArray activeCalls;
    private final int stripeMask;
    private volatile boolean closing;
    private volatile boolean freed;
    /** How often a closing port set re-checks for open calls and kept ports. */
    private static final long CLOSE_RECHECK_NANOS = 100_000;
    /** How an ACTIVE caller waits for its turn: ROCR's 200 us busy budget, then parks of {@link RpcCall#PARK_NANOS} (the server unparks it). */
    final IdleStrategy activeTurn;
    /** How a BLOCKED caller waits for its turn: the machine's busy budget (at least 10 us), then parks. */
    final IdleStrategy blockedTurn;
    /** A wait that must not park (its thread's interrupt status is set): spins, then yields, bounded by its site. */
    final IdleStrategy yieldingWait;
    /** How an idle server thread idles: its adaptive busy budget, then parks backing off to its repoll period. */
    final IdleStrategy serverIdle;
    /** How a caller waits for a free port: the machine's busy budget, then parks backing off (releasePort unparks it). */
    final IdleStrategy portWait;
    /** How {@link #close()} waits for open calls to end: parks of {@link #CLOSE_RECHECK_NANOS}, re-checking kept ports. */
    private final IdleStrategy closeWait;

    /** Allocates and initializes {@code ports} ports of {@code lanes} lanes in {@code runtime}'s SVM, all for host clients. */
    public PortSet(HsaRuntime runtime, int ports, int lanes) {
        this(runtime, ports, lanes, 0);
    }

    /**
     * Allocates {@code hostPorts} ports for host clients and {@code devicePorts} more after them for
     * device clients ({@link RpcLayout#SET_DEVICE_FIRST}), {@code lanes} lanes each. With device ports
     * the set is in the runtime's real-address pool ({@link HsaRuntime#realSystemPool()}), so its SVM
     * address is the address a CUDA kernel uses.
     */
    public PortSet(HsaRuntime runtime, int hostPorts, int lanes, int devicePorts) {
        int ports = hostPorts + devicePorts;
        if (hostPorts < 1 || devicePorts < 0 || ports > 65536) {
            throw new IllegalArgumentException("host ports must be >= 1, device ports >= 0 and both together <= 65536, were "
                    + hostPorts + " and " + devicePorts);
        }
        if (lanes < 1 || lanes > RpcLayout.MAX_LANES) {
            throw new IllegalArgumentException("lanes per port must be 1..64, was " + lanes);
        }
        this.runtime = runtime;
        IdleStrategy idle = runtime.signals().idleStrategy();
        this.blockedTurn = idle.withBusyNanos(Math.max(idle.busyNanos(), RpcCall.BLOCKED_SPIN_NANOS))
                .withParks(RpcCall.PARK_NANOS, RpcCall.PARK_NANOS);
        this.activeTurn = blockedTurn.withBusyNanos(Math.max(idle.busyNanos(), RpcCall.ACTIVE_SPIN_NANOS));
        this.yieldingWait = idle.withBusyNanos(Long.MAX_VALUE / 4);
        this.serverIdle = idle.background();
        this.portWait = idle;
        this.closeWait = idle.background().withBusyNanos(0).withParks(CLOSE_RECHECK_NANOS, CLOSE_RECHECK_NANOS);
        this.host = runtime.svm();
        this.ports = ports;
        this.hostPorts = hostPorts;
        this.lanes = lanes;
        this.stride = RpcLayout.portStride(lanes);
        long bytes = RpcLayout.setBytes(ports, lanes);
        // device clients reach the set by its native address (a CUDA agent registers the real-address pool)
        this.base = devicePorts > 0 ? runtime.realSystemPool().allocate(bytes) : runtime.hostMalloc(bytes);
        this.memory = host.segment(base, bytes);
        this.portsOffset = RpcLayout.portsOffset(ports);
        this.portsBase = base + portsOffset;
        this.pendingBase = base + RpcLayout.pendingOffset();
        this.doorbell = runtime.createSignal(0);
        this.clientWaiters = new AtomicReferenceArray<>(ports);
        this.serverWaiters = new AtomicReferenceArray<>(ports);
        this.abandoned = new AtomicIntegerArray(ports);
        this.spareCalls = new RpcCall[ports];
        this.serverSlots = new ServerSlot[ports];
        for (int p = 0; p < ports; p++) {
            serverSlots[p] = new ServerSlot();
        }
        this.keepers = new AtomicReferenceArray<>((ports + 2) * KEEPER_STRIDE);
        int stripes = Integer.highestOneBit(Math.clamp(2L * Runtime.getRuntime().availableProcessors(), 2, 64) * 2 - 1);
        this.stripeMask = stripes - 1;
        this.activeCalls = new AtomicLongArray((stripes + 2) * STRIPE_LONGS);
        memory.fill((byte) 0);
        setInt(RpcLayout.SET_MAGIC, RpcLayout.MAGIC_VALUE);
        setInt(RpcLayout.SET_VERSION, RpcLayout.VERSION_VALUE);
        setInt(RpcLayout.SET_PORT_COUNT, ports);
        setInt(RpcLayout.SET_LANES, lanes);
        setLong(RpcLayout.SET_DOORBELL, doorbell.handle());
        setLong(RpcLayout.SET_PENDING_OFFSET, RpcLayout.pendingOffset());
        setLong(RpcLayout.SET_PORTS_OFFSET, portsOffset);
        setLong(RpcLayout.SET_PORT_STRIDE, stride);
        setInt(RpcLayout.SET_DEVICE_FIRST, hostPorts);
        setInt(RpcLayout.SET_DEVICE_PORTS, devicePorts);
        for (int p = 0; p < ports; p++) {
            setInt(portOffset(p) + RpcLayout.STATUS, RpcStatus.OK.finalWord());
        }
        storeIntRelease(RpcLayout.SET_STATE, RpcLayout.STATE_RUNNING);
    }

    /** The runtime whose SVM holds the ports. */
    public HsaRuntime runtime() {
        return runtime;
    }

    /** SVM address of the port set (its header). */
    public long address() {
        return base;
    }

    /** Number of ports. */
    public int ports() {
        return ports;
    }

    /** Ports host clients lock: {@code [0, hostPorts())}. */
    public int hostPorts() {
        return hostPorts;
    }

    /** Ports only device clients lock: {@code [hostPorts(), ports())}, watched by the server's {@link DevicePortWatcher}. */
    public int devicePorts() {
        return ports - hostPorts;
    }

    /** Lanes per port. */
    public int lanes() {
        return lanes;
    }

    /** The doorbell signal: a client rings it when a server thread sleeps. */
    public Signal doorbell() {
        return doorbell;
    }

    /** SVM address of port {@code p}'s header. */
    public long portAddress(int p) {
        return portsBase + p * stride;
    }

    /** SVM address of the pending-bitmap word holding port {@code p}'s bit. */
    public long pendingWordAddress(int p) {
        return pendingBase + ((long) (p >>> 6) << 3);
    }

    /** Offset of port {@code p}'s header from the set base. */
    long portOffset(int p) {
        return portsOffset + p * stride;
    }

    /** Offset of pending-bitmap word {@code w} from the set base. */
    static long pendingWordOffset(int w) {
        return RpcLayout.pendingOffset() + ((long) w << 3);
    }

    /** Number of pending-bitmap words. */
    int pendingWords() {
        return RpcLayout.pendingWords(ports);
    }

    /**
     * True once the server shut down. The Java-side flag is read first, so a caller never touches
     * the port set's memory after {@link #close()} began freeing it; the SVM state word says the same
     * to anyone reading the port set through memory.
     */
    public boolean isClosed() {
        return closing || loadIntAcquire(RpcLayout.SET_STATE) == RpcLayout.STATE_CLOSED;
    }

    /** True once {@link #markClosed()} ran. */
    public boolean isClosing() {
        return closing;
    }

    /**
     * Marks the port set closed and wakes every parked client: their waits end with
     * {@link RpcStatus#CLOSED}.
     */
    public void markClosed() {
        if (freed) {
            return;
        }
        closing = true;
        storeIntRelease(RpcLayout.SET_STATE, RpcLayout.STATE_CLOSED);
        for (int p = 0; p < ports; p++) {
            Thread t = clientWaiters.get(p);
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
        Thread t;
        while ((t = portWaiters.poll()) != null) {
            LockSupport.unpark(t);
        }
    }

    /** True when port {@code p}'s pending bit is set (scacquire load). */
    boolean isPending(int p) {
        return (loadLongAcquire(pendingWordOffset(p >>> 6)) & 1L << (p & 63)) != 0;
    }

    /** Marks pending the port whose bit is {@code p}: a server thread will look at it. */
    void markPending(int p) {
        orLong(pendingWordOffset(p >>> 6), 1L << (p & 63));
    }

    /**
     * Unparks one caller waiting for a port, if any: called by a server thread after it handed a
     * port back with a final packet (that port may be unlocked already, its last caller having
     * closed the call before the end). The flip before this read is volatile, as the waiter's
     * registration before its last look at the ports: one of the two sees the other.
     */
    void wakePortWaiter() {
        Thread t = portWaiters.peek();
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    // ---- cancelling a call the server is serving ------------------------------------------------

    /**
     * One port's server call in progress, Java-side, guarded by its own monitor: a {@link PortCall}
     * from its OPEN packet until its final packet (registered by the server thread that made it,
     * unregistered by whoever ends it, in the same monitor as that final packet's flip), and the
     * cancel its caller asked for before the server made the call.
     *
     * <p>Why a monitor and not a compare-and-set: a cancelling caller must tell apart a call the
     * server has not made yet (it must not run: the server will see the cancel) from one that ended
     * on its own (its outcome, bytes a recv took, must reach the caller). Holding the monitor, the
     * caller sees either the call, or no call and the flag of a final packet already flipped, or no
     * call and no final packet yet; in the last case the server's registration, in the same
     * monitor, finds the cancel.
     */
    static final class ServerSlot {
        private ServerCall call;
        /** Set by a caller that cancelled before the server made its call; consumed by the registration or cleared by the port's next caller. */
        private volatile boolean cancelled;

        /** Registers {@code c} as the port's call; false (the cancel consumed) when its caller cancelled it first. */
        synchronized boolean register(ServerCall c) {
            if (cancelled) {
                cancelled = false;
                return false;
            }
            call = c;
            return true;
        }

        /** Unregisters {@code c}; the caller holds this monitor around the final packet's flip. */
        void unregister(ServerCall c) {
            if (call == c) {
                call = null;
            }
        }
    }

    /** The server slot of port {@code p}. */
    ServerSlot serverSlot(int p) {
        return serverSlots[p];
    }

    /** Clears a cancel a port's previous caller left behind (its call was answered before the server could see it); by the port's new lock holder. */
    void clearStaleCancel(int p) {
        ServerSlot s = serverSlots[p];
        if (s.cancelled) {
            s.cancelled = false;
        }
    }

    /**
     * Cancels the call on port {@code p} for its caller, whose flag is {@code clientFlag}: true
     * when the call ends CANCELLED without touching the caller's memory again (ended now, or never
     * to run: the server will find the cancel when it makes the call), false when it ended on its
     * own first: its final packet is there or follows at once, and its outcome stands.
     */
    boolean cancelServerCall(int p, int clientFlag) {
        ServerSlot s = serverSlots[p];
        ServerCall c;
        synchronized (s) {
            c = s.call;
            if (c == null) {
                if (loadIntAcquire(portOffset(p) + RpcLayout.SERVER_FLAG) == clientFlag) {
                    return false;
                }
                s.cancelled = true;
                return true;
            }
        }
        return c.abandon(RpcStatus.CANCELLED);
    }

    /** Rings the doorbell when some server thread sleeps (the flag store before this read is volatile). */
    void ringIfSleeping() {
        if (loadIntAcquire(RpcLayout.SET_SLEEPERS) > 0) {
            doorbell.addScrelease(1);
        }
    }

    // ---- access by offset from the set base -----------------------------------------------------

    /** Plain int read. */
    int getInt(long offset) {
        return (int) INT.get(memory, offset);
    }

    /** Plain int write. */
    void setInt(long offset, int value) {
        INT.set(memory, offset, value);
    }

    /** Plain long read. */
    long getLong(long offset) {
        return (long) LONG.get(memory, offset);
    }

    /** Plain long write. */
    void setLong(long offset, long value) {
        LONG.set(memory, offset, value);
    }

    /**
     * Plain int write that leaves the word alone when it holds {@code value} already: a packet field
     * a caller writes with the same value call after call (the opcode, the lane mask, the status)
     * then costs no store to a line the other side is reading, only a read of a line this side
     * holds anyway.
     */
    void setIntIfChanged(long offset, int value) {
        if ((int) INT.get(memory, offset) != value) {
            INT.set(memory, offset, value);
        }
    }

    /** As {@link #setIntIfChanged} for a long. */
    void setLongIfChanged(long offset, long value) {
        if ((long) LONG.get(memory, offset) != value) {
            LONG.set(memory, offset, value);
        }
    }

    /** Scacquire int load (volatile). */
    int loadIntAcquire(long offset) {
        return (int) INT.getVolatile(memory, offset);
    }

    /** Relaxed int load (opaque). */
    int loadIntRelaxed(long offset) {
        return (int) INT.getOpaque(memory, offset);
    }

    /** Screlease int store (volatile). */
    void storeIntRelease(long offset, int value) {
        INT.setVolatile(memory, offset, value);
    }

    /** Compare-and-swap (volatile); returns the value found, {@code expected} on success. */
    int compareExchangeInt(long offset, int expected, int desired) {
        return (int) INT.compareAndExchange(memory, offset, expected, desired);
    }

    /** Fetch-and-add (volatile); returns the previous value. */
    int addInt(long offset, int delta) {
        return (int) INT.getAndAdd(memory, offset, delta);
    }

    /** Scacquire long load (volatile). */
    long loadLongAcquire(long offset) {
        return (long) LONG.getVolatile(memory, offset);
    }

    /** Relaxed long load (opaque). */
    long loadLongRelaxed(long offset) {
        return (long) LONG.getOpaque(memory, offset);
    }

    /** Fetch-and-or (volatile); returns the previous value. */
    long orLong(long offset, long mask) {
        return (long) LONG.getAndBitwiseOr(memory, offset, mask);
    }

    /** Fetch-and-and (volatile); returns the previous value. */
    long andLong(long offset, long mask) {
        return (long) LONG.getAndBitwiseAnd(memory, offset, mask);
    }

    /** Copies {@code length} bytes of {@code from} into the set at {@code offset}. */
    void write(long offset, byte[] from, int fromIndex, int length) {
        MemorySegment.copy(from, fromIndex, memory, ValueLayout.JAVA_BYTE, offset, length);
    }

    /** Copies {@code length} bytes of the set at {@code offset} into {@code to}. */
    void read(long offset, byte[] to, int toIndex, int length) {
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, offset, to, toIndex, length);
    }

    private static int keeperIndex(int p) {
        return (p + 1) * KEEPER_STRIDE;
    }

    /** Who keeps port {@code p}: null, the keeping thread, or {@link #IN_CALL} (scacquire load). */
    Object keeper(int p) {
        return keepers.get(keeperIndex(p));
    }

    /** Takes port {@code p} from its keeper {@code keeper} (a thread): true when this caller got it (compare-and-set to {@link #IN_CALL}). */
    boolean takeKept(int p, Object keeper) {
        return keepers.compareAndSet(keeperIndex(p), keeper, IN_CALL);
    }

    /** The holder of port {@code p} keeps it for {@code thread}'s next call, its lock held (screlease store). */
    void keep(int p, Thread thread) {
        keepers.setRelease(keeperIndex(p), thread);
    }

    /** The holder of port {@code p}, taken from a keeper, stops keeping it (screlease store; before it unlocks the port). */
    void unkeep(int p) {
        keepers.setRelease(keeperIndex(p), null);
    }

    /** True when some port is kept by a thread and may be taken over. */
    boolean anyKept() {
        for (int p = 0; p < ports; p++) {
            if (keeper(p) instanceof Thread) {
                return true;
            }
        }
        return false;
    }

    /**
     * Takes every port a thread keeps back from its keeper and unlocks it: a keeper's next call then
     * takes a port the usual way (and meets the closed server). The count a kept port held goes.
     */
    private void reclaimKept() {
        for (int p = 0; p < ports; p++) {
            Object k = keeper(p);
            if (k instanceof Thread && keepers.compareAndSet(keeperIndex(p), k, null)) {
                storeIntRelease(portOffset(p) + RpcLayout.LOCK, 0);
                callClosed();
            }
        }
    }

    /** Counts a call opened (before it touches the ports; volatile, so a closer summing afterwards sees it). */
    void callOpened() {
        activeCalls.getAndIncrement(stripe());
    }

    /** Uncounts a call closed (after its last access to the ports). */
    void callClosed() {
        activeCalls.getAndDecrement(stripe());
    }

    /** Calls opened and not closed yet. */
    long openCalls() {
        long sum = 0;
        for (int i = 0; i <= stripeMask; i++) {
            sum += activeCalls.get((i + 1) * STRIPE_LONGS);
        }
        return sum;
    }

    private int stripe() {
        long id = Thread.currentThread().threadId() * 0x9E3779B97F4A7C15L;
        return ((int) (id >>> 40) & stripeMask) * STRIPE_LONGS + STRIPE_LONGS;
    }

    /** True once the memory is freed. */
    boolean isFreed() {
        return freed;
    }

    /**
     * Marks the ports closed, takes kept ports back from their keepers, waits up to two seconds for
     * open calls to notice and close, then frees
     * the SVM memory and the doorbell. A call still open after that (a caller that never closes)
     * keeps the memory alive until the runtime closes: its accesses by offset must never reach
     * memory given to another allocation.
     */
    @Override
    public synchronized void close() {
        if (freed) {
            return;
        }
        markClosed();
        long deadline = System.nanoTime() + 2_000_000_000L;
        // kept ports are taken back on every round: a caller that decided to keep its port just
        // before the close began may store its keeper slot after an earlier round looked
        reclaimKept();
        Idler idler = closeWait.idler().blocker(this);
        while (openCalls() > 0 && System.nanoTime() - deadline < 0) {
            idler.idle();
            reclaimKept();
        }
        freed = true;
        if (!runtime.isClosed() && openCalls() == 0) {
            runtime.free(base);
            doorbell.destroy();
        }
    }
}
