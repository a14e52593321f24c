package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.PortSet;
import org.hsa4j.services.rpc.RpcCall;
import org.hsa4j.services.rpc.RpcClient;
import org.hsa4j.services.rpc.RpcLayout;
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
 * Service-port ownership handoff: two callers make one RPC call each through a port set of a
 * single port, so the port changes hands between them in every sample (one caller waits for the
 * other to release it). The service, registered through the {@link Services} facade, counts each
 * request in the sample's SVM slot by caller and answers with the caller's id and the slot. Each
 * caller must get its own answer, and the service must have seen each request exactly once.
 *
 * <p>The service runs either on the server thread ({@link Inline}) or on a handler thread through
 * the Disruptor ring ({@link Handler}), which adds a second handoff per call.
 *
 * <p><b>Bounded waits.</b> {@link RpcCall#finish()} waits for the server without a time limit, so a
 * caller sends its OPEN packet, waits (bounded) for its turn by reading the port's two flags (the
 * protocol: the client's turn when {@code CLIENT_FLAG == SERVER_FLAG}), and only then calls
 * {@code finish()}, which returns at once. A caller whose wait ran out reports TIMEOUT and marks
 * the port set closed ({@link PortSet#markClosed()}), so the other caller, which may be waiting
 * for the port, ends with CLOSED instead of hanging; later samples of that fork fail at once.
 *
 * <p>The service is {@link RequestCounter}'s.
 */
public class ServicePortHandoffTest {
    /** Namespace of the test's service. */
    static final int NAMESPACE = Opcodes.USER_NAMESPACE_FIRST;
    /** The counting service, run on the server thread. */
    static final int COUNT_INLINE = Opcodes.of(NAMESPACE, 1);
    /** The counting service, run on a handler thread. */
    static final int COUNT_HANDLER = Opcodes.of(NAMESPACE, 2);

    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final Services SERVICES = Services.start(RT, ServicesConfig.builder()
            .ports(1)
            .lanes(1)
            .serverThreads(1)
            .handlerThreads(1)
            .handlerCallsOnServerThread(false) // Handler's calls go through the ring, as it says
            .build());
    static final PortSet PORTS = SERVICES.ports();
    static final RpcClient CLIENT = SERVICES.client();
    static final SvmSlots SLOTS = SvmSlots.of(RT, RequestCounter.SLOT_BYTES);

    static {
        SERVICES.registerService("stress", COUNT_INLINE, ServiceMode.INLINE, RequestCounter::count);
        SERVICES.registerService("stress", COUNT_HANDLER, ServiceMode.HANDLER, RequestCounter::count);
    }

    private ServicePortHandoffTest() {
    }

    /**
     * One call of {@code opcode} as {@code caller} (1 or 2): OWN when the answer is this caller's,
     * OTHER when it is the other caller's, WRONG for anything else, TIMEOUT, or the call's status.
     */
    static String call(int opcode, long slot, int caller) {
        RpcCall c = CLIENT.open(SVM, opcode, 1L);
        try {
            if (!c.hasPort()) {
                return String.valueOf(c.status());
            }
            c.args(slot, caller);
            if (!c.send()) {
                return String.valueOf(c.status());
            }
            long port = PORTS.portAddress(c.port());
            int mine = SVM.getInt(port + RpcLayout.CLIENT_FLAG);
            if (!BoundedWait.untilIntAcquire(SVM, port + RpcLayout.SERVER_FLAG, mine)) {
                PORTS.markClosed();
                return BoundedWait.TIMEOUT;
            }
            RpcStatus s = c.finish();
            if (s != RpcStatus.OK) {
                return String.valueOf(s);
            }
            long who = c.result(0);
            long where = c.result(1);
            if (who == caller && where == slot) {
                return "OWN";
            }
            return who == 3 - caller ? "OTHER" : "WRONG";
        } finally {
            c.close();
        }
    }

    /** The request counts, "caller1 caller2". */
    static String seen(long slot) {
        return RequestCounter.seen(SVM, slot);
    }

    /** The service runs on the server thread. */
    @JCStressTest
    @Description("two callers through one RPC port, inline service: each gets its own reply, each request served once")
    @Outcome(id = "OWN, OWN, 1 1", expect = ACCEPTABLE, desc = "each caller got its own reply; each request seen once")
    @Outcome(id = ".*OTHER.*|.*WRONG.*", expect = FORBIDDEN, desc = "a caller read a reply not meant for it: the port changed hands mid-call")
    @Outcome(id = ".*, (0 .|. 0)", expect = FORBIDDEN, desc = "a request was lost")
    @Outcome(id = ".*, ([2-9] .|. [2-9])", expect = FORBIDDEN, desc = "a request was served twice")
    @Outcome(id = ".*TIMEOUT.*|.*CLOSED.*", expect = FORBIDDEN, desc = "a reply never came (or another caller's never did)")
    @Outcome(expect = FORBIDDEN, desc = "anything else (an error status)")
    @State
    public static class Inline {
        final long slot = SLOTS.next();

        /** Caller 1. */
        @Actor
        public void caller1(LLL_Result r) {
            r.r1 = call(COUNT_INLINE, slot, 1);
        }

        /** Caller 2. */
        @Actor
        public void caller2(LLL_Result r) {
            r.r2 = call(COUNT_INLINE, slot, 2);
        }

        /** Reads what the service saw. */
        @Arbiter
        public void arbiter(LLL_Result r) {
            r.r3 = seen(slot);
        }
    }

    /** The service runs on a handler thread, handed over through the Disruptor ring. */
    @JCStressTest
    @Description("two callers through one RPC port, handler-thread service: each gets its own reply, each request served once")
    @Outcome(id = "OWN, OWN, 1 1", expect = ACCEPTABLE, desc = "each caller got its own reply; each request seen once")
    @Outcome(id = ".*OTHER.*|.*WRONG.*", expect = FORBIDDEN, desc = "a caller read a reply not meant for it: the port changed hands mid-call")
    @Outcome(id = ".*, (0 .|. 0)", expect = FORBIDDEN, desc = "a request was lost")
    @Outcome(id = ".*, ([2-9] .|. [2-9])", expect = FORBIDDEN, desc = "a request was served twice")
    @Outcome(id = ".*TIMEOUT.*|.*CLOSED.*", expect = FORBIDDEN, desc = "a reply never came (or another caller's never did)")
    @Outcome(expect = FORBIDDEN, desc = "anything else (an error status)")
    @State
    public static class Handler {
        final long slot = SLOTS.next();

        /** Caller 1. */
        @Actor
        public void caller1(LLL_Result r) {
            r.r1 = call(COUNT_HANDLER, slot, 1);
        }

        /** Caller 2. */
        @Actor
        public void caller2(LLL_Result r) {
            r.r2 = call(COUNT_HANDLER, slot, 2);
        }

        /** Reads what the service saw. */
        @Arbiter
        public void arbiter(LLL_Result r) {
            r.r3 = seen(slot);
        }
    }
}
