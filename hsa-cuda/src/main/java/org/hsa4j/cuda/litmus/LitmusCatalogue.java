package org.hsa4j.cuda.litmus;

import static org.hsa4j.cuda.litmus.LitmusOp.Order.ACQUIRE;
import static org.hsa4j.cuda.litmus.LitmusOp.Order.ACQUIRE_CTA;
import static org.hsa4j.cuda.litmus.LitmusOp.Order.ACQ_REL;
import static org.hsa4j.cuda.litmus.LitmusOp.Order.ACQ_REL_CTA;
import static org.hsa4j.cuda.litmus.LitmusOp.Order.ACQ_REL_GPU;
import static org.hsa4j.cuda.litmus.LitmusOp.Order.PLAIN;
import static org.hsa4j.cuda.litmus.LitmusOp.Order.RELAXED;
import static org.hsa4j.cuda.litmus.LitmusOp.Order.RELEASE;
import static org.hsa4j.cuda.litmus.LitmusOp.Order.RELEASE_CTA;
import static org.hsa4j.cuda.litmus.LitmusOp.Order.SC;
import static org.hsa4j.cuda.litmus.LitmusOp.fence;
import static org.hsa4j.cuda.litmus.LitmusOp.ld;
import static org.hsa4j.cuda.litmus.LitmusOp.st;

import java.util.List;

/**
 * The litmus catalogue run against the H100: MP, SB, LB, 2+2W, CoRR, WRC and ISA2, each relaxed and
 * with the orders or fences that forbid its weak outcome (x=0, y=1, z=2). The "allowed" column is
 * hsa4j's model, HSA's: relaxed atomics are coherent but unordered; a plain racing access is a data
 * race (anything goes); screlease/scacquire are sequentially consistent, so even SB is forbidden
 * with them, while PTX's st.release/ld.acquire are plain release/acquire (SB allowed): the SB
 * rel/acq row checks which one the H100 gives, and so whether a CUDA kernel must add fence.sc to
 * implement HSA's screlease/scacquire.
 */
final class LitmusCatalogue {
    private static final int X = 0;
    private static final int Y = 1;
    private static final int Z = 2;

    private LitmusCatalogue() {
    }

