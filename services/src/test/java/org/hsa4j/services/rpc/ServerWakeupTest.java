package org.hsa4j.services.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.hsa4j.services.ServicesConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How sleeping server threads are woken: the doorbell, and the timed re-poll when nobody rings it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerWakeupTest {

    private static void awaitSleepingServer(Fixture f) {
        Svm svm = f.rt.svm();
        long sleepers = f.services.ports().address() + RpcLayout.SET_SLEEPERS;
        while (svm.loadIntAcquire(sleepers) == 0) {
            LockSupport.parkNanos(100_000);
        }
    }

    @Test
    void shouldServeACallWrittenBehindTheClientApiThroughTheTimedRepoll() {
        try (Fixture f = Fixture.start(ServicesConfig.builder().repollNanos(20_000_000))) {
            awaitSleepingServer(f);
            PortSet ports = f.services.ports();
            long port = ports.portAddress(0);
            long pendingWord = ports.pendingWordAddress(0);
            long out = f.rt.hostMalloc(16);
            long wakeupsBefore = f.services.server().doorbellWakeups();
            Kernels.run(f.rt, f.queue, wi -> {
                Svm svm = wi.svm();
                while (svm.atomicCompareExchangeInt(port + RpcLayout.LOCK, 0, 1, MemoryOrder.ACQUIRE,
                        MemoryScope.SYSTEM) != 0) {
                    Thread.onSpinWait();
                }
                int flag = svm.getInt(port + RpcLayout.CLIENT_FLAG) ^ 1;
                svm.setInt(port + RpcLayout.OPCODE, Opcodes.ECHO);
                svm.setLong(port + RpcLayout.LANE_MASK, 1L);
                svm.setInt(port + RpcLayout.KIND, RpcLayout.KIND_OPEN);
                svm.setLong(port + RpcLayout.laneOffset(0), 77);
                svm.storeIntRelease(port + RpcLayout.CLIENT_FLAG, flag);
                svm.atomicOrLong(pendingWord, 1L, MemoryOrder.SEQ_CST, MemoryScope.SYSTEM);
                while (svm.loadIntAcquire(port + RpcLayout.SERVER_FLAG) != flag) {
                    Thread.onSpinWait();
                }
                svm.setLong(Kernels.arg(wi, 0), svm.getInt(port + RpcLayout.STATUS));
                svm.setLong(Kernels.arg(wi, 0) + 8, svm.getLong(port + RpcLayout.laneOffset(0)));
                svm.storeIntRelease(port + RpcLayout.LOCK, 0);
            }, 1, 1, out);
            assertEquals(RpcStatus.OK.finalWord(), (int) f.rt.svm().getLong(out));
            assertEquals(77L, f.rt.svm().getLong(out + 8));
            assertTrue(f.services.server().repollFinds() >= 1, "the re-poll found the call");
            assertEquals(wakeupsBefore, f.services.server().doorbellWakeups(), "nobody rang the doorbell");
        }
    }

    @Test
    void shouldWakeASleepingServerThroughTheDoorbell() {
        try (Fixture f = Fixture.start(ServicesConfig.builder().repollNanos(30_000_000_000L))) {
            RpcClient client = f.services.client();
            for (int attempt = 0; attempt < 5 && f.services.server().doorbellWakeups() == 0; attempt++) {
                awaitSleepingServer(f);
                long answer = assertTimeoutPreemptively(Duration.ofSeconds(10),
                        () -> client.call(f.rt.svm(), Opcodes.ECHO, 5));
                assertEquals(5L, answer);
            }
            assertTrue(f.services.server().doorbellWakeups() >= 1, "a call woke a sleeping server through the doorbell "
                    + "(a server may wake on its own timer at the same moment, hence up to five attempts)");
        }
    }

    @Test
    void shouldSleepInsteadOfSpinningWhenIdle() {
        try (Fixture f = Fixture.start(ServicesConfig.builder().serverThreads(2))) {
            awaitSleepingServer(f);
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            Thread[] threads = f.services.server().threads();
            long before = 0;
            for (Thread t : threads) {
                before += mx.getThreadCpuTime(t.threadId());
            }
            long start = System.nanoTime();
            LockSupport.parkNanos(500_000_000L);
            long wall = System.nanoTime() - start;
            long used = -before;
            for (Thread t : threads) {
                used += mx.getThreadCpuTime(t.threadId());
            }
            assertTrue(used < wall / 10, "idle service threads used " + used / 1000 + " us of CPU in " + wall / 1000
                    + " us");
        }
    }

    @Test
    void shouldEndAWaitingCallWithClosedWhenTheServicesClose() throws Exception {
        Fixture f = Fixture.start();
        try {
            f.services.registerService("test", Opcodes.of(Opcodes.USER_NAMESPACE_FIRST, 1), ServiceMode.INLINE,
                    ServerCall::defer);
            RpcStatus[] seen = new RpcStatus[1];
            Thread caller = new Thread(() -> seen[0] = f.services.client().invoke(f.rt.svm(), 0, 0,
                    Opcodes.of(Opcodes.USER_NAMESPACE_FIRST, 1), new long[8]));
            caller.start();
            while (f.services.server().callsServed() == 0) {
                LockSupport.parkNanos(100_000);
            }
            f.services.close();
            caller.join();
            assertEquals(RpcStatus.CLOSED, seen[0]);
            assertEquals(RpcStatus.CLOSED, f.services.client().invoke(f.rt.svm(), 0, 0, Opcodes.ECHO, new long[8]));
        } finally {
            f.close();
        }
    }

    @Test
    void shouldTimeOutACallWhoseClientStopsSendingAndTellTheClientLater() {
        try (Fixture f = Fixture.start(ServicesConfig.builder().callTimeoutNanos(50_000_000))) {
            try (RpcCall c = f.services.client().open(f.rt.svm(), Opcodes.ECHO_N, 1L)) {
                assertTrue(c.send());
                while (f.services.server().timeouts() == 0) {
                    LockSupport.parkNanos(1_000_000);
                }
                c.sendN(new byte[10]);
                assertEquals(RpcStatus.TIMEOUT, c.finish());
            }
            assertEquals(4L, f.services.client().call(f.rt.svm(), Opcodes.ECHO, 4));
        }
    }
}
