package org.hsa4j.services.rpc;

import java.util.concurrent.locks.LockSupport;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.signal.WaitState;

/**
 * The client side of one call on one port, made by {@link RpcClient#open}. The caller holds the
 * port until {@link #close()}; the port's words are accessed by offset in the {@link PortSet}.
 *
 * <h2>Sequence</h2>
 * Stage arguments with {@link #arg}, then any of: {@link #send()} (the OPEN packet; the other
 * operations send it first when it was not sent), {@link #sendN} (payload to the service, any
 * size), {@link #recvN()} (payload from the service), {@link #finish()} (waits for the service's
 * last packet and returns the status), {@link #result} (results after finish). The service must
 * perform the matching steps in the same order ({@code recvN} for {@code sendN} and so on).
 *
 * <h2>Turns</h2>
 * Each client packet hands the turn to the server and each server packet hands it back; every
 * high-level operation starts in the client's turn or waits for it, and ends in the server's
 * turn, except {@link #finish()}, which ends the call in the client's turn. A server packet marked
 * final ends the call: a later operation returns that status without touching the port.
 *
 * <h2>Close is fire-and-forget</h2>
 * {@link #close()} releases the port at once, whoever has the turn. A call whose last step was a
 * send (a message with no reply, such as an asynchronous printf) is completed by the server after
 * the caller has moved on; the port stays out of use until it is. A call abandoned in the middle
 * is cancelled by the next caller that takes the port.
 *
 * <h2>Rules that keep calls deadlock-free</h2>
 * Never wait for another work-item (a workgroup barrier, a spin on memory another work-item
 * writes) while a call is open: work-items of one workgroup run one after another on one compute
 * unit, so the other work-item may only run once this one returns. Use {@link GroupCall} to batch
 * a workgroup's calls: it stages lanes between barriers and holds a port only while no one waits.
 */
public final class RpcCall implements AutoCloseable {
    /** Longest park between two looks at the port while waiting for the server. */
    static final long PARK_NANOS = 1_000_000;
    /** Spin before parking for an ACTIVE wait (as ROCR spins on signals). */
    static final long ACTIVE_SPIN_NANOS = 200_000;
    /** Spin before parking for a BLOCKED wait. */
    static final long BLOCKED_SPIN_NANOS = 10_000;
    /** Longest wait for the final packet of a call that ended on its own as its caller cancelled it. */
    static final long ENDED_CALL_WAIT_NANOS = 10_000_000_000L;
    /** Largest payload one lane may send or receive. */
    public static final long MAX_PAYLOAD = 1L << 30;

    private final PortSet ports;
    // not final: the one-shot calls of RpcClient reuse one RpcCall per port (see reuse)
    private RpcClient client;
    private int port;
    /** Offset of the port's header from the set base. */
    private long portOffset;
    private int opcode;
    private long laneMask;
    private int activeLanes;
    private long callerDispatch;
    private long callerPacket;
    private int callerAgent;
    private WaitState waitState;
    private int flag;
    private boolean opened;
    private boolean ended;
    private boolean closed;
    private boolean interrupted;
    private RpcStatus status;

    RpcCall(RpcClient client, int port, int opcode, long laneMask, long callerDispatch, long callerPacket,
            int callerAgent, WaitState waitState, int flag) {
        this.ports = client.ports();
        this.port = port;
        this.portOffset = ports.portOffset(port);
        reuse(client, opcode, laneMask, callerDispatch, callerPacket, callerAgent, waitState, flag);
    }

    /**
     * Makes this call a new one on its port (the constructor's last step, too): for a finished call
     * only from the one-shot calls of {@link RpcClient}, whose call objects never leave it, by the
     * caller that just locked the port (the port lock orders the reuse after the previous holder's
     * accesses).
     */
    RpcCall reuse(RpcClient client, int opcode, long laneMask, long callerDispatch, long callerPacket,
                  int callerAgent, WaitState waitState, int flag) {
        this.client = client;
        this.opcode = opcode;
        this.laneMask = laneMask;
        this.activeLanes = Long.bitCount(laneMask);
        this.callerDispatch = callerDispatch;
        this.callerPacket = callerPacket;
        this.callerAgent = callerAgent;
        this.waitState = waitState;
        this.flag = flag;
        this.opened = false;
        this.ended = false;
        this.closed = false;
        this.interrupted = false;
        this.status = null;
        return this;
    }

