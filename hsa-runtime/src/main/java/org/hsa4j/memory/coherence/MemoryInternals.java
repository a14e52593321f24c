package org.hsa4j.memory.coherence;

import java.lang.foreign.MemorySegment;

import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.AtomicOp;
import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.SvmAccess;

/**
 * What this package needs of {@code org.hsa4j.memory}'s internals, in one place: {@link SvmAccess}'s
 * protected accessors, which only a subclass sees, handed on to the package. Never instantiated.
 */
abstract class MemoryInternals extends SvmAccess {
    private MemoryInternals() {
    }

    /** True for memory the caches never hold (runtime-internal, kernarg). */
    static boolean cacheExempt(Allocation a) {
        return uncached(a);
    }

    /** True once {@code a} is freed. */
    static boolean isFreed(Allocation a) {
        return freed(a);
    }

    /** What agent {@code agent}'s L2 saved of {@code a}'s home, or null. */
    static SavedHome savedHome(Allocation a, int agent) {
        return (SavedHome) agentState(a, agent);
    }

    /** {@link #savedHome}, made on first use. */
    static SavedHome savedHomeFor(Allocation a, int agent) {
        return (SavedHome) agentStateFor(a, agent, SavedHome::new);
    }

    /** The L1 of unit thread {@code t}, or null. */
    static UnitCache l1(ComputeUnitThread t) {
        return (UnitCache) unitState(t);
    }

    /** Runs {@code op} on {@code size} bytes at {@code offset} of {@code m}. */
    static long run(AtomicOp op, MemorySegment m, long offset, int size, long x, long y, MemoryOrder order) {
        return apply(op, m, offset, size, x, y, order);
    }

    /** True when {@code op} may change memory. */
    static boolean opWrites(AtomicOp op) {
        return writes(op);
    }

    /** True when {@code op} reads memory. */
    static boolean opReads(AtomicOp op) {
        return reads(op);
    }
}
