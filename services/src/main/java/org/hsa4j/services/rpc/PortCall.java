package org.hsa4j.services.rpc;

import java.util.concurrent.locks.LockSupport;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;

/**
 * A call carried by an RPC port, on the server side. Made by a server thread that claimed the
 * port (its {@link RpcLayout#SERVER_CLAIM}) and found an OPEN packet in the server's turn; from then
 * on only the thread running the service (or, after {@link #defer()}, whoever finishes it, or
 * whoever ends it from outside: a cancelling caller, a deadline, the watchdog) touches the port's
 * server side, until {@link #complete} sends the final packet and releases the claim.
 *
 * <p>Arguments are read straight from the lanes until the first payload exchange overwrites the
 * lane buffers; then they are copied first. Results are staged and written with the final packet,
 * so a payload exchange cannot clobber them.
 *
 * <h2>Ended from outside</h2>
 * A call may end while its service still runs (its caller cancelled it, or the watchdog timed the
 * service out, see {@link ServerCall#abandon}); the port then goes back to its callers at once and
 * may carry the next call while the service goes on. So every write of this call to the port (a
 * chunk and its flip, the final packet) happens under the call's monitor after a check that the
 * call is live, and the end from outside copies the arguments first: a service that goes on reads
 * its own arguments and writes nothing to the port, and its next exchange throws
 * {@link CallEndedException}.
 */
final class PortCall extends ServerCall {
    private final RpcServer server;
    private final PortSet ports;
    private final Svm svm;
    private final int port;
    /** Offset of the port's header from the set base. */
    private final long portOffset;
    private final int opcode;
    private final long laneMask;
    private final long callerDispatch;
    private final long callerPacket;
    private int serverFlag;
    /** True while the server has the turn: only then may it write the port. */
    private boolean turn = true;
    /** The scanning thread that may keep watching the port after this call, while it serves it synchronously. */
    private Thread watcher;
    /** True once the final packet went out with the watch set: the watcher kept the claim. */
    private boolean kept;
    /** The lanes' arguments once copied out of the port (before a payload exchange or an end from outside), else null. */
    private volatile long[][] args;
    private long[][] results;

    PortCall(RpcServer server, PortSet ports, int port, int serverFlag) {
        this.server = server;
        this.ports = ports;
        this.port = port;
        this.portOffset = ports.portOffset(port);
        this.svm = server.agentView(ports.getInt(portOffset + RpcLayout.CALLER_AGENT));
        this.serverFlag = serverFlag;
        this.opcode = ports.getInt(portOffset + RpcLayout.OPCODE);
        this.laneMask = ports.getLong(portOffset + RpcLayout.LANE_MASK);
        this.callerDispatch = ports.getLong(portOffset + RpcLayout.CALLER_DISPATCH);
        this.callerPacket = ports.getLong(portOffset + RpcLayout.CALLER_PACKET);
    }

    /** True when the lane mask names only lanes the port has and the calling agent is one of the runtime's. */
    boolean wellFormed() {
        return svm != null && server.laneMaskValid(laneMask);
    }

    int port() {
        return port;
    }

    /**
     * Lets the current thread (a scanning server thread about to serve this call synchronously)
     * keep the port's claim and watch it if the call ends on this thread before {@link #endWatch}.
     */
    void allowWatch() {
        watcher = Thread.currentThread();
    }

    /** Ends the window opened by {@link #allowWatch}; true when the call ended in it and the claim was kept. */
    boolean endWatch() {
        watcher = null;
        return kept;
    }

    @Override
    public int opcode() {
        return opcode;
    }

    @Override
    public long laneMask() {
        return laneMask;
    }

    @Override
    public Svm svm() {
        return svm;
    }

    @Override
    public long callerDispatch() {
        return callerDispatch;
    }

    @Override
    public long callerPacket() {
        return callerPacket;
    }

    private void checkLane(int lane, int index) {
        if (lane < 0 || lane >= 64 || (laneMask & (1L << lane)) == 0) {
            throw new IllegalArgumentException("lane " + lane + " is not in the call's lane mask");
        }
        if (index < 0 || index >= RpcLayout.LANE_WORDS) {
            throw new IllegalArgumentException("lane word index must be 0..7, was " + index);
        }
    }

    @Override
    public long arg(int lane, int index) {
        checkLane(lane, index);
        long[][] a = args;
        if (a != null) {
            return a[lane][index];
        }
        long v = ports.getLong(portOffset + RpcLayout.laneOffset(lane) + 8L * index);
        // ended from outside meanwhile: the port may carry another call now, the copy is this one's
        if (isFinished() && (a = args) != null) {
            return a[lane][index];
        }
        return v;
    }