    /** Every test, in the order of the table in docs/MEMORY-MODEL.md. */
    static List<LitmusTest> all() {
        return List.of(
                mp("plain", PLAIN, PLAIN, null, true, "a data race: the model gives no guarantee"),
                mp("rlx", RELAXED, RELAXED, null, true, "relaxed atomics are unordered"),
                mp("rel/acq", RELEASE, ACQUIRE, null, false, "the acquire load that reads the release store synchronizes with it"),
                mp("rlx+fences", RELAXED, RELAXED, ACQ_REL, false, "release and acquire fences around the flag synchronize"),
                sb("rlx", RELAXED, RELAXED, null, true, "relaxed atomics are unordered"),
                sb("rel/acq", RELEASE, ACQUIRE, null, false,
                        "HSA's screlease/scacquire are SC; PTX's st.release/ld.acquire are not: this row tells if a fence.sc is needed"),
                sb("sc", SC, SC, null, false, "fence.sc.sys between each store and load"),
                lb("rlx", RELAXED, RELAXED, true, "relaxed atomics are unordered (load buffering)"),
                lb("acq/rel", ACQUIRE, RELEASE, false, "each acquire load orders the release store after it"),
                twoPlusTwoW("rlx", null, true, "relaxed stores to different locations are unordered"),
                twoPlusTwoW("sc fences", SC, false, "fence.sc.sys between the two stores of each role"),
                corr("plain", PLAIN, true, "a data race: plain loads may be served from a stale L1 line"),
                corr("rlx", RELAXED, false, "coherence: two loads of one location never go back in time"),
                wrc("rlx", RELAXED, RELAXED, RELAXED, true, "relaxed atomics are unordered"),
                wrc("rel/acq", ACQUIRE, RELEASE, ACQUIRE, false, "release/acquire is cumulative (causality)"),
                isa2("rlx", RELAXED, RELAXED, true, "relaxed atomics are unordered"),
                isa2("rel/acq", RELEASE, ACQUIRE, false, "release/acquire is cumulative (causality)"),
                // the CUDA forms of the mutant suite's weakened twins (docs/MEMORY-MODEL.md, "Mutants")
                mpTwin("kernel rlx -> host acq", List.of(st(X, 1, RELAXED), st(Y, 1, RELAXED)),
                        List.of(ld(Y, 0, ACQUIRE), ld(X, 1, RELAXED)), "the kernel's release removed",
                        "mp-signal-kernel-to-host", "GH"),
                mpTwin("host rel -> kernel rlx", List.of(st(X, 1, RELAXED), st(Y, 1, RELEASE)),
                        List.of(ld(Y, 0, RELAXED), ld(X, 1, RELAXED)), "the kernel's acquire removed",
                        "mp-signal-host-to-kernel", "HG"),
                mpTwin("fence.gpu -> host", List.of(st(X, 1, RELAXED), fence(ACQ_REL_GPU), st(Y, 1, RELAXED)),
                        List.of(ld(Y, 0, ACQUIRE), ld(X, 1, RELAXED)),
                        "the kernel's release fence narrowed to agent scope: it does not order for the host",
                        "completion-then-data", "GH"),
                mpTwin("fence.cta", List.of(st(X, 1, RELAXED), fence(ACQ_REL_CTA), st(Y, 1, RELAXED)),
                        List.of(ld(Y, 0, ACQUIRE), ld(X, 1, RELAXED)),
                        "the kernel's release fence narrowed to workgroup scope", "mp-fences", "GH", "GG"),
                mpTwin("rel -> acq.cta", List.of(st(X, 1, RELAXED), st(Y, 1, RELEASE)),
                        List.of(ld(Y, 0, ACQUIRE_CTA), ld(X, 1, RELAXED)),
                        "the kernel's acquire narrowed to workgroup scope", "sync-2way-handoff", "HG", "GG"),
                isa2("rel.cta", RELEASE, ACQUIRE, true, "the first role's release narrowed to workgroup scope")
                        .withFirstRelease(RELEASE_CTA).asTwin("isa2", placements("GGG", "GGH", "GHG")),
                wrc("acq.cta", ACQUIRE, RELEASE, ACQUIRE_CTA, true, "the last reader's acquire narrowed to workgroup scope")
                        .asTwin("wrc", placements("GGG", "HGG", "GHG")));
    }

    /** An MP-shaped twin: {@code writer} || {@code reader}, weak r0=1 r1=0, allowed by both models. */
    private static LitmusTest mpTwin(String variant, List<LitmusOp> writer, List<LitmusOp> reader, String why,
                                     String twin, String... where) {
        return new LitmusTest("MP", variant, List.of(writer, reader), (r, f) -> r[0] == 1 && r[1] == 0, "r0=1 r1=0",
                true, true, why, false, twin, placements(where));
    }

    private static List<Placement> placements(String... codes) {
        return java.util.Arrays.stream(codes).map(Placement::new).toList();
    }

    /** MP: x=1; y=1 || r0=y; r1=x. Weak: r0=1, r1=0. */
    static LitmusTest mp(String variant, LitmusOp.Order store, LitmusOp.Order load, LitmusOp.Order fences,
                         boolean allowed, String why) {
        List<LitmusOp> writer = fences == null ? List.of(st(X, 1, store), st(Y, 1, store))
                : List.of(st(X, 1, store), fence(fences), st(Y, 1, store));
        List<LitmusOp> reader = fences == null ? List.of(ld(Y, 0, load), ld(X, 1, load))
                : List.of(ld(Y, 0, load), fence(fences), ld(X, 1, load));
        if (store == RELEASE) {
            writer = List.of(st(X, 1, RELAXED), st(Y, 1, RELEASE));
            reader = List.of(ld(Y, 0, ACQUIRE), ld(X, 1, RELAXED));
        }
        return new LitmusTest("MP", variant, List.of(writer, reader), (r, f) -> r[0] == 1 && r[1] == 0,
                "r0=1 r1=0", allowed, allowed, why, false, null, null);
    }

