package org.hsa4j.services.rpc;

/**
 * The one layout of the RPC port set in SVM: every offset the clients (kernels, host threads) and
 * the server threads use is here, and nothing else hard-codes one.
 *
 * <pre>
 * set base ─► SET HEADER (64 bytes)
 *             PENDING BITMAP: one bit per port, ceil(ports / 64) u64 words, padded to 64 bytes
 *             PORT 0: TURN line (64 bytes) | reserved line | LOCK line | CLAIM line | LANE 0 (64 bytes) | ... | LANE lanes-1
 *             PORT 1: ...                          (stride {@link #portStride(int)})
 * </pre>
 *
 * <h2>Ownership</h2>
 * Each port has two one-bit mailboxes: {@link #CLIENT_FLAG} (written only by the client that holds
 * the port's {@link #LOCK}) and {@link #SERVER_FLAG} (written only by the server thread that holds
 * the port's {@link #SERVER_CLAIM}). It is the client's turn when they are equal and the server's
 * turn when they differ. Only the side whose turn it is touches the header fields of its packet
 * and the lane buffers; it hands the turn over by flipping its own flag with a screlease store.
 * The other side sees the flip with a scacquire load, so everything written before the flip is
 * visible after it.
 *
 * <h2>One turn line</h2>
 * Both packets, the client's and the server's, share the port's first cache line with both flags:
 * only the side with the turn writes it, so it is never written from two sides at once, and it
 * moves between the two cores with the turn, as the line of a bare ping-pong does. Measured on
 * these machines: a minimal client flipping the flag on one line against the server thread made a
 * round trip in the time of the raw one-line ping-pong (about 75 ns), and in about 140 ns with the
 * two packets on two lines, each side's flip then first taking the line back from the other side's
 * spinning reads. The sides write a packet field only when its value changes
 * ({@code setIntIfChanged}), so a call like the one before it writes nothing but its flag.
 *
 * <h2>Field owners</h2>
 * Client-written (in the client's turn): {@link #KIND}, {@link #OPCODE}, {@link #LANE_MASK},
 * {@link #CALLER_DISPATCH}, {@link #CALLER_PACKET}, {@link #CALLER_AGENT}. Server-written (in the server's turn):
 * {@link #STATUS}; by the claim holder: {@link #SERVER_WATCH}. Lane buffers: whoever has the turn.
 */
public final class RpcLayout {
    // ---- set header -----------------------------------------------------------------------------

    /** u32 magic {@link #MAGIC_VALUE}, written once by the host. */
    public static final long SET_MAGIC = 0;
    /** u32 layout version {@link #VERSION_VALUE}. */
    public static final long SET_VERSION = 4;
    /** u32 number of ports. */
    public static final long SET_PORT_COUNT = 8;
    /** u32 lanes per port (64-byte lane buffers per port). */
    public static final long SET_LANES = 12;
    /** u64 handle of the doorbell signal that wakes sleeping server threads. */
    public static final long SET_DOORBELL = 16;
    /** i32 server state: {@link #STATE_RUNNING} or {@link #STATE_CLOSED}; clients check it while they wait. */
    public static final long SET_STATE = 24;
    /** i32 number of server threads asleep or about to sleep: a client rings the doorbell only when it is non-zero. */
    public static final long SET_SLEEPERS = 28;
    /** u64 byte offset of the pending bitmap from the set base. */
    public static final long SET_PENDING_OFFSET = 32;
    /** u64 byte offset of port 0 from the set base. */
    public static final long SET_PORTS_OFFSET = 40;
    /** u64 bytes from one port to the next. */
    public static final long SET_PORT_STRIDE = 48;
    /**
     * u32 index of the first device port: ports {@code [SET_DEVICE_FIRST, SET_PORT_COUNT)} belong
     * to clients on a device whose atomics are not atomic with the host's (a CUDA GPU without
     * host-native atomics); host clients never lock them. Equal to the port count when none.
     */
    public static final long SET_DEVICE_FIRST = 56;
    /** u32 number of device ports (the last ones of the set). */
    public static final long SET_DEVICE_PORTS = 60;
    /** Size of the set header. */
    public static final long SET_HEADER_BYTES = 64;

    /** Magic value of a port set ("RPC4"). */
    public static final int MAGIC_VALUE = 0x52504334;
    /** Version of this layout. */
    public static final int VERSION_VALUE = 6;
    /** {@link #SET_STATE}: serving. */
    public static final int STATE_RUNNING = 0;
    /** {@link #SET_STATE}: shut down; clients stop waiting and get {@link RpcStatus#CLOSED}. */
    public static final int STATE_CLOSED = 1;

    // ---- port header: the turn line, a reserved line, the lock line and the claim line -------------

