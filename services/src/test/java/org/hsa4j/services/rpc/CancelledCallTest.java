package org.hsa4j.services.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.services.Callers;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.ServicesConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A cancelled call gives its port back at once, deferred or not; a deferred reply has a deadline; port exhaustion is a status. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CancelledCallTest {
    private static final int NEVER = Opcodes.of(Opcodes.USER_NAMESPACE_FIRST, 1);

    /** One port and a service that defers its reply and never sends it. */
    private static Fixture onePortWithANeverEndingDeferredCall(CountDownLatch deferred) {
        return onePortWithANeverEndingDeferredCall(deferred, ServicesConfig.builder().ports(1));
    }

    private static Fixture onePortWithANeverEndingDeferredCall(CountDownLatch deferred, ServicesConfig.Builder config) {
        Fixture f = Fixture.start(config);
        f.services.registerService("test", NEVER, ServiceMode.INLINE, call -> {
            call.defer();
            deferred.countDown();
        });
        return f;
    }

    @Test
    void shouldGiveTheOnlyPortBackWhenItsDeferredCallIsCancelled() throws InterruptedException {
        CountDownLatch deferred = new CountDownLatch(1);
        try (Fixture f = onePortWithANeverEndingDeferredCall(deferred)) {
            RpcClient client = f.services.client();
            Callers.Caller<RpcStatus> caller = Callers.start("never-ending caller",
                    () -> client.invoke(f.rt.svm(), 0, 0, NEVER, new long[8]));
            assertEquals(true, deferred.await(Callers.WAIT_SECONDS, TimeUnit.SECONDS));
            caller.awaitWaitingForReply().thread().interrupt();
            assertEquals(RpcStatus.CANCELLED, caller.result());
            Callers.Caller<Long> next = Callers.start("next caller", () -> client.call(f.rt.svm(), Opcodes.ECHO, 7));
            assertEquals(7L, next.result());
        }
    }

    @Test
    void shouldNeverRunACallCancelledBeforeTheServerMadeIt() throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        int blocker = Opcodes.of(Opcodes.USER_NAMESPACE_FIRST, 2);
        int counted = Opcodes.of(Opcodes.USER_NAMESPACE_FIRST, 3);
        AtomicInteger runs = new AtomicInteger();
        try (Fixture f = Fixture.start(ServicesConfig.builder().ports(2).serverThreads(1))) {
            f.services.registerService("test", blocker, ServiceMode.INLINE, call -> {
                entered.countDown();
                release.await();
            });
            f.services.registerService("test", counted, ServiceMode.INLINE, call -> runs.incrementAndGet());
            RpcClient client = f.services.client();
            Callers.Caller<RpcStatus> busy = Callers.start("blocks the server thread",
                    () -> client.invoke(f.rt.svm(), 0, 0, blocker, new long[8]));
            assertEquals(true, entered.await(Callers.WAIT_SECONDS, TimeUnit.SECONDS));
            Callers.Caller<RpcStatus> cancelled = Callers.start("cancelled before it is served",
                    () -> client.invoke(f.rt.svm(), 0, 0, counted, new long[8]));
            cancelled.awaitWaitingForReply().thread().interrupt();
            assertEquals(RpcStatus.CANCELLED, cancelled.result());
            release.countDown();
            assertEquals(RpcStatus.OK, busy.result());
            assertEquals(5L, Callers.start("after", () -> client.call(f.rt.svm(), Opcodes.ECHO, 5)).result());
            assertEquals(0, runs.get(), "the cancelled call's service never ran");
        }
    }

    @Test
    void shouldEndADeferredCallPastItsDeadlineWithTimeoutAndGiveItsPortBack() throws InterruptedException {
        CountDownLatch deferred = new CountDownLatch(1);
        try (Fixture f = onePortWithANeverEndingDeferredCall(deferred,
                ServicesConfig.builder().ports(1).deferredTimeoutNanos(TimeUnit.MILLISECONDS.toNanos(50)))) {
            RpcClient client = f.services.client();
            Callers.Caller<RpcStatus> caller = Callers.start("never-ending caller",
                    () -> client.invoke(f.rt.svm(), 0, 0, NEVER, new long[8]));
            assertEquals(RpcStatus.TIMEOUT, caller.result());
            assertEquals(9L, Callers.start("next caller", () -> client.call(f.rt.svm(), Opcodes.ECHO, 9)).result());
            assertEquals(1, f.services.server().timeouts());
        }
    }

    @Test
    void shouldEndACallThatFindsEveryPortTakenWithBusyInsteadOfWaitingForever() throws InterruptedException {
        CountDownLatch deferred = new CountDownLatch(1);
        try (Fixture f = onePortWithANeverEndingDeferredCall(deferred,
                ServicesConfig.builder().ports(1).portWaitNanos(TimeUnit.MILLISECONDS.toNanos(50)))) {
            RpcClient client = f.services.client();
            Callers.start("holds the only port", () -> client.invoke(f.rt.svm(), 0, 0, NEVER, new long[8]));
            assertEquals(true, deferred.await(Callers.WAIT_SECONDS, TimeUnit.SECONDS));
            long[] inOut = new long[8];
            assertEquals(RpcStatus.BUSY, Callers.start("no port for a NOP",
                    () -> client.invoke(f.rt.svm(), 0, 0, Opcodes.NOP, inOut)).result());
        }
    }
}
