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
 * LB (load buffering) on SVM int atomics: {@code r1 = x; y = 1 || r2 = y; x = 1}. Each thread
 * reads before it writes; {@code r1 = r2 = 1} needs a load to see a store that comes after it,
 * in its own thread's order, from the other side. ACQUIRE loads and RELEASE stores forbid it;
 * RELAXED allows it (no x86 shows it; a compiler could).
 */
public final class LoadBufferingLitmus {
    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, Litmus.SLOT_BYTES);

    private LoadBufferingLitmus() {
    }

    static int loadThenStore(long load, long store, MemoryOrder loadOrder, MemoryOrder storeOrder) {
        int seen = SVM.atomicLoadInt(load, loadOrder, MemoryScope.SYSTEM);
        SVM.atomicStoreInt(store, 1, storeOrder, MemoryScope.SYSTEM);
        return seen;
    }

    /** ACQUIRE loads and RELEASE stores. */
    @JCStressTest
    @Description("LB, ACQUIRE load / RELEASE store: the weak outcome is forbidden")
    @Outcome(id = {"0, 0", "0, 1", "1, 0"}, expect = ACCEPTABLE, desc = "sequentially consistent outcomes")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "each load saw the other thread's later store")
    @State
    public static class AcquireRelease {
        final long slot = SLOTS.next();

        /** r1 = x (acquire); y = 1 (release). */
        @Actor
        public void left(II_Result r) {
            r.r1 = loadThenStore(slot + Litmus.X, slot + Litmus.Y, MemoryOrder.ACQUIRE, MemoryOrder.RELEASE);
        }

        /** r2 = y (acquire); x = 1 (release). */
        @Actor
        public void right(II_Result r) {
            r.r2 = loadThenStore(slot + Litmus.Y, slot + Litmus.X, MemoryOrder.ACQUIRE, MemoryOrder.RELEASE);
        }
    }

    /** The relaxed twin. */
    @JCStressTest
    @Description("LB, all RELAXED: the weak outcome is allowed")
    @Outcome(id = {"0, 0", "0, 1", "1, 0"}, expect = ACCEPTABLE, desc = "sequentially consistent outcomes")
    @Outcome(id = "1, 1", expect = ACCEPTABLE_INTERESTING, desc = "each load saw the other thread's later store")
    @State
    public static class Relaxed {
        final long slot = SLOTS.next();

        /** r1 = x; y = 1, relaxed. */
        @Actor
        public void left(II_Result r) {
            r.r1 = loadThenStore(slot + Litmus.X, slot + Litmus.Y, MemoryOrder.RELAXED, MemoryOrder.RELAXED);
        }

        /** r2 = y; x = 1, relaxed. */
        @Actor
        public void right(II_Result r) {
            r.r2 = loadThenStore(slot + Litmus.Y, slot + Litmus.X, MemoryOrder.RELAXED, MemoryOrder.RELAXED);
        }
    }
}
