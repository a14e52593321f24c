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

    /** Parts nobody has claimed yet: what a helper woken now could still take. */
    abstract long unclaimedParts();

    /** Claims one part (a workgroup's flat id, or 0 for an agent dispatch); -1 when nothing is left. */
    abstract long claim();

    /** True when {@code part} is the last part there is to claim. */
    abstract boolean isLastPart(long part);

    /** Runs a part this unit claimed. */
    abstract void run(long part, ComputeUnit unit);
}
