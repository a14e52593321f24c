package org.hsa4j.cuda.litmus;

/**
 * One instruction of a litmus role, encoded in one int for {@code hsa4j_litmus}: kind bits 0-3,
 * order bits 4-7, location bits 8-11, register bits 12-15, value bits 16-31. Every access is at
 * system scope. The host side runs the same ops with VarHandles ({@link HostRole}).
 *
 * @param kind     store, load or fence
 * @param order    the memory order
 * @param location 0..3 for x, y, z, w
 * @param register the register a load writes, 0..3, numbered across the whole test
 * @param value    the value a store writes, 1..65535
 */
record LitmusOp(Kind kind, Order order, int location, int register, int value) {
    /** What the op does. */
    enum Kind {
        STORE(1), LOAD(2), FENCE(3);

        final int code;

        Kind(int code) {
            this.code = code;
        }
    }

    /**
     * Memory orders and their PTX: PLAIN {@code ld/st.global} (not atomic: a race is a data race),
     * RELAXED {@code .relaxed.sys}, ACQUIRE {@code ld.acquire.sys}, RELEASE {@code st.release.sys},
     * SC {@code fence.sc.sys} before a relaxed store or an acquire load, ACQ_REL (fences only)
     * {@code fence.acq_rel.sys}; the narrowed scopes of the mutant suite's twins ({@code .gpu}:
     * agent, {@code .cta}: workgroup), which a host thread runs as their system-scope forms.
     */
    enum Order {
        PLAIN(0, "plain"), RELAXED(1, "rlx"), ACQUIRE(2, "acq"), RELEASE(3, "rel"), SC(4, "sc"), ACQ_REL(5, "acq_rel"),
        /** {@code ld.acquire.gpu}: agent scope, the mutant suite's narrowed acquire. */
        ACQUIRE_GPU(6, "acq.gpu"),
        /** {@code st.release.gpu}: agent scope. */
        RELEASE_GPU(7, "rel.gpu"),
        /** {@code ld.acquire.cta}: workgroup scope. */
        ACQUIRE_CTA(8, "acq.cta"),
        /** {@code st.release.cta}: workgroup scope. */
        RELEASE_CTA(9, "rel.cta"),
        /** {@code fence.acq_rel.gpu} (fences only). */
        ACQ_REL_GPU(10, "acq_rel.gpu"),
        /** {@code fence.acq_rel.cta} (fences only). */
        ACQ_REL_CTA(11, "acq_rel.cta");

        final int code;
        final String shortName;

        Order(int code, String shortName) {
            this.code = code;
            this.shortName = shortName;
        }
    }

    LitmusOp {
        if (location < 0 || location >= LitmusLayout.LOCATIONS || register < 0 || register >= LitmusLayout.REGISTERS
                || value < 0 || value > 0xffff) {
            throw new IllegalArgumentException("op out of range: " + kind + " loc " + location + " reg " + register
                    + " value " + value);
        }
    }

    /** {@code loc = value} with {@code order}. */
    static LitmusOp st(int location, int value, Order order) {
        return new LitmusOp(Kind.STORE, order, location, 0, value);
    }

    /** {@code register = loc} with {@code order}. */
    static LitmusOp ld(int location, int register, Order order) {
        return new LitmusOp(Kind.LOAD, order, location, register, 0);
    }

    /** A fence of {@code order} (SC or ACQ_REL). */
    static LitmusOp fence(Order order) {
        return new LitmusOp(Kind.FENCE, order, 0, 0, 0);
    }

    /** The int {@code hsa4j_litmus} decodes. */
    int encode() {
        return kind.code | order.code << 4 | location << 8 | register << 12 | value << 16;
    }

    @Override
    public String toString() {
        String loc = String.valueOf("xyzw".charAt(location));
        return switch (kind) {
            case STORE -> "st." + order.shortName + " " + loc + "=" + value;
            case LOAD -> "r" + register + "=ld." + order.shortName + " " + loc;
            case FENCE -> "fence." + order.shortName;
        };
    }
}
