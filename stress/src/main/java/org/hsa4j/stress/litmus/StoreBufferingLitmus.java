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
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * SB (store buffering, Dekker) on SVM long atomics: {@code x = 1; r1 = y || y = 1; r2 = x}.
 *
 * <p>This is the shape that tells HSA's acquire/release from C++'s: HSA's are sequentially
 * consistent ({@code screlease}/{@code scacquire}), all such operations fall in one total order,
 * and {@code r1 = r2 = 0} is forbidden. Java's setRelease/getAcquire would allow it (x86's store
 * buffer shows it a few percent of the time), which is why the runtime maps them to volatile
 * accesses. The relaxed twin allows it; the fence variant forbids it again with SEQ_CST fences
 * between relaxed accesses.
 */
public final class StoreBufferingLitmus {
    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, Litmus.SLOT_BYTES);

    private StoreBufferingLitmus() {
    }

    static long storeThenLoad(long store, long load, MemoryOrder storeOrder, MemoryOrder fence, MemoryOrder loadOrder) {
        SVM.atomicStoreLong(store, 1, storeOrder, MemoryScope.SYSTEM);
        Svm.fence(fence, MemoryScope.SYSTEM);
        return SVM.atomicLoadLong(load, loadOrder, MemoryScope.SYSTEM);
    }

    /** RELEASE stores and ACQUIRE loads (HSA screlease/scacquire). */
    @JCStressTest
    @Description("SB, RELEASE store / ACQUIRE load: forbidden, because HSA acquire/release are sequentially consistent")
    @Outcome(id = {"0, 1", "1, 0", "1, 1"}, expect = ACCEPTABLE, desc = "sequentially consistent outcomes")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "both loads passed the other thread's store: acquire/release are not SC")
    @State
    public static class ReleaseAcquire {
        final long slot = SLOTS.next();

        /** x = 1 (release); r1 = y (acquire). */
        @Actor
        public void left(JJ_Result r) {
            r.r1 = storeThenLoad(slot + Litmus.X, slot + Litmus.Y, MemoryOrder.RELEASE, MemoryOrder.RELAXED,
                    MemoryOrder.ACQUIRE);
        }

        /** y = 1 (release); r2 = x (acquire). */
        @Actor
        public void right(JJ_Result r) {
            r.r2 = storeThenLoad(slot + Litmus.Y, slot + Litmus.X, MemoryOrder.RELEASE, MemoryOrder.RELAXED,
                    MemoryOrder.ACQUIRE);
        }
    }

    /** The relaxed twin. */
    @JCStressTest
    @Description("SB, all RELAXED: the weak outcome is allowed (a store buffer shows it)")
    @Outcome(id = {"0, 1", "1, 0", "1, 1"}, expect = ACCEPTABLE, desc = "sequentially consistent outcomes")
    @Outcome(id = "0, 0", expect = ACCEPTABLE_INTERESTING, desc = "both loads passed the other thread's store")
    @State
    public static class Relaxed {
        final long slot = SLOTS.next();

        /** x = 1; r1 = y, relaxed. */
        @Actor
        public void left(JJ_Result r) {
            r.r1 = storeThenLoad(slot + Litmus.X, slot + Litmus.Y, MemoryOrder.RELAXED, MemoryOrder.RELAXED,
                    MemoryOrder.RELAXED);
        }

        /** y = 1; r2 = x, relaxed. */
        @Actor
        public void right(JJ_Result r) {
            r.r2 = storeThenLoad(slot + Litmus.Y, slot + Litmus.X, MemoryOrder.RELAXED, MemoryOrder.RELAXED,
                    MemoryOrder.RELAXED);
        }
    }

    /** Relaxed accesses separated by SEQ_CST fences. */
    @JCStressTest
    @Description("SB, relaxed accesses with fence(SEQ_CST) between store and load: forbidden")
    @Outcome(id = {"0, 1", "1, 0", "1, 1"}, expect = ACCEPTABLE, desc = "sequentially consistent outcomes")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "a load passed the store before the full fence")
    @State
    public static class SeqCstFences {
        final long slot = SLOTS.next();

        /** x = 1; fence(SEQ_CST); r1 = y. */
        @Actor
        public void left(JJ_Result r) {
            r.r1 = storeThenLoad(slot + Litmus.X, slot + Litmus.Y, MemoryOrder.RELAXED, MemoryOrder.SEQ_CST,
                    MemoryOrder.RELAXED);
        }

        /** y = 1; fence(SEQ_CST); r2 = x. */
        @Actor
        public void right(JJ_Result r) {
            r.r2 = storeThenLoad(slot + Litmus.Y, slot + Litmus.X, MemoryOrder.RELAXED, MemoryOrder.SEQ_CST,
                    MemoryOrder.RELAXED);
        }
    }
}
