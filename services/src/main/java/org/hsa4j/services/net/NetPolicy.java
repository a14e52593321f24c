package org.hsa4j.services.net;

import java.net.InetSocketAddress;

/**
 * Decides whether a kernel may listen on or connect to an address. A denied call returns
 * {@code -EPERM}.
 */
@FunctionalInterface
public interface NetPolicy {
    /** True when {@code op} on {@code address} may run. */
    boolean permits(NetOp op, InetSocketAddress address);

    /** Only loopback addresses (the default: kernels talk to local servers). */
    NetPolicy LOOPBACK_ONLY = (op, address) -> address.getAddress() != null && address.getAddress().isLoopbackAddress();

    /** Any address. */
    NetPolicy ALLOW_ALL = (op, address) -> true;
}
