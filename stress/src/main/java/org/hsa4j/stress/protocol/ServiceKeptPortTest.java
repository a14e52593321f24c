package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.PortSet;
import org.hsa4j.services.rpc.RpcClient;
import org.hsa4j.services.rpc.RpcStatus;
import org.hsa4j.services.rpc.ServiceMode;
import org.hsa4j.stress.StressRuntime;
import org.hsa4j.testsupport.BoundedWait;
import org.hsa4j.testsupport.SvmSlots;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * Kept-port handoff: two callers make one one-shot RPC call each ({@link RpcClient#invoke})
 * through a port set of a single port. A one-shot call that ends in the client's turn keeps its
 * port, lock held, for its thread's next one-shot call, so in every sample each actor's thread
 * finds the port kept by itself (it takes it back with a compare-and-set on the port's keeper
 * slot), kept by the other actor's thread (it takes it over with a compare-and-set on the same
 * slot), or in a call (it waits): the keeper's taking back races the other's taking over, and the
 * loser waits for the port. Each caller must get its own answer, and the service must have seen
 * each request exactly once. The service is {@link RequestCounter}'s, run on the server thread.
 *
 * <p><b>Bounded waits.</b> A one-shot call waits for its port and for the server without a time
 * limit of its own, so a watchdog thread closes the port set when a call has not returned within
 * {@link BoundedWait#PATIENCE_NANOS}: the waiting calls then end with CLOSED, a forbidden outcome.
 */
public class ServiceKeptPortTest {
    /** The counting service, run on the server thread. */
    static final int COUNT = Opcodes.of(Opcodes.USER_NAMESPACE_FIRST, 3);

    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final Services SERVICES = Services.start(RT, ServicesConfig.builder()
            .ports(1)
            .lanes(1)
            .serverThreads(1)
            .handlerThreads(1)
            .build());
    static final PortSet PORTS = SERVICES.ports();
    static final RpcClient CLIENT = SERVICES.client();
    static final SvmSlots SLOTS = SvmSlots.of(RT, RequestCounter.SLOT_BYTES);
    /** Per caller (index 1 and 2), when its call began, or 0 while it makes none. */
    static final AtomicLongArray CALL_SINCE = new AtomicLongArray(3);

    static {
        SERVICES.registerService("stress", COUNT, ServiceMode.INLINE, RequestCounter::count);
        Thread watchdog = new Thread(ServiceKeptPortTest::watch, "kept-port-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    private ServiceKeptPortTest() {
    }

    /** Closes the port set once a call has taken longer than the stress tests' patience. */
    private static void watch() {
        while (!PORTS.isClosing()) {
            LockSupport.parkNanos(100_000_000L);
            long now = System.nanoTime();
            for (int caller = 1; caller <= 2; caller++) {
                long since = CALL_SINCE.get(caller);
                if (since != 0 && now - since > BoundedWait.PATIENCE_NANOS) {
                    PORTS.markClosed();
                }
            }
        }
    }

    /**
     * One one-shot call as {@code caller} (1 or 2): OWN when the answer is this caller's, OTHER when
     * it is the other caller's, WRONG for anything else, or the call's status.
     */
    static String call(long slot, int caller) {
        long[] inOut = {slot, caller};
        CALL_SINCE.set(caller, System.nanoTime() | 1);
        RpcStatus s;
        try {
            s = CLIENT.invoke(SVM, 0, 0, COUNT, inOut);
        } finally {
            CALL_SINCE.set(caller, 0);
        }
        if (s != RpcStatus.OK) {
            return String.valueOf(s);
        }
        if (inOut[0] == caller && inOut[1] == slot) {
            return "OWN";
        }
        return inOut[0] == 3 - caller ? "OTHER" : "WRONG";
    }

    /** Two one-shot callers through one port that each keeps for its thread. */
    @JCStressTest
    @Description("two one-shot callers through one RPC port they keep and take over: each gets its own reply, each request served once")
    @Outcome(id = "OWN, OWN, 1 1", expect = ACCEPTABLE, desc = "each caller got its own reply; each request seen once")
    @Outcome(id = ".*OTHER.*|.*WRONG.*", expect = FORBIDDEN, desc = "a caller read a reply not meant for it: two callers used the port at once")
    @Outcome(id = ".*, (0 .|. 0)", expect = FORBIDDEN, desc = "a request was lost")
    @Outcome(id = ".*, ([2-9] .|. [2-9])", expect = FORBIDDEN, desc = "a request was served twice")
    @Outcome(id = ".*CLOSED.*", expect = FORBIDDEN, desc = "a call never returned (the watchdog closed the ports)")
    @Outcome(expect = FORBIDDEN, desc = "anything else (an error status)")
    @State
    public static class OneShot {
        final long slot = SLOTS.next();

        /** Caller 1. */
        @Actor
        public void caller1(LLL_Result r) {
            r.r1 = call(slot, 1);
        }

        /** Caller 2. */
        @Actor
        public void caller2(LLL_Result r) {
            r.r2 = call(slot, 2);
        }

        /** Reads what the service saw. */
        @Arbiter
        public void arbiter(LLL_Result r) {
            r.r3 = RequestCounter.seen(SVM, slot);
        }
    }
}
