package org.hsa4j.services.net;

import java.util.Objects;

import org.hsa4j.kernel.ServiceCaller;
import org.hsa4j.services.rpc.RpcClient;
import org.hsa4j.services.rpc.RpcStatus;
import org.hsa4j.services.syscall.Errno;

/**
 * TCP for kernels: each method is one RPC call served by the host's Netty event loop and returns
 * a socket id or a byte count ({@code >= 0}), or {@code -errno}. Addresses are IPv4 as an int
 * ({@link NetOp#LOOPBACK} is 127.0.0.1); buffers are SVM addresses the host may access. accept and
 * recv wait for a peer without occupying a host thread.
 */
public final class Net {
    private final RpcClient client;

    /** Network calls through {@code client}. */
    public Net(RpcClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    private long call(ServiceCaller wi, NetOp op, long... args) {
        long[] inOut = new long[8];
        System.arraycopy(args, 0, inOut, 0, args.length);
        RpcStatus s = client.invoke(wi, op.opcode(), inOut);
        if (s == RpcStatus.OK) {
            return inOut[0];
        }
        return s == RpcStatus.UNKNOWN_OPCODE ? -Errno.ENOSYS : s == RpcStatus.TIMEOUT ? -Errno.ETIMEDOUT : -Errno.EIO;
    }

    /** listen on {@code ipv4}:{@code port} (0 picks a free port): a socket id. */
    public long listen(ServiceCaller wi, int ipv4, int port, int backlog) {
        return call(wi, NetOp.LISTEN, ipv4, port, backlog);
    }

    /** The port a socket is bound to. */
    public long localPort(ServiceCaller wi, long socket) {
        return call(wi, NetOp.LOCAL_PORT, socket);
    }

    /** accept the next connection of a listening socket (waits for one): a connection id. */
    public long accept(ServiceCaller wi, long listener) {
        return call(wi, NetOp.ACCEPT, listener);
    }

    /** connect to {@code ipv4}:{@code port}: a connection id. */
    public long connect(ServiceCaller wi, int ipv4, int port) {
        return call(wi, NetOp.CONNECT, ipv4, port);
    }

    /** send {@code count} bytes from SVM at {@code buffer}: the count sent. */
    public long send(ServiceCaller wi, long connection, long buffer, long count) {
        return call(wi, NetOp.SEND, connection, buffer, count);
    }

    /** recv up to {@code capacity} bytes into SVM at {@code buffer} (waits for data): the count, 0 once the peer closed. */
    public long recv(ServiceCaller wi, long connection, long buffer, long capacity) {
        return call(wi, NetOp.RECV, connection, buffer, capacity);
    }

    /** close a socket. */
    public long close(ServiceCaller wi, long socket) {
        return call(wi, NetOp.CLOSE, socket);
    }
}
