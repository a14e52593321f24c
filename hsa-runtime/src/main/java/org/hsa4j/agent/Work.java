package org.hsa4j.agent;

/** Launched work that compute units execute: a kernel dispatch's workgroups or an agent dispatch. */
abstract class Work {
    final QueueSlot slot;

    Work(QueueSlot slot) {
        this.slot = slot;
    }

    /** True while a compute unit could still claim part of this work. */
    abstract boolean claimable();

    /** Claims and runs one part on {@code unit}; false when nothing was left to claim. */
    abstract boolean runOne(ComputeUnit unit);
}
