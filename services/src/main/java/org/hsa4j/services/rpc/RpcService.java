package org.hsa4j.services.rpc;

/**
 * A host service behind one or more opcodes. It reads the call's arguments, may exchange payloads
 * with {@link ServerCall#recvN()} and {@link ServerCall#sendN}, sets results and returns; the call
 * then ends with {@link RpcStatus#OK} unless the service ended it itself or {@linkplain
 * ServerCall#defer() deferred} it to finish later from another thread. An exception ends the call
 * with {@link RpcStatus#SERVICE_ERROR}; it never stops the server.
 */
@FunctionalInterface
public interface RpcService {
    /** Serves one call. */
    void serve(ServerCall call) throws Exception;
}
