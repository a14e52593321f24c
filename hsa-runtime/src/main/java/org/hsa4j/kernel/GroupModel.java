package org.hsa4j.kernel;

import java.lang.foreign.MemorySegment;

import org.hsa4j.memory.ComputeUnitThread;

/**
 * How the work-items of a workgroup meet in group memory on one compute unit: chosen once per
 * {@link WorkgroupExecutor}, so normal mode tests nothing per access and nothing per work-item.
 *
 * <h2>Why an adversarial order</h2>
 * The work-items of a workgroup run one at a time on their unit, in flat-id order. A kernel that
 * shares group memory without a barrier, its last work-item summing what the others wrote, then
 * always finds the others' values: it passes every run here and fails on a GPU, where the
 * work-items run in wavefronts in no promised order. Fidelity mode ({@link #adversarial()}) runs
 * them last-first instead: a barrier-free workgroup that uses group memory runs its work-items
 * from the highest flat id down, and a barrier kernel's workgroup binds its work-items to the
 * strategy's lanes in reverse, so every barrier phase runs highest id first. It also fills the
 * group segment with {@link #POISON} when a workgroup starts (its contents are undefined then),
 * so a value left by the previous group or run never stands in for a missing write. And it hands
 * out {@link CheckedGroupMemory} views, whose {@link GroupShadow} reports a race whatever the
 * order. A kernel correct under HSA's rules (a barrier between a write and another work-item's
 * read) gives the same result in either order.
 *
 * <p>What the order cannot do: a {@link WorkgroupKernel} is one call per workgroup and keeps its
 * own loop; a barrier-free kernel whose first work-item reads what later ones wrote through the
 * raw {@link WorkItem#groupSegment()} passes (the checked view reports it); see MEMORY-MODEL.md.
 */
abstract class GroupModel {
    /** The byte fidelity mode fills a group segment with when a workgroup starts. */
    static final byte POISON = (byte) 0xA5;

    private static final GroupModel IN_ORDER = new InOrder();

    /** Normal mode: work-items in flat-id order, unchecked views. */
    static GroupModel inOrder() {
        return IN_ORDER;
    }

    /** Fidelity mode: last-first order, a poisoned segment, checked views; one per executor (it holds the shadow). */
    static GroupModel adversarial() {
        return new Adversarial();
    }

    /** True when work-items run in fidelity mode's last-first order. */
    abstract boolean lastFirst();

    /** The group-memory view work-item {@code w} hands its kernel. */
    abstract GroupMemory view(WorkItem w);

    /** Workgroup {@code flatGroup} of {@code d}, with group segment {@code group}, starts. */
    abstract void beginGroup(Dispatch d, long flatGroup, MemorySegment group);

    /** Runs a barrier-free workgroup of {@code d} on the bound work-item {@code w}. */
    abstract void runPlain(Dispatch d, WorkItem w, int cx, int cy, int cz);

    /** Runs work-items {@code cx * cy * cz} of {@code kernel} on {@code w}, highest flat id first. */
    static void runLastFirst(Kernel kernel, WorkItem w, int cx, int cy, int cz) {
        int k = 0;
        for (int z = cz - 1; z >= 0; z--) {
            w.localZ = z;
            for (int y = cy - 1; y >= 0; y--) {
                w.localY = y;
                for (int x = cx - 1; x >= 0; x--) {
                    if ((k++ & (WorkItemLoopTemplate.CHUNK - 1)) == 0) {
                        ComputeUnitThread.checkAbort();
                    }
                    w.localX = x;
                    kernel.execute(w);
                }
            }
        }
    }

    private static final class InOrder extends GroupModel {
        @Override
        boolean lastFirst() {
            return false;
        }

        @Override
        GroupMemory view(WorkItem w) {
            return new GroupMemory.Direct(w);
        }

        @Override
        void beginGroup(Dispatch d, long flatGroup, MemorySegment group) {
        }

        @Override
        void runPlain(Dispatch d, WorkItem w, int cx, int cy, int cz) {
            d.code.runner.run(w, cx, cy, cz);
        }
    }

    private static final class Adversarial extends GroupModel {
        private final GroupShadow shadow = new GroupShadow();

        @Override
        boolean lastFirst() {
            return true;
        }

        @Override
        GroupMemory view(WorkItem w) {
            return new CheckedGroupMemory(w, shadow);
        }

        @Override
        void beginGroup(Dispatch d, long flatGroup, MemorySegment group) {
            if (d.groupSegmentSize > 0) {
                group.fill(POISON);
                shadow.beginGroup(d.groupSegmentSize, d.code.name(), flatGroup,
                        d.workgroupX * d.workgroupY * d.workgroupZ);
            }
        }

        @Override
        void runPlain(Dispatch d, WorkItem w, int cx, int cy, int cz) {
            if (d.groupSegmentSize == 0) {
                d.code.runner.run(w, cx, cy, cz);
            } else {
                d.code.lastFirst.run(w, cx, cy, cz);
            }
        }
    }
}
