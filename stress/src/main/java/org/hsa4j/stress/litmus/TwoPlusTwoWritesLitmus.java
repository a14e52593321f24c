package org.hsa4j.stress.litmus;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.stress.StressRuntime;
import org.hsa4j.testsupport.SvmSlots;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * 2+2W on SVM long atomics: {@code x = 1; y = 2 || y = 1; x = 2}, the arbiter reads the final
 * values. Final {@code x = 1, y = 1} means each thread's first store came last in its location's
 * coherence order, a cycle with program order; sequentially consistent (RELEASE, as HSA's
 * screlease is) stores forbid it, RELAXED stores allow it.
 */
public final class TwoPlusTwoWritesLitmus {
    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, Litmus.SLOT_BYTES);

    private TwoPlusTwoWritesLitmus() {
    }

    static void twoStores(long first, long second, MemoryOrder order) {
        SVM.atomicStoreLong(first, 1, order, MemoryScope.SYSTEM);
        SVM.atomicStoreLong(second, 2, order, MemoryScope.SYSTEM);
    }

    static void finalValues(long slot, JJ_Result r) {
        r.r1 = SVM.atomicLoadLong(slot + Litmus.X, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
        r.r2 = SVM.atomicLoadLong(slot + Litmus.Y, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
    }

    /** RELEASE (screlease) stores. */
    @JCStressTest
    @Description("2+2W, RELEASE stores: final x = 1, y = 1 is forbidden")
    @Outcome(id = {"2, 2", "1, 2", "2, 1"}, expect = ACCEPTABLE, desc = "sequentially consistent outcomes")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "both first stores won: stores reordered")
    @State
    public static class Release {
        final long slot = SLOTS.next();

        /** x = 1; y = 2. */
        @Actor
        public void left() {
            twoStores(slot + Litmus.X, slot + Litmus.Y, MemoryOrder.RELEASE);
        }

        /** y = 1; x = 2. */
        @Actor
        public void right() {
            twoStores(slot + Litmus.Y, slot + Litmus.X, MemoryOrder.RELEASE);
        }

        /** Reads the final x and y. */
        @Arbiter
        public void arbiter(JJ_Result r) {
            finalValues(slot, r);
        }
    }

    /** The relaxed twin. */
    @JCStressTest
    @Description("2+2W, RELAXED stores: final x = 1, y = 1 is allowed")
    @Outcome(id = {"2, 2", "1, 2", "2, 1"}, expect = ACCEPTABLE, desc = "sequentially consistent outcomes")
    @Outcome(id = "1, 1", expect = ACCEPTABLE_INTERESTING, desc = "both first stores won: stores reordered")
    @State
    public static class Relaxed {
        final long slot = SLOTS.next();

        /** x = 1; y = 2, relaxed. */
        @Actor
        public void left() {
            twoStores(slot + Litmus.X, slot + Litmus.Y, MemoryOrder.RELAXED);
        }

        /** y = 1; x = 2, relaxed. */
        @Actor
        public void right() {
            twoStores(slot + Litmus.Y, slot + Litmus.X, MemoryOrder.RELAXED);
        }

        /** Reads the final x and y. */
        @Arbiter
        public void arbiter(JJ_Result r) {
            finalValues(slot, r);
        }
    }
}
