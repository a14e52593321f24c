package org.hsa4j.cuda.litmus;

/**
 * The memory a litmus run shares between the host and {@code hsa4j_litmus} (in
 * {@code hsa4j_litmus.cu}): the control block, the locations and the registers. Byte offsets; each
 * control field and each location has a 128-byte line of its own, so that only the accesses a
 * test makes share a line.
 */
final class LitmusLayout {
    /** int: the round the roles may run now; written by the host (volatile), polled by every role. */
    static final long GO = 0;
    /** int: GPU role threads finished, summed over all rounds; each adds 1 after its release fence. */
    static final long DONE = 128;
    /** int: non-zero ends the stress threads; written by the host once the rounds are over. */
    static final long STOP = 256;
    /** int: the round in which a GPU thread gave up waiting for GO, else 0; written by the GPU. */
    static final long FAILED = 384;
    /** Bytes of the control block. */
    static final long CONTROL_BYTES = 512;

    /** Locations per instance (x, y, z, w). */
    static final int LOCATIONS = 4;
    /** Ints from one location to the next: one 128-byte line. */
    static final int STRIDE_INTS = 32;
    /** Bytes of one instance's locations. */
    static final long INSTANCE_BYTES = (long) LOCATIONS * STRIDE_INTS * Integer.BYTES;
    /** Roles per test at most; also the row count of an instance's registers. */
    static final int ROLES = 4;
    /** Registers per role. */
    static final int REGISTERS = 4;
    /** Ops per role at most. */
    static final int OPS = 4;
    /** Bytes of one instance's registers: ROLES rows of REGISTERS ints. */
    static final long REGISTER_BYTES = (long) ROLES * REGISTERS * Integer.BYTES;

    /** Parameter block: the ops, {@link #OPS} ints per role ({@link LitmusOp#encode()}, 0 ends a role). */
    static final long PARAM_PROG = 0;
    /** Parameter block: the roles the GPU plays, one int each. */
    static final long PARAM_ROLES = 64;
    /** Parameter block: idle spins before each role, {@link #ROLES} ints per row, {@link #DELAY_ROWS} rows (row = round mod rows). */
    static final long PARAM_DELAYS = 128;
    /** Rows of delays. */
    static final int DELAY_ROWS = 256;
    /** Bytes of the parameter block. */
    static final long PARAM_BYTES = PARAM_DELAYS + (long) DELAY_ROWS * ROLES * Integer.BYTES;

    private LitmusLayout() {
    }

    /** Byte offset of location {@code loc} of instance {@code inst} in the locations buffer. */
    static long location(int inst, int loc) {
        return inst * INSTANCE_BYTES + (long) loc * STRIDE_INTS * Integer.BYTES;
    }

    /** Byte offset of register {@code reg} of {@code role} of instance {@code inst} in the registers buffer. */
    static long register(int inst, int role, int reg) {
        return inst * REGISTER_BYTES + ((long) role * REGISTERS + reg) * Integer.BYTES;
    }
}
