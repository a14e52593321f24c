package org.hsa4j.services.rpc;

/** A call that ended with an error status, thrown by the convenience calls of {@link RpcClient}. */
public class RpcException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final RpcStatus status;

    public RpcException(RpcStatus status, String message) {
        super(status + ": " + message);
        this.status = status;
    }

    /** How the call ended. */
    public RpcStatus status() {
        return status;
    }
}
