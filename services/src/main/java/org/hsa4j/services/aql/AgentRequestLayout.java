package org.hsa4j.services.aql;

/**
 * Layout of the request block an agent dispatch service call points to (its packet's arg 0 and
 * return address). The kernel fills the inputs, the CPU agent's handler writes the outputs before
 * the packet's completion signal is decremented, so a kernel that waited on the signal with
 * scacquire reads complete results.
 */
public final class AgentRequestLayout {
    /** u64 args[8] in; the service's results[8] out, in place. */
    public static final long ARGS = 0;
    /** u64 address of the payload the service receives (recv_n), 0 for none. */
    public static final long PAYLOAD_IN = 64;
    /** u64 bytes of that payload. */
    public static final long PAYLOAD_IN_LENGTH = 72;
    /** u64 address of a buffer for the payload the service sends (send_n), 0 for none. */
    public static final long PAYLOAD_OUT = 80;
    /** u64 capacity of that buffer. */
    public static final long PAYLOAD_OUT_CAPACITY = 88;
    /** u64 out: bytes the service sent (may exceed the capacity: then the status is OVERFLOW). */
    public static final long PAYLOAD_OUT_LENGTH = 96;
    /** i32 out: the call's {@link org.hsa4j.services.rpc.RpcStatus} code. */
    public static final long STATUS = 104;
    /** i32 in: the opcode. */
    public static final long OPCODE = 108;
    /** u64 in: identity of the calling dispatch (its kernarg address). */
    public static final long CALLER_DISPATCH = 112;
    /** u64 in: packet id of the calling dispatch. */
    public static final long CALLER_PACKET = 120;
    /** Size of a request block. */
    public static final long BYTES = 128;

    private AgentRequestLayout() {
    }
}
