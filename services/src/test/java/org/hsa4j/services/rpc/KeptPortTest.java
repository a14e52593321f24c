package org.hsa4j.services.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.memory.Svm;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.signal.WaitState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kept ports: a one-shot call that ends in the client's turn keeps its port, lock held, for its
 * thread's next one-shot call; any other caller that finds no free port takes a kept one over; the
 * services' close takes every kept port back. With one port every caller's first port is port 0.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KeptPortTest {
    private static int lock(PortSet ports, int p) {
        return ports.loadIntAcquire(ports.portOffset(p) + RpcLayout.LOCK);
    }

    /** One no-op one-shot call from a thread of its own; returns its status. */
    private static RpcStatus nopOnAnotherThread(RpcClient client, Svm svm) {
        return CompletableFuture.supplyAsync(() -> client.invoke(svm, 0, 0, Opcodes.NOP, new long[0]),
                task -> new Thread(task).start()).join();
    }

    @Test
    void shouldKeepThePortLockedForTheThreadsNextOneShotCall() {
        try (Fixture f = Fixture.start(ServicesConfig.builder().ports(1))) {
            PortSet ports = f.services.ports();
            assertEquals(RpcStatus.OK, f.services.client().invoke(f.rt.svm(), 0, 0, Opcodes.NOP, new long[0]));
            assertSame(Thread.currentThread(), ports.keeper(0));
            assertEquals(1, lock(ports, 0), "a kept port stays locked");
            assertEquals(1, ports.openCalls(), "a kept port stays counted");
        }
    }

    @Test
    void shouldServeTheKeepersNextCallOnItsKeptPort() {
        try (Fixture f = Fixture.start(ServicesConfig.builder().ports(1))) {
            RpcClient client = f.services.client();
            long[] inOut = {5, 6};
            assertEquals(RpcStatus.OK, client.invoke(f.rt.svm(), 0, 0, Opcodes.NOP, new long[0]));
            assertEquals(RpcStatus.OK, client.invoke(f.rt.svm(), 0, 0, Opcodes.ECHO, inOut));
            assertEquals(5, inOut[0]);
            assertEquals(6, inOut[1]);
            assertSame(Thread.currentThread(), f.services.ports().keeper(0));
        }
    }

    @Test
    void shouldLetAnotherCallerTakeAKeptPortOver() {
        try (Fixture f = Fixture.start(ServicesConfig.builder().ports(1))) {
            PortSet ports = f.services.ports();
            RpcClient client = f.services.client();
            assertEquals(RpcStatus.OK, client.invoke(f.rt.svm(), 0, 0, Opcodes.NOP, new long[0]));
            assertEquals(RpcStatus.OK, nopOnAnotherThread(client, f.rt.svm()));
            assertTrue(ports.keeper(0) != Thread.currentThread(), "the other caller took the port over and kept it");
            assertEquals(RpcStatus.OK, client.invoke(f.rt.svm(), 0, 0, Opcodes.NOP, new long[0]));
            assertSame(Thread.currentThread(), ports.keeper(0), "and this thread took it back");
            assertEquals(1, ports.openCalls(), "one count for the one port, whoever keeps it");
        }
    }

    @Test
    void shouldLetAnOpenCallTakeAKeptPortAndReleaseItAtClose() {
        try (Fixture f = Fixture.start(ServicesConfig.builder().ports(1))) {
            PortSet ports = f.services.ports();
            RpcClient client = f.services.client();
            assertEquals(RpcStatus.OK, nopOnAnotherThread(client, f.rt.svm()));
            try (RpcCall call = client.open(f.rt.svm(), Opcodes.NOP, 1L)) {
                assertEquals(0, call.port());
                assertSame(PortSet.IN_CALL, ports.keeper(0));
                assertEquals(RpcStatus.OK, call.finish());
            }
            assertNull(ports.keeper(0), "an open call does not keep its port");
            assertEquals(0, lock(ports, 0));
            assertEquals(0, ports.openCalls());
        }
    }

    @Test
    void shouldNotKeepThePortOfACallThatEndedInTheServersTurn() {
        try (Fixture f = Fixture.start(ServicesConfig.builder().ports(1))) {
            int slow = Opcodes.of(Opcodes.USER_NAMESPACE_FIRST, 1);
            f.services.registerService("test", slow, ServiceMode.HANDLER, call -> LockSupport.parkNanos(50_000_000L));
            PortSet ports = f.services.ports();
            RpcClient client = f.services.client(WaitState.BLOCKED);
            Thread.currentThread().interrupt();
            RpcStatus status;
            try {
                status = client.invoke(f.rt.svm(), 0, 0, slow, new long[0]);
            } finally {
                Thread.interrupted();
            }
            assertEquals(RpcStatus.CANCELLED, status);
            assertNull(ports.keeper(0), "a call given up in the server's turn leaves its port to the protocol");
            assertEquals(RpcStatus.OK, client.invoke(f.rt.svm(), 0, 0, Opcodes.NOP, new long[0]), "the port recovers");
        }
    }

    @Test
    void shouldTakeKeptPortsBackWhenTheServicesClose() {
        Fixture f = Fixture.start(ServicesConfig.builder().ports(1));
        PortSet ports = f.services.ports();
        try {
            assertEquals(RpcStatus.OK, nopOnAnotherThread(f.services.client(), f.rt.svm()));
        } finally {
            f.close();
        }
        assertNull(ports.keeper(0));
        assertEquals(0, ports.openCalls(), "the close took the kept port's count back, so the memory could go");
        assertTrue(ports.isFreed());
    }
}
