package org.hsa4j.services.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;

/** What each network policy allows, without a socket. */
class NetPolicyTest {
    private static InetSocketAddress at(String ip, int port) throws UnknownHostException {
        return new InetSocketAddress(InetAddress.getByName(ip), port);
    }

    @Test
    void shouldPermitLoopbackAtUnprivilegedPortsByDefault() throws UnknownHostException {
        assertTrue(NetPolicy.LOOPBACK_ONLY.permits(NetOp.LISTEN, at("127.0.0.1", 0)));
        assertTrue(NetPolicy.LOOPBACK_ONLY.permits(NetOp.LISTEN, at("127.0.0.1", 1024)));
        assertTrue(NetPolicy.LOOPBACK_ONLY.permits(NetOp.CONNECT, at("127.0.0.1", 65535)));
        assertTrue(NetPolicy.LOOPBACK_ONLY.permits(NetOp.CONNECT, at("::1", 8080)));
    }

    @Test
    void shouldRefusePrivilegedPortsByDefault() throws UnknownHostException {
        assertFalse(NetPolicy.LOOPBACK_ONLY.permits(NetOp.LISTEN, at("127.0.0.1", 80)));
        assertFalse(NetPolicy.LOOPBACK_ONLY.permits(NetOp.LISTEN, at("127.0.0.1", 1023)));
        assertFalse(NetPolicy.LOOPBACK_ONLY.permits(NetOp.CONNECT, at("127.0.0.1", 22)));
        assertFalse(NetPolicy.LOOPBACK_ONLY.permits(NetOp.CONNECT, at("127.0.0.1", 1)));
    }

    @Test
    void shouldRefuseConnectingToPortZeroByDefault() throws UnknownHostException {
        assertFalse(NetPolicy.LOOPBACK_ONLY.permits(NetOp.CONNECT, at("127.0.0.1", 0)));
    }

    @Test
    void shouldRefuseAddressesOutsideLoopbackByDefault() throws UnknownHostException {
        assertFalse(NetPolicy.LOOPBACK_ONLY.permits(NetOp.CONNECT, at("10.0.0.1", 8080)));
        assertFalse(NetPolicy.LOOPBACK_ONLY.permits(NetOp.LISTEN, at("0.0.0.0", 8080)));
        assertFalse(NetPolicy.LOOPBACK_ONLY.permits(NetOp.LISTEN, at("::", 8080)));
    }

    @Test
    void shouldPermitOnlyTheListedLoopbackPortsWithAnAllowList() throws UnknownHostException {
        NetPolicy p = NetPolicy.loopbackPorts(80, 5432);
        assertTrue(p.permits(NetOp.CONNECT, at("127.0.0.1", 80)));
        assertTrue(p.permits(NetOp.LISTEN, at("127.0.0.1", 5432)));
        assertFalse(p.permits(NetOp.CONNECT, at("127.0.0.1", 8080)));
        assertFalse(p.permits(NetOp.LISTEN, at("127.0.0.1", 0)), "0 is a port like any other: not listed");
        assertFalse(p.permits(NetOp.CONNECT, at("10.0.0.1", 80)), "the list does not widen the addresses");
    }

    @Test
    void shouldRejectAnAllowListedPortOutOfRangeWithInvalidArgument() {
        HsaException e = assertThrows(HsaException.class, () -> NetPolicy.loopbackPorts(65536));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertThrows(HsaException.class, () -> NetPolicy.loopbackPorts(-1));
    }

    @Test
    void shouldPermitOnlyWhatBothPermitWhenCombined() throws UnknownHostException {
        NetPolicy p = NetPolicy.LOOPBACK_ONLY.and(NetPolicy.loopbackPorts(22, 8080));
        assertTrue(p.permits(NetOp.CONNECT, at("127.0.0.1", 8080)));
        assertFalse(p.permits(NetOp.CONNECT, at("127.0.0.1", 22)));
    }

    @Test
    void shouldPermitAnythingOnlyWhenUnsandboxedIsNamed() throws UnknownHostException {
        assertTrue(NetPolicy.ALLOW_ALL_UNSANDBOXED.permits(NetOp.CONNECT, at("10.0.0.1", 22)));
    }
}