    @Override
    public void result(int lane, int index, long value) {
        checkLane(lane, index);
        if (results == null) {
            results = new long[64][];
        }
        long[] r = results[lane];
        if (r == null) {
            r = results[lane] = new long[RpcLayout.LANE_WORDS];
        }
        r[index] = value;
    }

    /** Copies the arguments out of the lanes while they still hold them (the server's turn, before any exchange). */
    private synchronized void snapshotArgs() {
        if (args != null || !turn || isFinished()) {
            return;
        }
        long[][] copy = new long[64][];
        for (long m = laneMask; m != 0; m &= m - 1) {
            int lane = Long.numberOfTrailingZeros(m);
            long[] a = copy[lane] = new long[RpcLayout.LANE_WORDS];
            long at = portOffset + RpcLayout.laneOffset(lane);
            for (int i = 0; i < a.length; i++) {
                a[i] = ports.getLong(at + 8L * i);
            }
        }
        args = copy;
    }

    @Override
    void beforeAbandon() {
        snapshotArgs();
    }

    /** Throws when the call ended from outside; called under the monitor before each write to the port. */
    private void checkLive() {
        if (isFinished()) {
            throw new CallEndedException(RpcStatus.CANCELLED, "the call was ended from outside (cancelled or timed out)");
        }
    }

    // ---- turns ----------------------------------------------------------------------------------

