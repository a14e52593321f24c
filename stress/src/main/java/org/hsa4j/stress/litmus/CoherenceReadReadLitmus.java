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
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * CoRR (read-read coherence) on one SVM int: {@code x = 1 || r1 = x; r2 = x}. Seeing the new
 * value and then the old one ({@code 1, 0}) breaks coherence. Every atomic, even RELAXED (opaque
 * access), is coherent, so the forbidden shape here is the RELAXED one; its twin uses plain
 * (non-atomic) SVM accesses, which promise no coherence: a compiler may reorder or merge the
 * two loads.
 */
public final class CoherenceReadReadLitmus {
    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, Litmus.SLOT_BYTES);

    private CoherenceReadReadLitmus() {
    }

    /** Two RELAXED atomic loads. */
    @JCStressTest
    @Description("CoRR, RELAXED atomics: new-then-old is forbidden (relaxed atomics are coherent)")
    @Outcome(id = {"0, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "coherent outcomes")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the second load went back in time")
    @State
    public static class Relaxed {
        final long slot = SLOTS.next();

        /** x = 1, relaxed. */
        @Actor
        public void writer() {
            SVM.atomicStoreInt(slot + Litmus.X, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        }

        /** r1 = x; r2 = x, relaxed. */
        @Actor
        public void reader(II_Result r) {
            r.r1 = SVM.atomicLoadInt(slot + Litmus.X, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            r.r2 = SVM.atomicLoadInt(slot + Litmus.X, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        }
    }

    /** The plain twin: non-atomic SVM accesses. */
    @JCStressTest
    @Description("CoRR, plain SVM accesses: new-then-old is allowed")
    @Outcome(id = {"0, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "coherent outcomes")
    @Outcome(id = "1, 0", expect = ACCEPTABLE_INTERESTING, desc = "the second load went back in time")
    @State
    public static class Plain {
        final long slot = SLOTS.next();

        /** x = 1, plain. */
        @Actor
        public void writer() {
            SVM.setInt(slot + Litmus.X, 1);
        }

        /** r1 = x; r2 = x, plain. */
        @Actor
        public void reader(II_Result r) {
            r.r1 = SVM.getInt(slot + Litmus.X);
            r.r2 = SVM.getInt(slot + Litmus.X);
        }
    }
}
