package org.hsa4j.services.rpc;

/**
 * Outcome of an RPC call, as the server writes it into the port's {@link RpcLayout#STATUS} word
 * (with {@link #FINAL_BIT} on the call's last packet). A status is data, never an exception on
 * the server: an unknown opcode or a failing service ends the call with a status and the server
 * keeps serving.
 */
public enum RpcStatus {
    /** The service ran; its results are in the lanes. */
    OK(0),
    /** No service is registered for the opcode. */
    UNKNOWN_OPCODE(1),
    /** The service failed (threw); the server logged it and kept running. */
    SERVICE_ERROR(2),
    /** The client abandoned the call before it ended. */
    CANCELLED(3),
    /** Client and service disagreed on the call's packet sequence. */
    PROTOCOL_ERROR(4),
    /**
     * The call took too long: the server waited past the call timeout for the client's next packet,
     * a deferred reply passed its deadline, or the watchdog found its service stuck.
     */
    TIMEOUT(5),
    /** The calling dispatch was aborted (syscall abort); its calls are refused. */
    ABORTED(6),
    /** The services were shut down. */
    CLOSED(7),
    /** A reply did not fit the caller's buffer (agent dispatch transport). */
    OVERFLOW(8),
    /** The request was malformed (bad lane mask, bad length, unknown calling agent). */
    BAD_REQUEST(9),
    /**
     * Every port stayed taken for the client's port wait limit (as {@code HsaStatus.RESOURCE_BUSY}):
     * the call was never sent; the caller may try again.
     */
    BUSY(10);

    /** Bit 31 of the status word: set on the server's last packet of a call. */
    public static final int FINAL_BIT = 1 << 31;
    /** Status word of a mid-call server packet: not final, the client goes on. */
    public static final int CONTINUE_WORD = 0;

    private static final RpcStatus[] BY_CODE = values();

    private final int code;

    RpcStatus(int code) {
        this.code = code;
    }

    /** Numeric code, as stored in the status word. */
    public int code() {
        return code;
    }

    /** The status with {@code code}; unknown codes read as {@link #PROTOCOL_ERROR}. */
    public static RpcStatus of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : PROTOCOL_ERROR;
    }

    /** The status word of a final server packet with this status. */
    public int finalWord() {
        return FINAL_BIT | code;
    }

    /** True when {@code word} marks the call's last server packet. */
    public static boolean isFinal(int word) {
        return (word & FINAL_BIT) != 0;
    }

    /** The status carried by a status word. */
    public static RpcStatus ofWord(int word) {
        return of(word & ~FINAL_BIT);
    }
}