    /** Hands the turn to the client with status word {@code word} and the port's watch ({@code watch}, 0 or 1). */
    private void post(int word, int watch) {
        // the reply is a system-scope release: in fidelity mode the caller sees what this host
        // thread wrote for it, which waits in the thread's store buffer until it releases
        Svm.fence(MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        ports.setIntIfChanged(portOffset + RpcLayout.STATUS, word);
        ports.setIntIfChanged(portOffset + RpcLayout.SERVER_WATCH, watch);
        turn = false;
        serverFlag ^= 1;
        ports.storeIntRelease(portOffset + RpcLayout.SERVER_FLAG, serverFlag);
        Thread client = ports.clientWaiters.get(port);
        if (client != null) {
            LockSupport.unpark(client);
        }
    }

    /**
     * Waits for the client's next packet (client flag differs from ours): busy for the server's
     * adaptive budget, then parks with a timed re-check (registered first, so the client's flip
     * unparks it), all through the ports' {@link PortSet#blockedTurn} strategy. Throws when the
     * client cancels, sends an unexpected packet, stops answering past the call timeout, or the
     * server closes.
     */
    private void awaitClient() {
        long flagOffset = portOffset + RpcLayout.CLIENT_FLAG;
        if (ports.loadIntAcquire(flagOffset) == serverFlag) {
            awaitClientFlip(flagOffset);
        }
        synchronized (this) {
            checkLive();
            turn = true;
        }
        // and each packet a system-scope acquire: this thread drops its stale copies of the caller's data
        Svm.fence(MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
        int kind = ports.getInt(portOffset + RpcLayout.KIND);
        if (kind == RpcLayout.KIND_CANCEL) {
            throw new CallEndedException(RpcStatus.CANCELLED, "the client cancelled the call");
        }
        if (kind != RpcLayout.KIND_DATA) {
            throw new CallEndedException(RpcStatus.PROTOCOL_ERROR, "expected a DATA packet, got kind " + kind);
        }
    }

    private void awaitClientFlip(long flagOffset) {
        long start = System.nanoTime();
        long timeout = server.callTimeoutNanos();
        Idler idler = ports.blockedTurn.idler(server.idleSpinNanos()).blocker(this);
        Thread me = null;
        try {
            while (ports.loadIntAcquire(flagOffset) == serverFlag) {
                long left = Long.MAX_VALUE;
                if (idler.nextPhase() != IdleStrategy.Phase.SPIN || (idler.steps() & 63) == 63) {
                    if (!server.isRunning()) {
                        throw new CallEndedException(RpcStatus.CLOSED, "the server is shutting down");
                    }
                    left = timeout - (System.nanoTime() - start);
                    if (left <= 0) {
                        server.countTimeout();
                        throw new CallEndedException(RpcStatus.TIMEOUT, "no packet from the client for "
                                + timeout / 1_000_000 + " ms");
                    }
                    if (me == null && idler.parksNext()) {
                        // registered before the look that precedes the park: the client's flip unparks it
                        me = Thread.currentThread();
                        ports.serverWaiters.set(port, me);
                        continue;
                    }
                }
                idler.idle(left);
            }
        } finally {
            if (me != null) {
                ports.serverWaiters.set(port, null);
            }
        }
    }

    // ---- payloads -------------------------------------------------------------------------------

    @Override
    public byte[][] recvN() {
        snapshotArgs();
        int chunk = RpcLayout.chunkBytes(ports.lanes(), Long.bitCount(laneMask));
        long dataBase = portOffset + RpcLayout.laneOffset(0);
        byte[][] out = new byte[64][];
        long packets = 1;
        for (long c = 0; c < packets; c++) {
            synchronized (this) {
                checkLive();
                post(RpcStatus.CONTINUE_WORD, 0);
            }
            awaitClient();
            if (c == 0) {
                int rank = 0;
                for (long m = laneMask; m != 0; m &= m - 1, rank++) {
                    long len = ports.getLong(dataBase + (long) rank * chunk);
                    if (len < 0 || len > RpcCall.MAX_PAYLOAD) {
                        throw new CallEndedException(RpcStatus.BAD_REQUEST, "send_n length " + len);
                    }
                    out[Long.numberOfTrailingZeros(m)] = new byte[(int) len];
                    packets = Math.max(packets, RpcCall.packetsFor(len, chunk));
                }
            }
            int rank = 0;
            for (long m = laneMask; m != 0; m &= m - 1, rank++) {
                copyChunk(dataBase + (long) rank * chunk, chunk, c, out[Long.numberOfTrailingZeros(m)], false);
            }
        }
        return out;
    }

    @Override
    public void sendN(byte[][] data) {
        snapshotArgs();
        int chunk = RpcLayout.chunkBytes(ports.lanes(), Long.bitCount(laneMask));
        long dataBase = portOffset + RpcLayout.laneOffset(0);
        byte[][] payload = new byte[64][];
        long packets = 1;
        for (long m = laneMask; m != 0; m &= m - 1) {
            int lane = Long.numberOfTrailingZeros(m);
            payload[lane] = data[lane] == null ? new byte[0] : data[lane];
            packets = Math.max(packets, RpcCall.packetsFor(payload[lane].length, chunk));
        }
        for (long c = 0; c < packets; c++) {
            synchronized (this) {
                checkLive();
                int rank = 0;
                for (long m = laneMask; m != 0; m &= m - 1, rank++) {
                    byte[] d = payload[Long.numberOfTrailingZeros(m)];
                    long region = dataBase + (long) rank * chunk;
                    if (c == 0) {
                        ports.setLong(region, d.length);
                    }
                    copyChunk(region, chunk, c, d, true);
                }
                post(RpcStatus.CONTINUE_WORD, 0);
            }
            awaitClient();
        }
    }

    /** Copies chunk {@code c} of a lane's payload between the lane region and {@code d}. */
    private void copyChunk(long region, int chunk, long c, byte[] d, boolean toPort) {
        long from;
        long to;
        long at;
        if (c == 0) {
            from = 0;
            to = Math.min(d.length, chunk - RpcLayout.CHUNK_LENGTH_BYTES);
            at = region + RpcLayout.CHUNK_LENGTH_BYTES;
        } else {
            from = chunk - RpcLayout.CHUNK_LENGTH_BYTES + (c - 1) * chunk;
            to = Math.min(d.length, from + chunk);
            at = region;
        }
        if (to <= from) {
            return;
        }
        if (toPort) {
            ports.write(at, d, (int) from, (int) (to - from));
        } else {
            ports.read(at, d, (int) from, (int) (to - from));
        }
    }

    // ---- the end --------------------------------------------------------------------------------

    /**
     * Sends the final packet, or, when the client has the turn (the server gave up waiting for
     * its next packet), leaves the status for the server thread that will find that packet. The
     * call leaves its port's server slot in the same slot monitor as its final flip, so a caller
     * cancelling it sees either the call or its final packet.
     */
    @Override
    protected synchronized void complete(RpcStatus status) {
        if (ports.isFreed()) {
            return;
        }
        PortSet.ServerSlot slot = ports.serverSlot(port);
        if (!turn) {
            synchronized (slot) {
                slot.unregister(this);
            }
            ports.abandoned.set(port, 1 + status.code());
            server.releaseClaim(port);
            return;
        }
        if (results != null) {
            for (long m = laneMask; m != 0; m &= m - 1) {
                int lane = Long.numberOfTrailingZeros(m);
                long[] r = results[lane];
                if (r != null) {
                    long at = portOffset + RpcLayout.laneOffset(lane);
                    for (int i = 0; i < r.length; i++) {
                        ports.setLong(at + 8L * i, r[i]);
                    }
                }
            }
        }
        if (watcher == Thread.currentThread() && server.isRunning()) {
            // the watch goes out with the final packet: the client's next post reads it and leaves
            // the pending bit alone, since this thread keeps the claim and reads the client flag itself
            kept = true;
            synchronized (slot) {
                slot.unregister(this);
                post(status.finalWord(), 1);
            }
            ports.wakePortWaiter();
            return;
        }
        synchronized (slot) {
            slot.unregister(this);
            post(status.finalWord(), 0);
        }
        ports.wakePortWaiter();
        server.releaseClaim(port);
    }
}
