package org.hsa4j.services.net;

import org.hsa4j.services.rpc.Opcodes;

/** The network calls, with their opcodes in {@link Opcodes#NET_NAMESPACE}. */
public enum NetOp {
    /** listen(ipv4, port, backlog) -> socket id; port 0 picks a free port. */
    LISTEN(0),
    /** accept(listening socket) -> connection id; result 1 is the peer's port. */
    ACCEPT(1),
    /** connect(ipv4, port) -> connection id. */
    CONNECT(2),
    /** send(connection, buffer address, count) -> bytes sent. */
    SEND(3),
    /** recv(connection, buffer address, capacity) -> bytes received, 0 once the peer closed. */
    RECV(4),
    /** close(socket) -> 0. */
    CLOSE(5),
    /** local_port(socket) -> the port the socket is bound to. */
    LOCAL_PORT(6);

    private final int number;

    NetOp(int number) {
        this.number = number;
    }

    /** The RPC opcode. */
    public int opcode() {
        return Opcodes.of(Opcodes.NET_NAMESPACE, number);
    }

    /** The IPv4 address 127.0.0.1 as the int the calls take. */
    public static final int LOOPBACK = 0x7F000001;
}
