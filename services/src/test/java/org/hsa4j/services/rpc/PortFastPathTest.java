package org.hsa4j.services.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.memory.Svm;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.ServicesConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short ways through the ports: one-shot calls reusing one call object per port, core calls
 * answered in place by the server thread, callers parking while no port is free, and a watched
 * port served by another server thread while its watcher is busy.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PortFastPathTest {
    private static final int USER_NS = Opcodes.USER_NAMESPACE_FIRST;
    /** Runs each task on a thread of its own (a pool could queue one caller behind a blocked one). */
    private static final Executor OWN_THREAD = task -> new Thread(task).start();

    @Test
    void shouldAnswerAnInvokeCorrectlyOnAPortWhoseLastOneShotCallFailed() {
        try (Fixture one = Fixture.start(ServicesConfig.builder().ports(1))) {
            RpcClient client = one.services.client();
            Svm svm = one.rt.svm();
            assertEquals(RpcStatus.UNKNOWN_OPCODE, client.invoke(svm, 0, 0, Opcodes.of(0x7777, 1), new long[8]));
            long[] inOut = {1, 2, 3, 4, 5, 6, 7, 8};
            assertEquals(RpcStatus.OK, client.invoke(svm, 0, 0, Opcodes.ECHO, inOut));
            assertArrayEquals(new long[] {1, 2, 3, 4, 5, 6, 7, 8}, inOut);
        }
    }

    @Test
    void shouldRunAServiceRegisteredOverEchoInsteadOfAnsweringInPlace() {
        try (Fixture f = Fixture.start()) {
            f.services.registry().register(CoreService.OWNER, Opcodes.ECHO, ServiceMode.INLINE,
                    call -> call.result(0, call.arg(0) + 1));
            assertEquals(42L, f.services.client().call(f.rt.svm(), Opcodes.ECHO, 41));
        }
    }

    @Test
    void shouldRefuseANopFromAnAbortedDispatch() {
        try (Fixture f = Fixture.start()) {
            f.services.server().abortDispatch(0x1000, 7);
            RpcClient client = f.services.client();
            assertEquals(RpcStatus.ABORTED, client.invoke(f.rt.svm(), 0x1000, 7, Opcodes.NOP, new long[0]));
            assertEquals(RpcStatus.OK, client.invoke(f.rt.svm(), 0x1000, 8, Opcodes.NOP, new long[0]));
        }
    }

    @Test
    void shouldCountCallsAnsweredInPlace() {
        try (Fixture f = Fixture.start()) {
            long before = f.services.server().callsServed();
            for (int i = 0; i < 3; i++) {
                assertEquals(RpcStatus.OK, f.services.client().invoke(f.rt.svm(), 0, 0, Opcodes.NOP, new long[0]));
            }
            assertEquals(before + 3, f.services.server().callsServed());
        }
    }

    @Test
    void shouldCountACallOpenUntilItIsClosedOnAnotherThread() throws Exception {
        try (Fixture f = Fixture.start()) {
            PortSet ports = f.services.ports();
            RpcCall call = f.services.client().open(f.rt.svm(), Opcodes.NOP, 1L);
            assertEquals(1, ports.openCalls());
            Thread closer = new Thread(call::close);
            closer.start();
            closer.join(30_000);
            assertEquals(0, ports.openCalls());
        }
    }

    @Test
    void shouldParkACallerWhileTheOnlyUnlockedPortIsStillOnTheServersTurn() throws Exception {
        try (Fixture one = Fixture.start(ServicesConfig.builder().ports(1))) {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            int hold = Opcodes.of(USER_NS, 1);
            one.services.registerService("test", hold, ServiceMode.HANDLER, call -> {
                entered.countDown();
                awaitLatch(release);
            });
            RpcClient client = one.services.client();
            try (RpcCall fireAndForget = client.open(one.rt.svm(), hold, 1L)) {
                assertTrue(fireAndForget.send());
            }
            assertTrue(entered.await(30, TimeUnit.SECONDS));
            AtomicReference<RpcStatus> seen = new AtomicReference<>();
            Thread caller = new Thread(() -> seen.set(client.invoke(one.rt.svm(), 0, 0, Opcodes.NOP, new long[0])));
            caller.start();
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (caller.getState() != Thread.State.TIMED_WAITING && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
                assertEquals(Thread.State.TIMED_WAITING, caller.getState(), "the caller spins instead of parking");
            } finally {
                release.countDown();
                caller.join(30_000);
            }
            assertEquals(RpcStatus.OK, seen.get());
        }
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void shouldServeAWatchedPortOnAnotherServerThreadWhileItsWatcherServesABlockingCall() throws Exception {
        try (Fixture two = Fixture.start(ServicesConfig.builder().ports(2).serverThreads(2)
                .idleSpinNanos(100_000_000))) {
            int who = Opcodes.of(USER_NS, 1);
            int block = Opcodes.of(USER_NS, 2);
            AtomicLong blockedOn = new AtomicLong();
            AtomicReference<CountDownLatch> entered = new AtomicReference<>();
            AtomicReference<CountDownLatch> release = new AtomicReference<>();
            two.services.registerService("test", who, ServiceMode.INLINE,
                    call -> call.result(0, Thread.currentThread().threadId()));
            two.services.registerService("test", block, ServiceMode.INLINE, call -> {
                blockedOn.set(Thread.currentThread().threadId());
                entered.get().countDown();
                awaitLatch(release.get());
            });
            RpcClient client = two.services.client();
            PortSet ports = two.services.ports();
            Svm svm = two.rt.svm();
            // the setup below depends on which server thread the scheduler runs first; under load a
            // run may need many attempts, so they are bounded by time (40 s), not by a count
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            int attempts = 0;
            while (System.nanoTime() - giveUp < 0) {
                attempts++;
                entered.set(new CountDownLatch(1));
                release.set(new CountDownLatch(1));
                // the thread that serves WHO keeps watching its port, which stays locked so that
                // the blocking call takes the other one
                RpcCall first = client.open(svm, who, 1L);
                assertEquals(RpcStatus.OK, first.finish());
                long watcher = first.result(0);
                long watch = ports.portAddress(first.port()) + RpcLayout.SERVER_WATCH;
                long sleepers = ports.address() + RpcLayout.SET_SLEEPERS;
                // wait (bounded) for the other thread to fall asleep while the watcher still spins,
                // so that the watcher is the one that finds the blocking call
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                while (svm.loadIntAcquire(sleepers) == 0 && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
                boolean setUp = svm.loadIntAcquire(sleepers) == 1 && svm.loadIntAcquire(watch) == 1;
                CompletableFuture<RpcStatus> blocking = CompletableFuture.supplyAsync(
                        () -> client.invoke(svm, 0, 0, block, new long[0]), OWN_THREAD);
                assertTrue(entered.get().await(30, TimeUnit.SECONDS));
                first.close();
                try {
                    if (!setUp || blockedOn.get() != watcher) {
                        continue; // the watcher did not take the blocking call: nothing is tested, try again
                    }
                    long[] inOut = new long[1];
                    CompletableFuture<RpcStatus> next = CompletableFuture.supplyAsync(
                            () -> client.invoke(svm, 0, 0, who, inOut), OWN_THREAD);
                    assertEquals(RpcStatus.OK, next.get(10, TimeUnit.SECONDS),
                            "the watched port waited for its watcher's other call");
                    assertNotEquals(watcher, inOut[0]);
                    return;
                } finally {
                    release.get().countDown();
                    assertEquals(RpcStatus.OK, blocking.get(30, TimeUnit.SECONDS));
                }
            }
            fail("the watcher never took the blocking call in " + attempts + " attempts (40 s)");
        }
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