    /** A call that failed before it got a port (the server is closed). */
    RpcCall(RpcClient client, int opcode, long laneMask, RpcStatus failed) {
        this.client = client;
        this.ports = client.ports();
        this.port = -1;
        this.portOffset = 0;
        this.opcode = opcode;
        this.laneMask = laneMask;
        this.activeLanes = Long.bitCount(laneMask);
        this.callerDispatch = 0;
        this.callerPacket = 0;
        this.waitState = WaitState.BLOCKED;
        this.status = failed;
        this.ended = true;
        this.opened = true;
        this.closed = true;
    }

    /** The call's opcode. */
    public int opcode() {
        return opcode;
    }

    /** The lanes taking part (bit i for lane i). */
    public long laneMask() {
        return laneMask;
    }

    /** Index of the port this call holds, or -1 when it never got one. */
    public int port() {
        return port;
    }

    /** The call's status: null while it goes on without error, else how it ended. */
    public RpcStatus status() {
        return status;
    }

    private static int firstLane(long mask) {
        return Long.numberOfTrailingZeros(mask);
    }

    private void checkLane(int lane) {
        if (lane < 0 || lane >= 64 || (laneMask & (1L << lane)) == 0) {
            throw new IllegalArgumentException("lane " + lane + " is not in the call's lane mask "
                    + Long.toHexString(laneMask));
        }
    }

    private static void checkIndex(int index) {
        if (index < 0 || index >= RpcLayout.LANE_WORDS) {
            throw new IllegalArgumentException("lane word index must be 0..7, was " + index);
        }
    }

    // ---- arguments and results ------------------------------------------------------------------

    /** True when the call has a port (false when the server was closed before it got one). */
    public boolean hasPort() {
        return port >= 0;
    }

    /** Stages argument {@code index} (0-7) of {@code lane}; only before the OPEN packet is sent. */
    public RpcCall arg(int lane, int index, long value) {
        checkLane(lane);
        checkIndex(index);
        if (port < 0) {
            return this;
        }
        if (opened) {
            throw new IllegalStateException("arguments go with the OPEN packet, which was already sent");
        }
        ports.setLong(portOffset + RpcLayout.laneOffset(lane) + 8L * index, value);
        return this;
    }

    /** Stages arguments 0.. of the first lane of the mask. */
    public RpcCall args(long... values) {
        if (values.length > RpcLayout.LANE_WORDS) {
            throw new IllegalArgumentException("a lane holds 8 arguments, got " + values.length);
        }
        int lane = firstLane(laneMask);
        for (int i = 0; i < values.length; i++) {
            arg(lane, i, values[i]);
        }
        return this;
    }

    /** Result {@code index} (0-7) of {@code lane}, valid after {@link #finish()} returned OK. */
    public long result(int lane, int index) {
        checkLane(lane);
        checkIndex(index);
        if (!ended || closed) {
            throw new IllegalStateException("results are readable after finish() and before close()");
        }
        return ports.getLong(portOffset + RpcLayout.laneOffset(lane) + 8L * index);
    }

    /** Result {@code index} of the first lane of the mask. */
    public long result(int index) {
        return result(firstLane(laneMask), index);
    }

    /**
     * Stages the first {@code n} (at most 8) of {@code values} as the first lane's arguments, without the
     * per-word checks of {@link #arg}: for RpcClient's one-shot calls, before the OPEN packet.
     */
    void stageFirstLane(long[] values, int n) {
        if (port < 0) {
            return;
        }
        long at = portOffset + RpcLayout.laneOffset(firstLane(laneMask));
        for (int i = 0; i < n; i++) {
            ports.setLong(at + 8L * i, values[i]);
        }
    }

    /** Copies the first lane's first {@code n} results into {@code out}: for RpcClient's one-shot calls after an OK finish. */
    void readFirstLane(long[] out, int n) {
        long at = portOffset + RpcLayout.laneOffset(firstLane(laneMask));
        for (int i = 0; i < n; i++) {
            out[i] = ports.getLong(at + 8L * i);
        }
    }