    /** i32 client mailbox bit (0/1), flipped by the client to hand the turn to the server (turn line). */
    public static final long CLIENT_FLAG = 0;
    /** i32 kind of the client's packet: {@link #KIND_OPEN}, {@link #KIND_DATA} or {@link #KIND_CANCEL}. */
    public static final long KIND = 4;
    /** i32 opcode of the call (namespace in the high 16 bits, see {@link Opcodes}); written with the OPEN packet. */
    public static final long OPCODE = 8;
    /** u64 lane mask: bit i set when lane i takes part in the call; written with the OPEN packet. */
    public static final long LANE_MASK = 16;
    /** u64 identity of the calling dispatch (its kernarg address), 0 for a host caller. */
    public static final long CALLER_DISPATCH = 24;
    /** u64 packet id of the calling dispatch in its queue, 0 for a host caller. */
    public static final long CALLER_PACKET = 32;
    /** Offset of the server's packet on the turn line, after the client's. */
    public static final long SERVER_PACKET = 40;
    /** i32 server mailbox bit (0/1), flipped by the server to hand the turn back (turn line). */
    public static final long SERVER_FLAG = SERVER_PACKET;
    /** i32 status of the server's packet: {@link RpcStatus#FINAL_BIT} | code, or 0 (CONTINUE) in mid-call. */
    public static final long STATUS = SERVER_PACKET + 4;
    /**
     * i32 1 while a server thread watches the port between calls: it holds the port's claim and
     * spins on {@link #CLIENT_FLAG} itself, so a client that reads 1 here after its flip skips the
     * pending bit and the doorbell. Written only by the claim holder: with every server packet (1
     * with the final packet of a call it keeps watching after, else 0), and cleared with a
     * screlease store before the watcher stops and reads the client flag once more.
     */
    public static final long SERVER_WATCH = SERVER_PACKET + 8;
    /**
     * i32 index of the calling agent (its bit in access masks), written with the OPEN packet at the
     * end of the turn line: the server reads and writes the caller's buffers through that agent's
     * view, with its access rights, never through the host's.
     */
    public static final long CALLER_AGENT = 56;
    /** Offset of the reserved line, unused, so the lock line is not the turn line's neighbour in a 128-byte pair the cores prefetch together. */
    public static final long RESERVED_LINE = 64;
    /**
     * i32 client lock: 0 free, 1 held by one caller (compare-and-swap by clients only). On a line of
     * its own: the server never reads it, so a caller reusing its port takes and frees the lock
     * without moving a line the server reads.
     */
    public static final long LOCK = 128;
    /**
     * i32 server claim: 0 free, 1 while one server thread owns the port's server side
     * (compare-and-swap by server threads only), on a line of its own for the same reason.
     */
    public static final long SERVER_CLAIM = 192;
    /** Size of the port header; lane 0 starts here. */
    public static final long PORT_HEADER_BYTES = 256;

    /** {@link #KIND}: first packet of a call; it carries opcode, lane mask, caller and the lanes' arguments. */
    public static final int KIND_OPEN = 1;
    /** {@link #KIND}: a later packet of a call: a send_n chunk or an acknowledgement of a recv_n chunk. */
    public static final int KIND_DATA = 2;
    /** {@link #KIND}: the client abandons the call; the server ends it with {@link RpcStatus#CANCELLED}. */
    public static final int KIND_CANCEL = 3;

    // ---- lanes ----------------------------------------------------------------------------------

    /** Bytes of one lane buffer: eight u64 arguments or results, or a slice of a send_n/recv_n chunk. */
    public static final int LANE_BYTES = 64;
    /** u64 values in one lane buffer. */
    public static final int LANE_WORDS = LANE_BYTES / 8;
    /** Most lanes a port can have (the lane mask is 64 bits). */
    public static final int MAX_LANES = 64;
    /** Bytes at the start of a lane's first send_n/recv_n chunk holding the u64 total length. */
    public static final int CHUNK_LENGTH_BYTES = 8;

    private RpcLayout() {
    }

    /** Number of u64 words of the pending bitmap. */
    public static int pendingWords(int ports) {
        return (ports + 63) >>> 6;
    }

    /** Byte offset of the pending bitmap from the set base. */
    public static long pendingOffset() {
        return SET_HEADER_BYTES;
    }

    /** Byte offset of port 0 from the set base (the bitmap padded to a cache line). */
    public static long portsOffset(int ports) {
        return SET_HEADER_BYTES + ((pendingWords(ports) * 8L + 63) & ~63L);
    }

    /** Bytes from one port to the next: header plus lane buffers. */
    public static long portStride(int lanes) {
        return PORT_HEADER_BYTES + (long) lanes * LANE_BYTES;
    }

    /** Total bytes of a port set. */
    public static long setBytes(int ports, int lanes) {
        return portsOffset(ports) + (long) ports * portStride(lanes);
    }

    /** Offset of lane {@code lane}'s buffer from its port's address. */
    public static long laneOffset(int lane) {
        return PORT_HEADER_BYTES + (long) lane * LANE_BYTES;
    }

    /**
     * Bytes of one lane's slice of a send_n/recv_n chunk when {@code activeLanes} of a port's
     * {@code lanes} take part: the port's lane buffers are shared out evenly in whole lane buffers,
     * so a single-lane transfer moves all of them per round trip.
     */
    public static int chunkBytes(int lanes, int activeLanes) {
        return (lanes / activeLanes) * LANE_BYTES;
    }
}
