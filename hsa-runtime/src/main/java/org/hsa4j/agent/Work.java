package org.hsa4j.agent;

import org.hsa4j.signal.Signal;

/** Launched work that compute units execute: a kernel dispatch's workgroups or an agent dispatch. */
abstract class Work {
    final QueueSlot slot;
    /** The packet's completion signal, or null. */
    final Signal completion;

    Work(QueueSlot slot, Signal completion) {
        this.slot = slot;
        this.completion = completion;
    }

    /** True while a compute unit could still claim part of this work. */
    abstract boolean claimable();

    /** Claims and runs one part on {@code unit}; false when nothing was left to claim. */
    abstract boolean runOne(ComputeUnit unit);
}
