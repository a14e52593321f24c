package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.stress.StressRuntime;
import org.hsa4j.testsupport.BoundedWait;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * Two producers reserve packet ids on one queue; no id may be handed out twice.
 *
 * <p>The queue is real (a multi-producer queue of the GPU agent) but nothing is ever published
 * in it, so only the write index moves. Every reserved id is claimed in an SVM table with an
 * atomic exchange of {@code id + 1} into entry {@code id mod TABLE}: a producer that finds its own
 * value already there got an id somebody else also got, in this sample or in any other sample
 * still in the table. The arbiter also checks the two ids of a sample differ.
 */
public class WriteIndexReservationTest {
    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final Queue QUEUE = RT.gpuAgent().createQueue(64, QueueType.MULTI, null);
    /** Entries of the claim table: a power of two. */
    static final int TABLE = 1 << 16;
    static final long CLAIMS = RT.hostMalloc((long) Long.BYTES * TABLE);
    /** Failed CAS attempts after which a reservation loop reports TIMEOUT. */
    static final int MAX_ATTEMPTS = 1_000_000;

    private WriteIndexReservationTest() {
    }

    /** Claims {@code id} in the table: UNIQUE, or DUPLICATE when it had been claimed already. */
    static String claim(long id) {
        long previous = SVM.atomicExchangeLong(CLAIMS + Long.BYTES * (id & (TABLE - 1)), id + 1, MemoryOrder.ACQ_REL,
                MemoryScope.SYSTEM);
        return previous == id + 1 ? "DUPLICATE" : "UNIQUE";
    }

    /** Reserves an id with the compare-and-swap loop; -1 when it never succeeded. */
    static long reserveByCas() {
        long seen = QUEUE.loadWriteIndexRelaxed();
        for (int i = 0; i < MAX_ATTEMPTS; i++) {
            long witness = QUEUE.casWriteIndexScacqScrel(seen, seen + 1);
            if (witness == seen) {
                return seen;
            }
            seen = witness;
        }
        BoundedWait.timedOut();
        return -1;
    }

    /** Both producers use {@code addWriteIndexScacqScrel(1)}. */
    @JCStressTest
    @Description("two producers reserving with addWriteIndexScacqScrel never get the same packet id")
    @Outcome(id = "UNIQUE, UNIQUE, DISTINCT", expect = ACCEPTABLE, desc = "each producer got its own id")
    @Outcome(id = ".*DUPLICATE.*|.*SAME", expect = FORBIDDEN, desc = "an id was handed out twice")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class BothAdd {
        long first;
        long second;

        /** Reserves with an atomic add. */
        @Actor
        public void producer1(LLL_Result r) {
            first = QUEUE.addWriteIndexScacqScrel(1);
            r.r1 = claim(first);
        }

        /** Reserves with an atomic add. */
        @Actor
        public void producer2(LLL_Result r) {
            second = QUEUE.addWriteIndexScacqScrel(1);
            r.r2 = claim(second);
        }

        /** Compares the two ids. */
        @Arbiter
        public void arbiter(LLL_Result r) {
            r.r3 = first == second ? "SAME" : "DISTINCT";
        }
    }

    /** One producer uses {@code addWriteIndexRelaxed(1)}, the other a {@code casWriteIndexScacqScrel} loop. */
    @JCStressTest
    @Description("a producer reserving with addWriteIndexRelaxed and one with a casWriteIndexScacqScrel loop never get the same id")
    @Outcome(id = "UNIQUE, UNIQUE, DISTINCT", expect = ACCEPTABLE, desc = "each producer got its own id")
    @Outcome(id = ".*DUPLICATE.*|.*SAME", expect = FORBIDDEN, desc = "an id was handed out twice")
    @Outcome(id = ".*TIMEOUT.*", expect = FORBIDDEN, desc = "the CAS loop never succeeded")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class AddVersusCas {
        long first;
        long second = -1;

        /** Reserves with an atomic add. */
        @Actor
        public void adder(LLL_Result r) {
            first = QUEUE.addWriteIndexRelaxed(1);
            r.r1 = claim(first);
        }

        /** Reserves with a compare-and-swap loop. */
        @Actor
        public void casser(LLL_Result r) {
            second = reserveByCas();
            r.r2 = second < 0 ? BoundedWait.TIMEOUT : claim(second);
        }

        /** Compares the two ids. */
        @Arbiter
        public void arbiter(LLL_Result r) {
            r.r3 = first == second ? "SAME" : "DISTINCT";
        }
    }
}
