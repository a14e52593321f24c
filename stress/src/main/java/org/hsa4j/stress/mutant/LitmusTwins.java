package org.hsa4j.stress.mutant;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.queue.DispatchCompletion;

/**
 * Twins of the litmus shapes a cache model can break: store buffering, and the two causality
 * chains (ISA2, WRC) with a kernel's two workgroups as the middle and last parties. The data of
 * the chains is written and read with plain accesses, as GPU litmus tests write them.
 */
final class LitmusTwins {
    private LitmusTwins() {
    }

    /** Kernel: x := 1 (sc), r1 := y (sc) ‖ host: y := 1 (sc), r2 := x (sc), in that order of steps. */
    static final class StoreBuffering extends KernelTwin {
        private long fineX;
        private long fineY;
        private long coarseX;
        private long coarseY;
        private long result;
        private long kernel;

        StoreBuffering() {
            super("store-buffering", "StoreBufferingLitmus.ReleaseAcquire",
                    "x and y moved from fine-grained to coarse-grained memory",
                    "r1 = 0, r2 = 0");
        }

        @Override
        void prepare(TwinRig rig) {
            fineX = rig.fine(MessagePassingTwins.LINE);
            fineY = rig.fine(MessagePassingTwins.LINE);
            coarseX = rig.coarse(MessagePassingTwins.LINE);
            coarseY = rig.coarse(MessagePassingTwins.LINE);
            result = rig.fine(MessagePassingTwins.LINE);
            kernel = rig.kernel("store_buffering", wi -> {
                Svm svm = wi.svm();
                long x = weakened ? coarseX : fineX;
                long y = weakened ? coarseY : fineY;
                svm.atomicLoadInt(y, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
                steps.reach(1);
                steps.await(2);
                svm.atomicStoreInt(x, 1, MemoryOrder.SEQ_CST, MemoryScope.SYSTEM);
                svm.setInt(result, svm.atomicLoadInt(y, MemoryOrder.SEQ_CST, MemoryScope.SYSTEM));
                steps.reach(3);
                steps.await(4);
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            long x = weakened ? coarseX : fineX;
            long y = weakened ? coarseY : fineY;
            host.setInt(x, 0);
            host.setInt(y, 0);
            host.setInt(result, -1);
            DispatchCompletion done = rig.dispatch(kernel, 1);
            steps.await(1);
            host.atomicStoreInt(y, 1, MemoryOrder.SEQ_CST, MemoryScope.SYSTEM);
            steps.reach(2);
            steps.await(3);
            int r2 = host.atomicLoadInt(x, MemoryOrder.SEQ_CST, MemoryScope.SYSTEM);
            steps.reach(4);
            rig.await(done);
            int r1 = host.getInt(result);
            return Outcome.of(r1 == 0 && r2 == 0, "r1 = " + r1 + ", r2 = " + r2);
        }
    }

    /**
     * ISA2: workgroup 0: x := 42 (plain), y := 1 (release) ‖ workgroup 1: r1 := y (acquire),
     * z := 1 (release) ‖ host: r2 := z (acquire), r3 := x (plain).
     */
    static final class Isa2 extends KernelTwin {
        private long x;
        private long y;
        private long z;
        private long r1;
        private long kernel;

        Isa2() {
            super("isa2", "Isa2Litmus.ReleaseAcquire",
                    "the first workgroup's release narrowed from SYSTEM to WORKGROUP scope",
                    "r1 = 1, r2 = 1, r3 = 0");
        }

        @Override
        void prepare(TwinRig rig) {
            x = rig.fine(MessagePassingTwins.LINE);
            y = rig.fine(MessagePassingTwins.LINE);
            z = rig.fine(MessagePassingTwins.LINE);
            r1 = rig.fine(MessagePassingTwins.LINE);
            kernel = rig.kernel("isa2", wi -> {
                Svm svm = wi.svm();
                if (wi.flatGroupId() == 0) {
                    svm.setInt(x, 42);
                    svm.atomicStoreInt(y, 1, MemoryOrder.RELEASE, weakened ? MemoryScope.WORKGROUP : MemoryScope.SYSTEM);
                    steps.reach(1);
                } else {
                    steps.await(1);
                    svm.setInt(r1, svm.atomicLoadInt(y, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM));
                    svm.atomicStoreInt(z, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
                    steps.reach(2);
                }
                steps.await(3);
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setInt(x, 0);
            host.setInt(y, 0);
            host.setInt(z, 0);
            host.setInt(r1, -1);
            DispatchCompletion done = rig.dispatch(kernel, 2);
            steps.await(2);
            int r2 = host.atomicLoadInt(z, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
            int r3 = host.getInt(x);
            steps.reach(3);
            rig.await(done);
            int seen1 = host.getInt(r1);
            return Outcome.of(seen1 == 1 && r2 == 1 && r3 != 42, "r1 = " + seen1 + ", r2 = " + r2 + ", r3 = " + r3);
        }
    }

    /**
     * WRC: host: x := 1 (release) ‖ workgroup 0: r1 := x (acquire), y := 1 (release) ‖ workgroup 1
     * (on the other compute unit, with x's line in its cache from before): r2 := y (acquire),
     * r3 := x (plain).
     */
    static final class Wrc extends KernelTwin {
        private long x;
        private long y;
        private long results;
        private long kernel;

        Wrc() {
            super("wrc", "WriteReadCausalityLitmus.AcquireRelease",
                    "the last reader's acquire narrowed from SYSTEM to WORKGROUP scope",
                    "r1 = 1, r2 = 1, r3 = 0");
        }

        @Override
        void prepare(TwinRig rig) {
            x = rig.fine(MessagePassingTwins.LINE);
            y = rig.fine(MessagePassingTwins.LINE);
            results = rig.fine(MessagePassingTwins.LINE);
            kernel = rig.kernel("wrc", wi -> {
                Svm svm = wi.svm();
                if (wi.flatGroupId() == 1) {
                    svm.setInt(results + 12, computeUnit());
                    svm.getInt(x);
                    steps.reach(1);
                    steps.await(3);
                    int r2 = svm.atomicLoadInt(y, MemoryOrder.ACQUIRE, weakened ? MemoryScope.WORKGROUP : MemoryScope.SYSTEM);
                    svm.setInt(results + 4, r2);
                    svm.setInt(results + 8, svm.getInt(x));
                    steps.reach(4);
                } else {
                    svm.setInt(results + 16, computeUnit());
                    steps.await(2);
                    svm.setInt(results, svm.atomicLoadInt(x, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM));
                    svm.atomicStoreInt(y, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
                    steps.reach(3);
                    steps.await(4);
                }
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setInt(x, 0);
            host.setInt(y, 0);
            host.fill(results, 20, (byte) -1);
            DispatchCompletion done = rig.dispatch(kernel, 2);
            steps.await(1);
            host.atomicStoreInt(x, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
            steps.reach(2);
            rig.await(done);
            int r1 = host.getInt(results);
            int r2 = host.getInt(results + 4);
            int r3 = host.getInt(results + 8);
            if (host.getInt(results + 12) == host.getInt(results + 16)) {
                throw new IllegalStateException("both WRC workgroups ran on one compute unit: the rig is broken");
            }
            return Outcome.of(r1 == 1 && r2 == 1 && r3 == 0, "r1 = " + r1 + ", r2 = " + r2 + ", r3 = " + r3);
        }
    }
}
