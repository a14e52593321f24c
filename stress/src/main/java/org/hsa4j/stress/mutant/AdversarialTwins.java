package org.hsa4j.stress.mutant;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.signal.Signal;

/**
 * Twins of the two mistakes issue 21 found fidelity mode blind to with caches that start empty
 * and packets that run in order: a consumer that acquires at too narrow a scope and reads a line
 * it never cached (part 2: the adversarial L2), and two dispatches in one queue without the
 * barrier bit, the second reading the first's output (part 3: adversarial scheduling).
 */
final class AdversarialTwins {
    private AdversarialTwins() {
    }

    /** Host writes data, then releases a flag; the kernel acquires the flag and reads the data for the first time. */
    static final class NeverCachedLine extends KernelTwin {
        private long data;
        private long flag;
        private long result;
        private long kernel;

        NeverCachedLine() {
            super("never-cached-agent-acquire", "issue 21 part 2 (SignalWaitMessagePassingTest's shape, no early read)",
                    "the kernel's acquire load of the flag narrowed from SYSTEM to AGENT scope",
                    "flag seen, data stale in a line the kernel never read before");
        }

        @Override
        void prepare(TwinRig rig) {
            data = rig.fine(MessagePassingTwins.LINE);
            flag = rig.fine(MessagePassingTwins.LINE);
            result = rig.fine(MessagePassingTwins.LINE);
            kernel = rig.kernel("never_cached_line", wi -> {
                Svm svm = wi.svm();
                steps.reach(1);
                MemoryScope scope = weakened ? MemoryScope.AGENT : MemoryScope.SYSTEM;
                long deadline = System.nanoTime() + Steps.PATIENCE_NANOS;
                while (svm.atomicLoadInt(flag, MemoryOrder.ACQUIRE, scope) != 1) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new TwinTimeoutException("the kernel never saw the host's flag");
                    }
                    Thread.onSpinWait();
                }
                svm.atomicStoreInt(result, svm.getInt(data), MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setInt(data, 0);
            host.setInt(flag, 0);
            host.setInt(result, -1);
            DispatchCompletion done = rig.dispatch(kernel, 1);
            steps.await(1);
            host.setInt(data, 42);
            host.atomicStoreInt(flag, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
            rig.await(done);
            int seen = host.getInt(result);
            return Outcome.of(seen != 42, "flag 1, data " + seen);
        }
    }

    /** A producer kernel writes data; the next dispatch in the queue reads it. */
    static final class MissingBarrierBit extends KernelTwin {
        private long data;
        private long result;
        private long producer;
        private long consumer;
        private Signal producerDone;
        private Signal consumerDone;

        MissingBarrierBit() {
            super("missing-barrier-bit", "issue 21 part 3 (two dispatches of one queue)",
                    "the consumer's dispatch packet loses its barrier bit",
                    "both kernels completed, the consumer read the data before the producer wrote it");
        }

        @Override
        void prepare(TwinRig rig) {
            data = rig.fine(MessagePassingTwins.LINE);
            result = rig.fine(MessagePassingTwins.LINE);
            producer = rig.kernel("barrier_producer", wi -> wi.svm().setInt(data, 42));
            consumer = rig.kernel("barrier_consumer", wi -> wi.svm().setInt(result, wi.svm().getInt(data)));
            producerDone = rig.runtime().createSignal(1);
            consumerDone = rig.runtime().createSignal(1);
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setInt(data, 0);
            host.setInt(result, -1);
            producerDone.storeRelaxed(1);
            consumerDone.storeRelaxed(1);
            rig.dispatchPair(producer, producerDone, consumer, consumerDone, !weakened);
            rig.awaitZero(producerDone);
            rig.awaitZero(consumerDone);
            int seen = host.getInt(result);
            return Outcome.of(seen != 42, "completed, consumer read " + seen);
        }
    }
}
