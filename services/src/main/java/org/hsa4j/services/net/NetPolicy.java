package org.hsa4j.services.net;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.BitSet;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Decides whether a kernel may listen on or connect to an address and port. A denied call
 * returns {@code -EPERM} and opens nothing. The default, {@link #LOOPBACK_ONLY}, keeps kernels on
 * loopback and off privileged ports; {@link #loopbackPorts} is the allow-list for anything else
 * on loopback (docs/SECURITY.md gives the reasons).
 */
@FunctionalInterface
public interface NetPolicy {
    /** True when {@code op} on {@code address} may run. */
    boolean permits(NetOp op, InetSocketAddress address);

    /** The lowest port that is not privileged; 1 to 1023 need {@link #loopbackPorts}. */
    int FIRST_UNPRIVILEGED_PORT = 1024;

    /**
     * The default: loopback addresses only, ports from {@link #FIRST_UNPRIVILEGED_PORT} up (listen
     * on port 0 lets the system pick one). A kernel can neither impersonate a system service
     * (ssh on 22, a resolver on 53) by listening on its port nor talk to one by connecting.
     */
    NetPolicy LOOPBACK_ONLY = (op, address) -> loopback(address)
            && (address.getPort() >= FIRST_UNPRIVILEGED_PORT || address.getPort() == 0 && op == NetOp.LISTEN);

    /**
     * NO SANDBOX: any address and port, the whole network the host reaches. Only for kernels as
     * trusted as the host code itself.
     */
    NetPolicy ALLOW_ALL_UNSANDBOXED = (op, address) -> true;

    /**
     * Loopback addresses, and only {@code ports} for both listen and connect: the allow-list.
     * Privileged ports may be named; name 0 to let listen pick a port.
     *
     * @throws HsaException {@link HsaStatus#INVALID_ARGUMENT} for a port outside 0..65535
     */
    static NetPolicy loopbackPorts(int... ports) {
        BitSet allowed = new BitSet(65536);
        for (int p : ports) {
            if (p < 0 || p > 65535) {
                throw new HsaException(HsaStatus.INVALID_ARGUMENT,
                        "port " + p + " outside 0..65535 in " + Arrays.toString(ports));
            }
            allowed.set(p);
        }
        return (op, address) -> loopback(address) && allowed.get(address.getPort());
    }

    /** Both this policy and {@code other} must permit. */
    default NetPolicy and(NetPolicy other) {
        return (op, address) -> permits(op, address) && other.permits(op, address);
    }

    /** True when {@code address} is resolved and a loopback address (127/8 or ::1). */
    private static boolean loopback(InetSocketAddress address) {
        return address.getAddress() != null && address.getAddress().isLoopbackAddress();
    }
}