    /** SB: x=1; r0=y || y=1; r1=x. Weak: r0=0, r1=0. */
    static LitmusTest sb(String variant, LitmusOp.Order store, LitmusOp.Order load, LitmusOp.Order fences,
                         boolean allowed, String why) {
        return new LitmusTest("SB", variant, List.of(List.of(st(X, 1, store), ld(Y, 0, load)),
                List.of(st(Y, 1, store), ld(X, 1, load))), (r, f) -> r[0] == 0 && r[1] == 0, "r0=0 r1=0", allowed,
                allowed || store == RELEASE, why, false, null, null);
    }

    /** LB: r0=x; y=1 || r1=y; x=1. Weak: r0=1, r1=1. */
    static LitmusTest lb(String variant, LitmusOp.Order load, LitmusOp.Order store, boolean allowed, String why) {
        return new LitmusTest("LB", variant, List.of(List.of(ld(X, 0, load), st(Y, 1, store)),
                List.of(ld(Y, 1, load), st(X, 1, store))), (r, f) -> r[0] == 1 && r[1] == 1, "r0=1 r1=1", allowed,
                allowed, why, false, null, null);
    }

    /** 2+2W: x=1; y=2 || y=1; x=2. Weak: finally x=1 and y=1 (each role's first store came last). */
    static LitmusTest twoPlusTwoW(String variant, LitmusOp.Order fences, boolean allowed, String why) {
        List<LitmusOp> a = fences == null ? List.of(st(X, 1, RELAXED), st(Y, 2, RELAXED))
                : List.of(st(X, 1, RELAXED), fence(fences), st(Y, 2, RELAXED));
        List<LitmusOp> b = fences == null ? List.of(st(Y, 1, RELAXED), st(X, 2, RELAXED))
                : List.of(st(Y, 1, RELAXED), fence(fences), st(X, 2, RELAXED));
        return new LitmusTest("2+2W", variant, List.of(a, b), (r, f) -> f[X] == 1 && f[Y] == 1, "x=1 y=1", allowed,
                allowed, why, true, null, null);
    }

    /** CoRR: x=1 || r0=x; r1=x. Weak: r0=1, r1=0. */
    static LitmusTest corr(String variant, LitmusOp.Order order, boolean allowed, String why) {
        return new LitmusTest("CoRR", variant, List.of(List.of(st(X, 1, order)), List.of(ld(X, 0, order), ld(X, 1, order))),
                (r, f) -> r[0] == 1 && r[1] == 0, "r0=1 r1=0", allowed, allowed, why, false, null, null);
    }

    /** WRC: x=1 || r0=x; y=1 || r1=y; r2=x. Weak: r0=1, r1=1, r2=0. */
    static LitmusTest wrc(String variant, LitmusOp.Order middleLoad, LitmusOp.Order middleStore, LitmusOp.Order lastLoad,
                          boolean allowed, String why) {
        return new LitmusTest("WRC", variant, List.of(List.of(st(X, 1, RELAXED)),
                List.of(ld(X, 0, middleLoad), st(Y, 1, middleStore)),
                List.of(ld(Y, 1, lastLoad), ld(X, 2, RELAXED))), (r, f) -> r[0] == 1 && r[1] == 1 && r[2] == 0,
                "r0=1 r1=1 r2=0", allowed, allowed, why, false, null, null);
    }

    /** ISA2: x=1; y=1 || r0=y; z=1 || r1=z; r2=x. Weak: r0=1, r1=1, r2=0. */
    static LitmusTest isa2(String variant, LitmusOp.Order store, LitmusOp.Order loads, boolean allowed, String why) {
        return new LitmusTest("ISA2", variant, List.of(List.of(st(X, 1, RELAXED), st(Y, 1, store)),
                List.of(ld(Y, 0, loads), st(Z, 1, store)),
                List.of(ld(Z, 1, loads), ld(X, 2, RELAXED))), (r, f) -> r[0] == 1 && r[1] == 1 && r[2] == 0,
                "r0=1 r1=1 r2=0", allowed, allowed, why, false, null, null);
    }
}