    // ---- packets --------------------------------------------------------------------------------

    /**
     * Sends the OPEN packet (opcode, lane mask, caller dispatch and agent, and the staged arguments). True while the
     * call goes on; false when it already ended (see {@link #status()}).
     */
    public boolean send() {
        if (opened) {
            throw new IllegalStateException("the OPEN packet was already sent");
        }
        open();
        return !ended;
    }

    private void open() {
        opened = true;
        if (ended) {
            return;
        }
        ports.setIntIfChanged(portOffset + RpcLayout.OPCODE, opcode);
        ports.setLongIfChanged(portOffset + RpcLayout.LANE_MASK, laneMask);
        ports.setLongIfChanged(portOffset + RpcLayout.CALLER_DISPATCH, callerDispatch);
        ports.setLongIfChanged(portOffset + RpcLayout.CALLER_PACKET, callerPacket);
        ports.setIntIfChanged(portOffset + RpcLayout.CALLER_AGENT, callerAgent);
        post(RpcLayout.KIND_OPEN);
    }

    private void ensureOpened() {
        if (!opened) {
            open();
        }
    }

    /**
     * Hands the turn to the server: writes the kind and flips the client flag; then, unless a server
     * thread watches the port (it reads the flag itself), marks the port pending and rings the
     * doorbell for a sleeping server. The flip and the watch read are volatile, as the watcher's
     * clearing of the watch and its last read of the flag: one of the two sides sees the other.
     */
    private void post(int kind) {
        // the call is a system-scope release: the service (a host thread) sees what the caller wrote
        // before it, also in fidelity mode, where a compute unit's writes wait in its model cache
        Svm.fence(MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        ports.setIntIfChanged(portOffset + RpcLayout.KIND, kind);
        flag ^= 1;
        ports.storeIntRelease(portOffset + RpcLayout.CLIENT_FLAG, flag);
        if (ports.loadIntAcquire(portOffset + RpcLayout.SERVER_WATCH) == 0) {
            ports.markPending(port);
            ports.ringIfSleeping();
        }
        Thread server = ports.serverWaiters.get(port);
        if (server != null) {
            LockSupport.unpark(server);
        }
    }

    /**
     * Waits for the client's turn (the server flag equals ours) as the services' idle strategy
     * says: spins, yields, then parks with a timed re-check, unparked by the server's flip. False
     * when the server closed meanwhile, or when the thread is interrupted (the interrupt status stays set; the call is cancelled on the server,
     * which ends it CANCELLED at once and gives the port back even when its service deferred the
     * reply, unless it ended on its own first: then its outcome stands).
     */
    private boolean awaitTurn() {
        if (awaitServer()) {
            // and the reply a system-scope acquire: the caller sees what the service wrote (pread, malloc'd data)
            Svm.fence(MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
            return true;
        }
        return false;
    }

    private boolean awaitServer() {
        long flagOffset = portOffset + RpcLayout.SERVER_FLAG;
        int want = flag;
        if (ports.loadIntAcquire(flagOffset) == want) {
            return true;
        }
        Idler idler = (waitState == WaitState.ACTIVE ? ports.activeTurn : ports.blockedTurn).idler().blocker(this);
        Thread me = null;
        try {
            while (true) {
                if (me != null && ports.isClosing()) {
                    return false;
                }
                if (ports.loadIntAcquire(flagOffset) == want) {
                    return true;
                }
                if (idler.nextPhase() != IdleStrategy.Phase.SPIN || (idler.steps() & 63) == 63) {
                    if (ports.isClosing() || ports.isClosed()) {
                        return false;
                    }
                    if (Thread.currentThread().isInterrupted()) {
                        interrupted = true;
                        return false;
                    }
                    if (me == null && idler.parksNext()) {
                        // registered before the look that precedes the park: the server's flip unparks it
                        me = Thread.currentThread();
                        ports.clientWaiters.set(port, me);
                        continue;
                    }
                }
                idler.idle(PARK_NANOS);
            }
        } finally {
            if (me != null) {
                ports.clientWaiters.set(port, null);
            }
        }
    }

    /**
     * Waits, not interruptibly, for the final packet of a call that ended on its own just as its
     * interrupted caller cancelled it: the packet follows at once, so the wait is short (and
     * bounded by {@link #ENDED_CALL_WAIT_NANOS}); true when it came, so the call's outcome stands.
     */
    private boolean awaitEndedCall() {
        long flagOffset = portOffset + RpcLayout.SERVER_FLAG;
        long start = System.nanoTime();
        // the thread's interrupt status stays set, so parking would return at once: this wait only spins and yields
        Idler idler = ports.yieldingWait.idler().blocker(this);
        while (ports.loadIntAcquire(flagOffset) != flag) {
            if (ports.isClosing() || System.nanoTime() - start > ENDED_CALL_WAIT_NANOS) {
                return false;
            }
            idler.idle();
        }
        return true;
    }

    /**
     * Waits for the server's next packet. With {@code wantFinal} false the call goes on only if
     * the packet is mid-call (CONTINUE); a final packet ends it (an OK there means the service
     * ended early: PROTOCOL_ERROR). With {@code wantFinal} true a mid-call packet means the service
     * wants more than the client sends: the call is cancelled. True when the caller may go on.
     */
    private boolean expect(boolean wantFinal) {
        if (ended) {
            return false;
        }
        if (!awaitTurn() && !(interrupted && !ports.cancelServerCall(port, flag) && awaitEndedCall())) {
            fail(interrupted ? RpcStatus.CANCELLED : RpcStatus.CLOSED);
            return false;
        }
        int word = ports.getInt(portOffset + RpcLayout.STATUS);
        if (RpcStatus.isFinal(word)) {
            RpcStatus s = RpcStatus.ofWord(word);
            ended = true;
            status = wantFinal ? s : s == RpcStatus.OK ? RpcStatus.PROTOCOL_ERROR : s;
            return wantFinal;
        }
        if (wantFinal) {
            cancel();
            status = RpcStatus.PROTOCOL_ERROR;
            return false;
        }
        return true;
    }

    private void fail(RpcStatus s) {
        ended = true;
        status = s;
    }

    /** Sends CANCEL packets (in the client's turn) until the server's packet is final. */
    private void cancel() {
        for (int round = 0; round < 16; round++) {
            post(RpcLayout.KIND_CANCEL);
            if (!awaitTurn() || RpcStatus.isFinal(ports.getInt(portOffset + RpcLayout.STATUS))) {
                break;
            }
        }
        ended = true;
    }

    /**
     * Takes over the port just locked: waits for the client's turn (a fire-and-forget call before
     * may still be served) and cancels a call the previous holder left half-way. False when the
     * server closed meanwhile.
     */
    boolean takeOver() {
        ports.clearStaleCancel(port);
        if (!awaitTurn()) {
            return false;
        }
        if (!RpcStatus.isFinal(ports.getInt(portOffset + RpcLayout.STATUS))) {
            cancel();
            ended = false;
        }
        return !ports.isClosing();
    }

    /**
     * send_n: sends {@code data[lane]} for every lane of the mask (null sends nothing), in chunks of
     * the lane's share of the port's lane buffers; the first chunk starts with the u64 length.
     * True while the call goes on; false when it ended (see {@link #status()}).
     */
    public boolean sendN(byte[][] data) {
        ensureOpened();
        int k = activeLanes;
        int chunk = RpcLayout.chunkBytes(ports.lanes(), k);
        long packets = 1;
        for (long m = laneMask; m != 0; m &= m - 1) {
            byte[] d = data[Long.numberOfTrailingZeros(m)];
            long len = d == null ? 0 : d.length;
            packets = Math.max(packets, packetsFor(len, chunk));
        }
        long dataBase = portOffset + RpcLayout.laneOffset(0);
        for (long c = 0; c < packets; c++) {
            if (!expect(false)) {
                return false;
            }
            int rank = 0;
            for (long m = laneMask; m != 0; m &= m - 1, rank++) {
                byte[] d = data[Long.numberOfTrailingZeros(m)];
                writeChunk(dataBase + (long) rank * chunk, chunk, c, d);
            }
            post(RpcLayout.KIND_DATA);
        }
        return true;
    }

    /** send_n of one payload from the first lane of the mask (a single-lane call). */
    public boolean sendN(byte[] data) {
        byte[][] perLane = new byte[64][];
        perLane[firstLane(laneMask)] = data;
        return sendN(perLane);
    }

    /** Number of packets that carry {@code length} bytes plus the length word in chunks of {@code chunk}. */
    static long packetsFor(long length, int chunk) {
        return Math.max(1, (length + RpcLayout.CHUNK_LENGTH_BYTES + chunk - 1) / chunk);
    }

    private void writeChunk(long region, int chunk, long c, byte[] d) {
        int len = d == null ? 0 : d.length;
        long from;
        long to;
        long dst;
        if (c == 0) {
            ports.setLong(region, len);
            from = 0;
            to = Math.min(len, chunk - RpcLayout.CHUNK_LENGTH_BYTES);
            dst = region + RpcLayout.CHUNK_LENGTH_BYTES;
        } else {
            from = chunk - RpcLayout.CHUNK_LENGTH_BYTES + (c - 1) * chunk;
            to = Math.min(len, from + chunk);
            dst = region;
        }
        if (to > from) {
            ports.write(dst, d, (int) from, (int) (to - from));
        }
    }

    /**
     * recv_n: receives one payload per lane of the mask from the service (indexed by lane, null
     * for lanes outside the mask). Returns null when the call ended instead (see {@link #status()}).
     */
    public byte[][] recvN() {
        ensureOpened();
        int k = activeLanes;
        int chunk = RpcLayout.chunkBytes(ports.lanes(), k);
        long dataBase = portOffset + RpcLayout.laneOffset(0);
        byte[][] out = null;
        long packets = 1;
        for (long c = 0; c < packets; c++) {
            if (!expect(false)) {
                return null;
            }
            if (c == 0) {
                out = new byte[64][];
                int rank = 0;
                for (long m = laneMask; m != 0; m &= m - 1, rank++) {
                    long len = ports.getLong(dataBase + (long) rank * chunk);
                    if (len < 0 || len > MAX_PAYLOAD) {
                        cancel();
                        status = RpcStatus.PROTOCOL_ERROR;
                        return null;
                    }
                    out[Long.numberOfTrailingZeros(m)] = new byte[(int) len];
                    packets = Math.max(packets, packetsFor(len, chunk));
                }
            }
            int rank = 0;
            for (long m = laneMask; m != 0; m &= m - 1, rank++) {
                readChunk(dataBase + (long) rank * chunk, chunk, c, out[Long.numberOfTrailingZeros(m)]);
            }
            post(RpcLayout.KIND_DATA);
        }
        return out;
    }

    /** recv_n of the first lane of the mask; null when the call ended instead. */
    public byte[] recvNFirstLane() {
        byte[][] all = recvN();
        return all == null ? null : all[firstLane(laneMask)];
    }

    private void readChunk(long region, int chunk, long c, byte[] d) {
        long from;
        long to;
        long src;
        if (c == 0) {
            from = 0;
            to = Math.min(d.length, chunk - RpcLayout.CHUNK_LENGTH_BYTES);
            src = region + RpcLayout.CHUNK_LENGTH_BYTES;
        } else {
            from = chunk - RpcLayout.CHUNK_LENGTH_BYTES + (c - 1) * chunk;
            to = Math.min(d.length, from + chunk);
            src = region;
        }
        if (to > from) {
            ports.read(src, d, (int) from, (int) (to - from));
        }
    }

    /**
     * Waits for the service's last packet and returns how the call ended: {@link RpcStatus#OK}
     * with the results in the lanes, or an error status. Sends the OPEN packet first if needed.
     */
    public RpcStatus finish() {
        ensureOpened();
        if (!ended) {
            expect(true);
        }
        return status;
    }

    /**
     * Releases the port at once (fire-and-forget): the server finishes a call whose reply nobody
     * waits for on its own, and the next caller that takes the port cancels a call left half-way.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        client.release(port);
    }

    /** True when the call ended with the server's final packet and the turn is the client's again: its port could take another call at once. */
    boolean endedInClientsTurn() {
        return ended && !closed && !interrupted && port >= 0
                && ports.loadIntAcquire(portOffset + RpcLayout.SERVER_FLAG) == flag;
    }

    /** Ends the call without releasing its port, which RpcClient keeps for the caller's thread. */
    void kept() {
        closed = true;
    }
}
