package org.hsa4j.cuda.litmus;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One litmus test: its roles (each a short program of {@link LitmusOp}s), the weak outcome it looks
 * for, and whether hsa4j's memory model (HSA's: relaxed atomics coherent but unordered,
 * scacquire/screlease sequentially consistent, fences at system scope) allows that outcome.
 *
 * @param shape       MP, SB, LB, 2+2W, CoRR, WRC or ISA2
 * @param variant     the orders used, e.g. "rlx" or "rel/acq"
 * @param roles       the roles' programs, at most {@link LitmusLayout#ROLES} of at most {@link LitmusLayout#OPS} ops
 * @param weak        the outcome the test looks for
 * @param weakText    that outcome in words, e.g. "r0=1 r1=0"
 * @param allowed     true when the model allows the weak outcome
 * @param ptxAllows   true when PTX's model allows it for the instructions the GPU runs (differs
 *                    from {@code allowed} only where PTX's order is weaker than HSA's, as for SB rel/acq)
 * @param why         one line on why the model allows or forbids it
 * @param readsFinals true when the outcome includes the locations' final values (2+2W)
 * @param twinOf      the mutant-suite twin this row is the CUDA form of, or null
 * @param placements  where to run it, or null for {@link Placement#forRoles}
 */
record LitmusTest(String shape, String variant, List<List<LitmusOp>> roles, Weak weak, String weakText,
                  boolean allowed, boolean ptxAllows, String why, boolean readsFinals, String twinOf,
                  List<Placement> placements) {
    /** Decides whether an outcome is the weak one. */
    @FunctionalInterface
    interface Weak {
        /** {@code regs[r]} is register r; {@code finals[l]} location l after the round. */
        boolean test(int[] regs, int[] finals);
    }

    LitmusTest {
        roles = roles.stream().map(List::copyOf).toList();
        if (roles.isEmpty() || roles.size() > LitmusLayout.ROLES
                || roles.stream().anyMatch(r -> r.isEmpty() || r.size() > LitmusLayout.OPS)) {
            throw new IllegalArgumentException(shape + " " + variant + ": 1 to " + LitmusLayout.ROLES + " roles of 1 to "
                    + LitmusLayout.OPS + " ops");
        }
    }

    /** The placements this test runs in. */
    List<Placement> runIn() {
        return placements != null ? placements : Placement.forRoles(roles.size());
    }

    /** The same test as the CUDA form of mutant-suite twin {@code twin}, run only in {@code where}. */
    LitmusTest asTwin(String twin, List<Placement> where) {
        return new LitmusTest(shape, variant, roles, weak, weakText, allowed, ptxAllows, why, readsFinals, twin,
                List.copyOf(where));
    }

    /** The same test with role 0's release store (ISA2's y = 1) at {@code order} instead. */
    LitmusTest withFirstRelease(LitmusOp.Order order) {
        List<LitmusOp> first = roles.get(0).stream().map(o -> o.kind() == LitmusOp.Kind.STORE
                && o.order() == LitmusOp.Order.RELEASE ? new LitmusOp(o.kind(), order, o.location(), o.register(), o.value()) : o)
                .toList();
        List<List<LitmusOp>> all = new java.util.ArrayList<>(roles);
        all.set(0, first);
        return new LitmusTest(shape, variant, all, weak, weakText, allowed, ptxAllows, why, readsFinals, twinOf, placements);
    }

    /** "MP rel/acq". */
    String name() {
        return shape + " " + variant;
    }

    /** The registers the test's loads write, in order of appearance. */
    List<Integer> registers() {
        return roles.stream().flatMap(List::stream).filter(o -> o.kind() == LitmusOp.Kind.LOAD)
                .map(LitmusOp::register).toList();
    }

    /** The locations the test touches, in order. */
    List<Integer> locations() {
        return roles.stream().flatMap(List::stream).filter(o -> o.kind() != LitmusOp.Kind.FENCE)
                .map(LitmusOp::location).distinct().sorted().toList();
    }

    /** An outcome as text: the registers, then (2+2W) the final values. */
    String outcome(int[] regs, int[] finals) {
        StringBuilder b = new StringBuilder();
        for (int r : registers()) {
            b.append(b.isEmpty() ? "" : " ").append('r').append(r).append('=').append(regs[r]);
        }
        if (readsFinals) {
            for (int l : locations()) {
                b.append(b.isEmpty() ? "" : " ").append("xyzw".charAt(l)).append('=').append(finals[l]);
            }
        }
        return b.toString();
    }

    /** The programs, one role per column: "st.rlx x=1; st.rlx y=1 || r0=ld.rlx y; r1=ld.rlx x". */
    String program() {
        return roles.stream().map(r -> r.stream().map(LitmusOp::toString).collect(Collectors.joining("; ")))
                .collect(Collectors.joining(" || "));
    }
}
