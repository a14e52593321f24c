package org.hsa4j.stress.mutant;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.hsa4j.kernel.GroupMemory;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.memory.Svm;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.status.HsaException;

/**
 * Twins of issue 21 part 4: the work-items of one workgroup share group memory, each writing its
 * slot, and the last one sums the slots; the weakened form drops the barrier between the writes
 * and the sum. Fidelity mode runs the work-items last-first on a poisoned segment, so through the
 * raw segment the sum misses the others' writes, and through the checked view the race detector
 * fails the dispatch; in normal mode the work-items run in id order and the sum comes out right.
 */
final class GroupMemoryTwins {
    /** Work-items of the one workgroup. */
    static final int ITEMS = 16;
    /** The sum of 1 .. ITEMS, what the last work-item must find. */
    static final int SUM = ITEMS * (ITEMS + 1) / 2;

    private GroupMemoryTwins() {
    }

    /** Through the raw {@code groupSegment()}: the adversarial order alone must expose the missing barrier. */
    static final class RawSegment extends KernelTwin {
        private long result;
        private long kernel;

        RawSegment() {
            super("group-sum-missing-barrier", "issue 21 part 4 (work-items of one workgroup, raw group segment)",
                    "the workgroup barrier between the group-memory writes and the last work-item's sum is removed",
                    "the last work-item's sum misses other work-items' writes");
        }

        @Override
        void prepare(TwinRig rig) {
            result = rig.fine(MessagePassingTwins.LINE);
            kernel = rig.kernel("group_sum_raw", KernelDescriptor.EMPTY.group(4 * ITEMS).withBarriers(), wi -> {
                MemorySegment g = wi.groupSegment();
                int id = wi.flatLocalId();
                g.setAtIndex(ValueLayout.JAVA_INT, id, id + 1);
                if (!weakened) {
                    wi.barrier().await();
                }
                if (id == ITEMS - 1) {
                    int sum = 0;
                    for (int i = 0; i < ITEMS; i++) {
                        sum += g.getAtIndex(ValueLayout.JAVA_INT, i);
                    }
                    wi.svm().setInt(result, sum);
                }
            });
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setInt(result, -1);
            rig.await(rig.dispatchGroup(kernel, ITEMS, 4 * ITEMS));
            int seen = host.getInt(result);
            return Outcome.of(seen != SUM, "sum " + seen + " of " + SUM);
        }
    }

    /** Through the checked {@code groupMemory()} view: the race detector must report the missing barrier. */
    static final class CheckedView extends KernelTwin {
        private long result;
        private long kernel;

        CheckedView() {
            super("group-race-detector", "issue 21 part 4 (work-items of one workgroup, checked group memory)",
                    "the workgroup barrier between the group-memory writes and the last work-item's sum is removed",
                    "a group-memory race (reported by the detector), or a sum missing other work-items' writes");
        }

        @Override
        void prepare(TwinRig rig) {
            result = rig.fine(MessagePassingTwins.LINE);
            kernel = rig.kernel("group_sum_checked", KernelDescriptor.EMPTY.group(4 * ITEMS).withBarriers(),
                    this::sum);
        }

        private void sum(WorkItem wi) {
            GroupMemory g = wi.groupMemory();
            int id = wi.flatLocalId();
            g.setInt(4L * id, id + 1);
            if (!weakened) {
                wi.barrier().await();
            }
            if (id == ITEMS - 1) {
                int sum = 0;
                for (int i = 0; i < ITEMS; i++) {
                    sum += g.getInt(4L * i);
                }
                wi.svm().setInt(result, sum);
            }
        }

        @Override
        Outcome play(TwinRig rig) {
            Svm host = rig.host();
            host.setInt(result, -1);
            // a race report puts its queue in the error state, so every run has a queue of its own
            Queue queue = rig.runtime().gpuAgent().createQueue(4, QueueType.SINGLE, null);
            try {
                DispatchCompletion done = queue.launch(kernel).grid(ITEMS).workgroup(ITEMS).groupSegment(4 * ITEMS)
                        .fences(FenceScope.SYSTEM, FenceScope.SYSTEM).dispatch();
                try {
                    rig.await(done);
                } catch (HsaException e) {
                    return Outcome.of(e.getMessage().contains("group-memory race"), "reported: " + e.getMessage()
                            .replaceFirst(".*group-memory race", "race"));
                }
            } finally {
                queue.destroy();
            }
            int seen = host.getInt(result);
            return Outcome.of(seen != SUM, "sum " + seen + " of " + SUM);
        }
    }
}
