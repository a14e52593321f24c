package org.hsa4j.cuda.litmus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.List;

/**
 * Runs a role's ops on the host over the shared memory, in the Java forms of the PTX orders:
 * PLAIN a plain access, RELAXED opaque, ACQUIRE getAcquire, RELEASE setRelease, SC a full fence
 * and a volatile access (as hsa4j maps HSA's screlease/scacquire), fences fullFence (SC) or
 * acquireFence + releaseFence (the ACQ_REL fences; a host has no narrower scope, so the .gpu and
 * .cta forms run as their system-scope ones).
 */
final class HostRole {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private HostRole() {
    }

    /** Runs {@code ops} on instance 0's locations in {@code locs}; loads land in {@code regs[register]}. */
    static void run(List<LitmusOp> ops, MemorySegment locs, int[] regs) {
        for (LitmusOp op : ops) {
            long at = LitmusLayout.location(0, op.location());
            switch (op.kind()) {
                case STORE -> store(locs, at, op.value(), op.order());
                case LOAD -> regs[op.register()] = load(locs, at, op.order());
                case FENCE -> {
                    if (op.order() == LitmusOp.Order.SC) {
                        VarHandle.fullFence();
                    } else {
                        VarHandle.acquireFence();
                        VarHandle.releaseFence();
                    }
                }
            }
        }
    }

    private static void store(MemorySegment m, long at, int v, LitmusOp.Order order) {
        switch (order) {
            case PLAIN -> INT.set(m, at, v);
            case RELEASE, RELEASE_GPU, RELEASE_CTA -> INT.setRelease(m, at, v);
            case SC -> {
                VarHandle.fullFence();
                INT.setVolatile(m, at, v);
            }
            default -> INT.setOpaque(m, at, v);
        }
    }

    private static int load(MemorySegment m, long at, LitmusOp.Order order) {
        return switch (order) {
            case PLAIN -> (int) INT.get(m, at);
            case ACQUIRE, ACQUIRE_GPU, ACQUIRE_CTA -> (int) INT.getAcquire(m, at);
            case SC -> {
                VarHandle.fullFence();
                yield (int) INT.getVolatile(m, at);
            }
            default -> (int) INT.getOpaque(m, at);
        };
    }
}
