package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicLong;

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
 * The server watch handoff (SERVICES.md, "Watching a port"): calls that land exactly while the
 * server thread gives up watching the port it just served.
 *
 * <p>A server thread that served a call to its end keeps the port's claim, sets the port's watch
 * word with the final packet and reads the client flag itself; a client that sees the watch after
 * its flip sets no pending bit and rings no doorbell. When the thread stops watching it clears the
 * watch (volatile store) and reads the client flag once more; the client flips (volatile store)
 * and then reads the watch. A call posted in that window must still be served exactly once.
 *
 * <p>The set has one port and one server thread whose idle spin is 0, so the thread stops
 * watching on its first idle pass after each call, a few hundred nanoseconds after the final
 * packet: about when a client that just read its reply posts its next call. (A spin above 0 would
 * not stay put: the server doubles it, up to 1 ms, whenever a doorbell wakes it soon after it fell
 * asleep, which is exactly what calls just past the window do; 0 stays 0.) Each caller makes two
 * calls and waits between them for a delay swept over 0 to 3 µs from sample to sample (each caller
 * with its own phase), so the second calls fall before, at and after the end of the watch; the two
 * callers also take the port from each other. The service counts each request per caller in the
 * sample's SVM slot and answers with (caller, slot, call number).
 *
 * <p>Forbidden: a request never answered ({@link BoundedWait} runs out: TIMEOUT, and the caller
 * marks the port set closed so that the other one, waiting for the port, ends with CLOSED), a
 * request served twice or not at all (the counts), a reply not meant for the caller or call
 * (OTHER, STALE, WRONG), or an error status. The waits are bounded as in
 * {@link ServicePortHandoffTest}: the caller sends the OPEN packet, waits (bounded) for its turn
 * on the port's two flags, and only then calls {@code finish()}, which returns at once.
 *
 * <p>The service is {@link RequestCounter}'s (the call number is its third argument).
 */
@JCStressTest
@Description("calls land while the server thread stops watching the port: every request answered once, with its own reply")
@Outcome(id = "OWN OWN, OWN OWN, 2 2", expect = ACCEPTABLE, desc = "each call got its own reply; each request seen once")
@Outcome(id = ".*TIMEOUT.*|.*CLOSED.*", expect = FORBIDDEN, desc = "a request was never answered: lost between the watch and the pending bit")
@Outcome(id = ".*OTHER.*|.*STALE.*|.*WRONG.*", expect = FORBIDDEN, desc = "a caller read a reply not meant for this call")
@Outcome(id = ".*, ([3-9] .|. [3-9])", expect = FORBIDDEN, desc = "a request was served twice")
@Outcome(id = ".*, ([01] .|. [01])", expect = FORBIDDEN, desc = "a request was lost")
@Outcome(expect = FORBIDDEN, desc = "anything else (an error status)")
@State
public class ServiceWatchHandoffTest {
    /** The counting service, run on the server thread (so the thread that served a call watches the port). */
    static final int COUNT = Opcodes.of(Opcodes.USER_NAMESPACE_FIRST, 1);
    /** Delays between a caller's two calls: this many steps... */
    static final int DELAY_STEPS = 16;
    /** ...of this many nanoseconds (0 to 3 µs). */
    static final long DELAY_STEP_NANOS = 200;

    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final Services SERVICES = Services.start(RT, ServicesConfig.builder()
            .ports(1)
            .lanes(1)
            .serverThreads(1)
            .handlerThreads(1)
            .idleSpinNanos(0)
            .build());
    static final PortSet PORTS = SERVICES.ports();
    static final RpcClient CLIENT = SERVICES.client();
    static final SvmSlots SLOTS = SvmSlots.of(RT, RequestCounter.SLOT_BYTES);
    static final AtomicLong SAMPLES = new AtomicLong();

    static {
        SERVICES.registerService("stress", COUNT, ServiceMode.INLINE, RequestCounter::count);
    }

    final long slot = SLOTS.next();
    final int phase = (int) (SAMPLES.getAndIncrement() % DELAY_STEPS);

    /**
     * Call number {@code number} as {@code caller}: OWN when the reply is this call's, OTHER when it
     * is the other caller's, STALE when it is this caller's earlier call's, WRONG for anything
     * else, TIMEOUT, or the call's status.
     */
    static String call(long slot, int caller, int number) {
        RpcCall c = CLIENT.open(SVM, COUNT, 1L);
        try {
            if (!c.hasPort()) {
                return String.valueOf(c.status());
            }
            c.args(slot, caller, number);
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
            long which = c.result(2);
            if (who == 3 - caller) {
                return "OTHER";
            }
            if (who != caller || where != slot) {
                return "WRONG";
            }
            return which == number ? "OWN" : "STALE";
        } finally {
            c.close();
        }
    }

    /** Two calls as {@code caller}, {@code delayNanos} apart (busy wait: a park would take far longer). */
    static String twoCalls(long slot, int caller, long delayNanos) {
        String first = call(slot, caller, 1);
        long until = System.nanoTime() + delayNanos;
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
        return first + " " + call(slot, caller, 2);
    }

    /** Caller 1: its delay sweeps the steps in order. */
    @Actor
    public void caller1(LLL_Result r) {
        r.r1 = twoCalls(slot, 1, phase * DELAY_STEP_NANOS);
    }

    /** Caller 2: the same steps in another order, so the two callers' delays differ from sample to sample. */
    @Actor
    public void caller2(LLL_Result r) {
        r.r2 = twoCalls(slot, 2, (phase * 7 % DELAY_STEPS) * DELAY_STEP_NANOS);
    }

    /** Reads what the service saw, "caller1 caller2". */
    @Arbiter
    public void arbiter(LLL_Result r) {
        r.r3 = RequestCounter.seen(SVM, slot);
    }
}
