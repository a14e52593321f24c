package org.hsa4j.stress.mutant;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * Twins whose weakening is on the host's side of a host-kernel protocol: the host thread's store
 * buffer (fidelity mode) keeps its relaxed stores from the kernel until it releases, and serves its
 * loads from its own copy of a line until it acquires (issue 21 part 1).
 */
final class HostSideTwins {
    private HostSideTwins() {
    }

    /** Host writes data, then rings the signal a running kernel waits on (scacquire); the kernel reads the data. */
    static final class HostRingsRelaxed extends KernelTwin {
        private long data;
        private long result;
        private Signal doorbell;
        private long kernel;

        HostRingsRelaxed() {
            super("mp-host-ring-relaxed", "SignalWaitMessagePassingTest",
                    "the host's storeScrelease on the doorbell signal becomes storeRelaxed (release removed)",
                    "woken by the doorbell, data stale");
        }

        @Override
        void prepare(TwinRig rig) {
            data = rig.fine(MessagePassingTwins.LINE);
            result = rig.fine(MessagePassingTwins.LINE);
            doorbell = rig.runtime().createSignal(0);
            kernel = rig.kernel("mp_host_ring", wi -> {
                Svm svm = wi.svm();
                steps.reach(1);
                long deadline = System.nanoTime() + Steps.PATIENCE_NANOS;
                while (doorbell.waitScacquire(SignalCondition.NE, 0, 1_000_000L, WaitState.BLOCKED) == 0) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new TwinTimeoutException("the kernel never saw the host's doorbell");
                    }
                }
                svm.setInt(result, svm.getInt(data));
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setInt(data, 0);
            host.setInt(result, -1);
            doorbell.storeRelaxed(0);
            DispatchCompletion done = rig.dispatch(kernel, 1);
            steps.await(1);
            host.setInt(data, 42);
            if (weakened) {
                doorbell.storeRelaxed(1);
            } else {
                doorbell.storeScrelease(1);
            }
            rig.await(done);
            int seen = host.getInt(result);
            return Outcome.of(seen != 42, "woken, data " + seen);
        }
    }

    /** A kernel writes data, then a flag with a system-scope release; the host polls the flag, then reads the data. */
    static final class HostReadsFlagRelaxed extends KernelTwin {
        private long data;
        private long flag;
        private long kernel;

        HostReadsFlagRelaxed() {
            super("mp-host-flag-relaxed", "SignalMessagePassingTest, MessagePassingLitmus.ReleaseAcquire",
                    "the host's acquire load of the flag becomes a relaxed load (acquire removed)",
                    "flag seen, data stale");
        }

        @Override
        void prepare(TwinRig rig) {
            data = rig.fine(MessagePassingTwins.LINE);
            flag = rig.fine(MessagePassingTwins.LINE);
            kernel = rig.kernel("mp_host_flag", wi -> {
                Svm svm = wi.svm();
                svm.setInt(data, 42);
                svm.atomicStoreInt(flag, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
                steps.await(1);
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setInt(data, 0);
            host.atomicStoreInt(flag, 0, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            DispatchCompletion done = rig.dispatch(kernel, 1);
            MemoryOrder order = weakened ? MemoryOrder.RELAXED : MemoryOrder.ACQUIRE;
            long deadline = System.nanoTime() + Steps.PATIENCE_NANOS;
            while (host.atomicLoadInt(flag, order, MemoryScope.SYSTEM) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new TwinTimeoutException("the host never saw the kernel's flag");
                }
                Thread.onSpinWait();
            }
            int seen = host.getInt(data);
            steps.reach(1);
            rig.await(done);
            return Outcome.of(seen != 42, "flag 1, data " + seen);
        }
    }
}
