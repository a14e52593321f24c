package org.hsa4j.services.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.hsa4j.services.ServicesConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RpcCallTest {
    private static final int USER_NS = Opcodes.USER_NAMESPACE_FIRST;

    private Fixture f;

    @BeforeEach
    void start() {
        f = Fixture.start();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    @Test
    void shouldAnswerAnEchoCallFromAKernel() {
        long out = f.rt.hostMalloc(8 * 8);
        RpcClient client = f.services.client();
        Kernels.run(f.rt, f.queue, wi -> {
            long[] inOut = {11, 22, 33, 44, 55, 66, 77, 88};
            RpcStatus s = client.invoke(wi, Opcodes.ECHO, inOut);
            for (int i = 0; i < 8; i++) {
                wi.svm().setLong(Kernels.arg(wi, 0) + 8L * i, s == RpcStatus.OK ? inOut[i] : -1);
            }
        }, 1, 1, out);
        for (int i = 0; i < 8; i++) {
            assertEquals(11L * (i + 1), f.rt.svm().getLong(out + 8L * i));
        }
    }

    @Test
    void shouldCarryEveryLaneOfABatchedCallInOneRoundTrip() {
        RpcClient client = f.services.client();
        int lanes = client.lanes();
        long[][] inOut = new long[64][];
        for (int lane = 0; lane < lanes; lane++) {
            inOut[lane] = new long[8];
            for (int i = 0; i < 8; i++) {
                inOut[lane][i] = lane * 100L + i;
            }
        }
        long mask = lanes == 64 ? -1L : (1L << lanes) - 1;
        long before = f.services.server().callsServed();
        RpcStatus s = client.invokeBatch(f.rt.svm(), 0, 0, Opcodes.ECHO, mask, inOut);
        assertEquals(RpcStatus.OK, s);
        assertEquals(before + 1, f.services.server().callsServed());
        for (int lane = 0; lane < lanes; lane++) {
            for (int i = 0; i < 8; i++) {
                assertEquals(lane * 100L + i, inOut[lane][i]);
            }
        }
    }

    @Test
    void shouldReturnUnknownOpcodeToTheCallerAndKeepServing() {
        RpcClient client = f.services.client();
        long[] args = {1};
        assertEquals(RpcStatus.UNKNOWN_OPCODE, client.invoke(f.rt.svm(), 0, 0, Opcodes.of(0x7777, 3), args));
        RpcException e = assertThrows(RpcException.class, () -> client.call(f.rt.svm(), Opcodes.of(USER_NS, 9)));
        assertEquals(RpcStatus.UNKNOWN_OPCODE, e.status());
        assertEquals(5L, client.call(f.rt.svm(), Opcodes.ECHO, 5));
    }

    @Test
    void shouldReturnUnknownOpcodeToAKernelWithoutFailingTheDispatch() {
        long out = f.rt.hostMalloc(8);
        RpcClient client = f.services.client();
        Kernels.run(f.rt, f.queue, wi -> {
            RpcStatus s = client.invoke(wi, Opcodes.of(0x7777, 1), new long[8]);
            wi.svm().setLong(Kernels.arg(wi, 0), s.code());
        }, 1, 1, out);
        assertEquals(RpcStatus.UNKNOWN_OPCODE.code(), f.rt.svm().getLong(out));
    }

    @Test
    void shouldRoundTripSendNPayloadsOfAnySize() {
        RpcClient client = f.services.client();
        Random random = new Random(42);
        for (int size : new int[] {0, 1, 55, 56, 57, 4095, 4096, 4097, 100_000}) {
            byte[] data = new byte[size];
            random.nextBytes(data);
            try (RpcCall c = client.open(f.rt.svm(), Opcodes.ECHO_N, 1L)) {
                assertTrue(c.sendN(data));
                byte[] back = c.recvNFirstLane();
                assertEquals(RpcStatus.OK, c.finish());
                assertArrayEquals(data, back, "payload of " + size + " bytes");
            }
        }
    }

    @Test
    void shouldRoundTripPayloadsOfDifferentSizesPerLane() {
        RpcClient client = f.services.client();
        long mask = 0b1011_0001L;
        byte[][] data = new byte[64][];
        for (long m = mask; m != 0; m &= m - 1) {
            int lane = Long.numberOfTrailingZeros(m);
            data[lane] = new byte[lane * 97 + 3];
            for (int i = 0; i < data[lane].length; i++) {
                data[lane][i] = (byte) (lane + i);
            }
        }
        try (RpcCall c = client.open(f.rt.svm(), Opcodes.ECHO_N, mask)) {
            assertTrue(c.sendN(data));
            byte[][] back = c.recvN();
            assertEquals(RpcStatus.OK, c.finish());
            for (long m = mask; m != 0; m &= m - 1) {
                int lane = Long.numberOfTrailingZeros(m);
                assertArrayEquals(data[lane], back[lane], "lane " + lane);
            }
            assertNull(back[1]);
        }
    }

    @Test
    void shouldEndACallWithServiceErrorWhenTheServiceThrowsAndKeepServing() {
        f.services.registerService("test", Opcodes.of(USER_NS, 1), ServiceMode.INLINE, call -> {
            throw new IllegalStateException("boom (expected by the test)");
        });
        RpcClient client = f.services.client();
        assertEquals(RpcStatus.SERVICE_ERROR, client.invoke(f.rt.svm(), 0, 0, Opcodes.of(USER_NS, 1), new long[8]));
        assertEquals(9L, client.call(f.rt.svm(), Opcodes.ECHO, 9));
    }

    @Test
    void shouldServeAUserHandlerServiceOnAServicesThread() {
        // on the server thread that found it when no other port waits (HandlerCallHereTest), else on a handler
        f.services.registerService("test", Opcodes.of(USER_NS, 2), ServiceMode.HANDLER, call -> {
            call.result(0, call.arg(0) * call.arg(1));
            String thread = Thread.currentThread().getName();
            call.result(1, thread.contains("-server-") || thread.contains("-handler-") ? 1 : 0);
        });
        long[] inOut = {6, 7};
        assertEquals(RpcStatus.OK, f.services.client().invoke(f.rt.svm(), 0, 0, Opcodes.of(USER_NS, 2), inOut));
        assertEquals(42L, inOut[0]);
        assertEquals(1L, inOut[1]);
    }

    @Test
    void shouldKeepServingHandlerCallsWhileOneHandlerIsBlocked() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch entered = new CountDownLatch(1);
        f.services.registerService("test", Opcodes.of(USER_NS, 4), ServiceMode.HANDLER, call -> {
            entered.countDown();
            release.await();
        });
        f.services.registerService("test", Opcodes.of(USER_NS, 5), ServiceMode.HANDLER,
                call -> call.result(0, call.arg(0) + 1));
        RpcClient client = f.services.client();
        RpcStatus[] blocked = new RpcStatus[1];
        Thread slow = new Thread(() -> blocked[0] = client.invoke(f.rt.svm(), 0, 0, Opcodes.of(USER_NS, 4), new long[8]));
        slow.start();
        assertTrue(entered.await(30, TimeUnit.SECONDS));
        int calls = 4 * f.services.ports().ports() + 10;
        for (int i = 0; i < calls; i++) {
            assertEquals(i + 1L, client.call(f.rt.svm(), Opcodes.of(USER_NS, 5), i));
        }
        release.countDown();
        slow.join();
        assertEquals(RpcStatus.OK, blocked[0]);
    }

    @Test
    void shouldServeAFireAndForgetCallAfterTheCallerReleasedThePort() throws InterruptedException {
        CountDownLatch served = new CountDownLatch(3);
        AtomicInteger sum = new AtomicInteger();
        f.services.registerService("test", Opcodes.of(USER_NS, 3), ServiceMode.HANDLER, call -> {
            sum.addAndGet((int) call.arg(0));
            served.countDown();
        });
        RpcClient client = f.services.client();
        for (int i = 1; i <= 3; i++) {
            try (RpcCall c = client.open(f.rt.svm(), Opcodes.of(USER_NS, 3), 1L)) {
                c.args(i);
                assertTrue(c.send());
            }
        }
        assertTrue(served.await(30, TimeUnit.SECONDS));
        assertEquals(6, sum.get());
        assertEquals(4L, client.call(f.rt.svm(), Opcodes.ECHO, 4));
    }

    @Test
    void shouldEndACallWithProtocolErrorWhenTheServiceExpectsMoreThanTheClientSends() {
        RpcClient client = f.services.client();
        try (RpcCall c = client.open(f.rt.svm(), Opcodes.ECHO_N, 1L)) {
            assertEquals(RpcStatus.PROTOCOL_ERROR, c.finish());
        }
        assertEquals(3L, client.call(f.rt.svm(), Opcodes.ECHO, 3));
    }

    @Test
    void shouldRefuseArgumentsAfterTheOpenPacket() {
        try (RpcCall c = f.services.client().open(f.rt.svm(), Opcodes.ECHO, 1L)) {
            c.args(1);
            c.send();
            assertThrows(IllegalStateException.class, () -> c.arg(0, 0, 2));
            assertEquals(RpcStatus.OK, c.finish());
            assertEquals(1L, c.result(0));
        }
    }

    @Test
    void shouldRefuseALaneMaskOutsideThePort() {
        RpcClient client = f.services.client();
        assertThrows(IllegalArgumentException.class, () -> client.open(f.rt.svm(), Opcodes.ECHO, 0L));
        if (client.lanes() < 64) {
            assertThrows(IllegalArgumentException.class, () -> client.open(f.rt.svm(), Opcodes.ECHO,
                    1L << client.lanes()));
        }
    }

    @Test
    void shouldEndTheCallOfAnInterruptedCallerWithCancelledAndRecoverItsPort() throws Exception {
        try (Fixture one = Fixture.start(ServicesConfig.builder().ports(1))) {
            ServerCall[] parked = new ServerCall[1];
            CountDownLatch deferred = new CountDownLatch(1);
            one.services.registerService("test", Opcodes.of(USER_NS, 6), ServiceMode.INLINE, call -> {
                parked[0] = call.defer();
                deferred.countDown();
            });
            RpcClient client = one.services.client();
            RpcStatus[] seen = new RpcStatus[1];
            Thread caller = new Thread(() -> seen[0] = client.invoke(one.rt.svm(), 0, 0, Opcodes.of(USER_NS, 6),
                    new long[8]));
            caller.start();
            assertTrue(deferred.await(30, TimeUnit.SECONDS));
            caller.interrupt();
            caller.join();
            assertEquals(RpcStatus.CANCELLED, seen[0]);
            parked[0].finish(RpcStatus.OK);
            assertEquals(6L, client.call(one.rt.svm(), Opcodes.ECHO, 6));
        }
    }

    @Test
    void shouldCancelACallItsCallerAbandonedHalfWay() throws Exception {
        try (Fixture one = Fixture.start(ServicesConfig.builder().ports(1))) {
            RpcClient client = one.services.client();
            RpcCall abandoned = client.open(one.rt.svm(), Opcodes.ECHO_N, 1L);
            assertTrue(abandoned.send());
            abandoned.close();
            assertEquals(8L, client.call(one.rt.svm(), Opcodes.ECHO, 8));
        }
    }
}
