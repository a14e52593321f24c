package org.hsa4j.services.rpc;

/**
 * Thrown inside a service when its call can no longer go on: the client cancelled it, stopped
 * answering past the call timeout, or the server is shutting down. The server ends the call with
 * {@link #status()}.
 */
public final class CallEndedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final RpcStatus status;

    public CallEndedException(RpcStatus status, String message) {
        super(status + ": " + message, null, false, false);
        this.status = status;
    }

    /** The status the call ends with. */
    public RpcStatus status() {
        return status;
    }
}
