package org.hsa4j.stress.litmus;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.stress.StressRuntime;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * ISA2 (transitive message passing), across agents:
 * {@code x = 1; y = 1 || r1 = y; z = 1 || r2 = z; r3 = x}. The middle thread is a kernel on the
 * GPU agent ({@link ThreePartyKernel}), the other two are the jcstress actors, and the arbiter
 * collects the kernel's {@code r1}. Release/acquire chains are transitive: if the kernel acquired
 * y = 1 and released z, a host thread that acquires z = 1 must see x = 1, so {@code 1, 1, 0} is
 * forbidden. With every access RELAXED it is allowed.
 *
 * <p>Outcomes read {@code r1 (kernel), r2, r3}.
 */
public final class Isa2Litmus {
    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();

    private Isa2Litmus() {
    }

    /** x = 1 (relaxed); y = 1 (release) || kernel: acquire y, release z || acquire z; x (relaxed). */
    @JCStressTest
    @Description("ISA2 with a kernel in the middle, release/acquire chain: 1, 1, 0 is forbidden")
    @Outcome(id = {"0, 0, 0", "0, 0, 1", "0, 1, 0", "0, 1, 1", "1, 0, 0", "1, 0, 1", "1, 1, 1"}, expect = ACCEPTABLE,
            desc = "outcomes consistent with the chain")
    @Outcome(id = "1, 1, 0", expect = FORBIDDEN, desc = "the host saw z but not the x that came before y")
    @Outcome(id = "TIMEOUT, .*", expect = FORBIDDEN, desc = "the kernel never completed")
    @State
    public static class ReleaseAcquire {
        static final ThreePartyKernel KERNEL = ThreePartyKernel.of(RT, Litmus.Y, Litmus.Z, MemoryOrder.ACQUIRE,
                MemoryOrder.RELEASE);

        final long slot = KERNEL.slot();
        final Signal completion = KERNEL.completion();

        /** Dispatches the kernel; x = 1 (relaxed); y = 1 (release). */
        @Actor
        public void writer() {
            KERNEL.dispatch(slot, completion);
            SVM.atomicStoreInt(slot + Litmus.X, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            SVM.atomicStoreInt(slot + Litmus.Y, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        }

        /** r2 = z (acquire); r3 = x (relaxed). */
        @Actor
        public void observer(LLL_Result r) {
            r.r2 = SVM.atomicLoadInt(slot + Litmus.Z, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
            r.r3 = SVM.atomicLoadInt(slot + Litmus.X, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        }

        /** r1 = what the kernel saw. */
        @Arbiter
        public void arbiter(LLL_Result r) {
            KERNEL.collect(slot, completion, r);
        }
    }

    /** The relaxed twin. */
    @JCStressTest
    @Description("ISA2 with a kernel in the middle, all RELAXED: 1, 1, 0 is allowed")
    @Outcome(id = {"0, 0, 0", "0, 0, 1", "0, 1, 0", "0, 1, 1", "1, 0, 0", "1, 0, 1", "1, 1, 1"}, expect = ACCEPTABLE,
            desc = "outcomes consistent with the chain")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE_INTERESTING, desc = "the host saw z but not the x that came before y")
    @Outcome(id = "TIMEOUT, .*", expect = FORBIDDEN, desc = "the kernel never completed")
    @State
    public static class Relaxed {
        static final ThreePartyKernel KERNEL = ThreePartyKernel.of(RT, Litmus.Y, Litmus.Z, MemoryOrder.RELAXED,
                MemoryOrder.RELAXED);

        final long slot = KERNEL.slot();
        final Signal completion = KERNEL.completion();

        /** Dispatches the kernel; x = 1; y = 1, relaxed. */
        @Actor
        public void writer() {
            KERNEL.dispatch(slot, completion);
            SVM.atomicStoreInt(slot + Litmus.X, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            SVM.atomicStoreInt(slot + Litmus.Y, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        }

        /** r2 = z; r3 = x, relaxed. */
        @Actor
        public void observer(LLL_Result r) {
            r.r2 = SVM.atomicLoadInt(slot + Litmus.Z, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            r.r3 = SVM.atomicLoadInt(slot + Litmus.X, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        }

        /** r1 = what the kernel saw. */
        @Arbiter
        public void arbiter(LLL_Result r) {
            KERNEL.collect(slot, completion, r);
        }
    }
}
