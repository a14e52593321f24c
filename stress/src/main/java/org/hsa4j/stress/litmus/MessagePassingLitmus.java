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
 * MP (message passing) on SVM int atomics: {@code data = 1; flag = 1 || r1 = flag; r2 = data}.
 * The weak outcome {@code r1 = 1, r2 = 0} is forbidden when the flag store is RELEASE and the flag
 * load ACQUIRE at a scope that includes both parties (SYSTEM). With RELAXED orders nothing orders
 * the two accesses of either thread, and with a scope too narrow to include the other thread
 * (WORKGROUP, two host threads) HSA does not promise synchronization either: those twins mark the
 * weak outcome ACCEPTABLE_INTERESTING, so the report shows whether this machine exhibits it.
 *
 * <p>Layout: {@link Litmus#X} is the data, {@link Litmus#Y} the flag, on separate cache lines.
 */
public final class MessagePassingLitmus {
    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, Litmus.SLOT_BYTES);

    private MessagePassingLitmus() {
    }

    static void write(long slot, MemoryOrder order, MemoryScope scope) {
        SVM.atomicStoreInt(slot + Litmus.X, 1, MemoryOrder.RELAXED, scope);
        SVM.atomicStoreInt(slot + Litmus.Y, 1, order, scope);
    }

    static void read(long slot, MemoryOrder order, MemoryScope scope, II_Result r) {
        r.r1 = SVM.atomicLoadInt(slot + Litmus.Y, order, scope);
        r.r2 = SVM.atomicLoadInt(slot + Litmus.X, MemoryOrder.RELAXED, scope);
    }

    /** Flag stored with RELEASE and loaded with ACQUIRE at SYSTEM scope. */
    @JCStressTest
    @Description("MP, RELEASE store / ACQUIRE load, SYSTEM scope: the weak outcome is forbidden")
    @Outcome(id = {"0, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "sequentially consistent outcomes")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "flag seen, data stale: release/acquire did not synchronize")
    @State
    public static class ReleaseAcquire {
        final long slot = SLOTS.next();

        /** data = 1 (relaxed); flag = 1 (release). */
        @Actor
        public void writer() {
            write(slot, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        }

        /** r1 = flag (acquire); r2 = data (relaxed). */
        @Actor
        public void reader(II_Result r) {
            read(slot, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM, r);
        }
    }

    /** The relaxed twin: every access RELAXED. */
    @JCStressTest
    @Description("MP, all RELAXED: the weak outcome is allowed")
    @Outcome(id = {"0, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "sequentially consistent outcomes")
    @Outcome(id = "1, 0", expect = ACCEPTABLE_INTERESTING, desc = "flag seen, data stale: relaxed accesses reordered")
    @State
    public static class Relaxed {
        final long slot = SLOTS.next();

        /** data = 1; flag = 1, both relaxed. */
        @Actor
        public void writer() {
            write(slot, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        }

        /** r1 = flag; r2 = data, both relaxed. */
        @Actor
        public void reader(II_Result r) {
            read(slot, MemoryOrder.RELAXED, MemoryScope.SYSTEM, r);
        }
    }

    /** The scope twin: RELEASE/ACQUIRE at WORKGROUP scope between two host threads. */
    @JCStressTest
    @Description("MP, RELEASE/ACQUIRE at WORKGROUP scope between host threads: HSA allows the weak outcome")
    @Outcome(id = {"0, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "sequentially consistent outcomes")
    @Outcome(id = "1, 0", expect = ACCEPTABLE_INTERESTING,
            desc = "flag seen, data stale: allowed, the scope does not include the other thread (hsa4j's normal mode makes every scope system-wide)")
    @State
    public static class NarrowScope {
        final long slot = SLOTS.next();

        /** data = 1 (relaxed); flag = 1 (release, workgroup scope). */
        @Actor
        public void writer() {
            write(slot, MemoryOrder.RELEASE, MemoryScope.WORKGROUP);
        }

        /** r1 = flag (acquire, workgroup scope); r2 = data (relaxed). */
        @Actor
        public void reader(II_Result r) {
            read(slot, MemoryOrder.ACQUIRE, MemoryScope.WORKGROUP, r);
        }
    }
}
