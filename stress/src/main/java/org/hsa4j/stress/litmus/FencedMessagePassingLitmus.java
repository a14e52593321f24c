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
 * MP with fences: every access is RELAXED and the ordering comes from {@link Svm#fence}:
 * {@code data = 1; fence(RELEASE); flag = 1 || r1 = flag; fence(ACQUIRE); r2 = data}. A release
 * fence before the flag store and an acquire fence after the flag load synchronize like a
 * release store and an acquire load, so {@code r1 = 1, r2 = 0} is forbidden. The twin issues the
 * fences with order RELAXED, which is no fence at all.
 */
public final class FencedMessagePassingLitmus {
    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, Litmus.SLOT_BYTES);

    private FencedMessagePassingLitmus() {
    }

    static void write(long slot, MemoryOrder fence) {
        SVM.atomicStoreInt(slot + Litmus.X, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        Svm.fence(fence, MemoryScope.SYSTEM);
        SVM.atomicStoreInt(slot + Litmus.Y, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
    }

    static void read(long slot, MemoryOrder fence, II_Result r) {
        r.r1 = SVM.atomicLoadInt(slot + Litmus.Y, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        Svm.fence(fence, MemoryScope.SYSTEM);
        r.r2 = SVM.atomicLoadInt(slot + Litmus.X, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
    }

    /** Relaxed accesses with a RELEASE fence in the writer and an ACQUIRE fence in the reader. */
    @JCStressTest
    @Description("MP+fences: relaxed accesses, fence(RELEASE) / fence(ACQUIRE) at SYSTEM scope: the weak outcome is forbidden")
    @Outcome(id = {"0, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "sequentially consistent outcomes")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "flag seen, data stale: the fences did not order")
    @State
    public static class ReleaseAcquireFences {
        final long slot = SLOTS.next();

        /** data = 1; fence(RELEASE); flag = 1. */
        @Actor
        public void writer() {
            write(slot, MemoryOrder.RELEASE);
        }

        /** r1 = flag; fence(ACQUIRE); r2 = data. */
        @Actor
        public void reader(II_Result r) {
            read(slot, MemoryOrder.ACQUIRE, r);
        }
    }

    /** The relaxed twin: the fences have order RELAXED (no ordering). */
    @JCStressTest
    @Description("MP+fences with fence(RELAXED): the weak outcome is allowed")
    @Outcome(id = {"0, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "sequentially consistent outcomes")
    @Outcome(id = "1, 0", expect = ACCEPTABLE_INTERESTING, desc = "flag seen, data stale: relaxed accesses reordered")
    @State
    public static class RelaxedFences {
        final long slot = SLOTS.next();

        /** data = 1; fence(RELAXED); flag = 1. */
        @Actor
        public void writer() {
            write(slot, MemoryOrder.RELAXED);
        }

        /** r1 = flag; fence(RELAXED); r2 = data. */
        @Actor
        public void reader(II_Result r) {
            read(slot, MemoryOrder.RELAXED, r);
        }
    }
}
