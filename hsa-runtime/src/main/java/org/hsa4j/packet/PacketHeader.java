package org.hsa4j.packet;

/**
 * The 16-bit AQL packet header ({@code hsa_packet_header_t}): type in bits 0-7, barrier bit 8,
 * acquire fence scope bits 9-10, release fence scope bits 11-12. The header and the 16 bits after
 * it (kernel dispatch: setup; agent dispatch: type) are published together by one 32-bit release
 * store; {@link #word} builds that word.
 */
public final class PacketHeader {
    /** Position of the type field. */
    public static final int TYPE_SHIFT = 0;
    /** Width mask of the type field. */
    public static final int TYPE_MASK = 0xFF;
    /** Position of the barrier bit. */
    public static final int BARRIER_SHIFT = 8;
    /** Position of the acquire fence scope. */
    public static final int ACQUIRE_FENCE_SCOPE_SHIFT = 9;
    /** Position of the release fence scope. */
    public static final int RELEASE_FENCE_SCOPE_SHIFT = 11;
    /** Width mask of a fence scope field. */
    public static final int FENCE_SCOPE_MASK = 0x3;

    private PacketHeader() {
    }

    /** Builds a header. */
    public static short of(PacketType type, boolean barrier, FenceScope acquire, FenceScope release) {
        return (short) ((type.code() << TYPE_SHIFT)
                | ((barrier ? 1 : 0) << BARRIER_SHIFT)
                | (acquire.code() << ACQUIRE_FENCE_SCOPE_SHIFT)
                | (release.code() << RELEASE_FENCE_SCOPE_SHIFT));
    }

    /** Builds the 32-bit word {@code header | rest << 16} that publishes a packet. */
    public static int word(short header, short rest) {
        return (header & 0xFFFF) | (rest << 16);
    }

    /** The type code of a header (may be an unknown code). */
    public static int typeCode(int header) {
        return (header >>> TYPE_SHIFT) & TYPE_MASK;
    }

    /** True when the barrier bit is set. */
    public static boolean barrier(int header) {
        return ((header >>> BARRIER_SHIFT) & 1) != 0;
    }

    /** The acquire fence scope code. */
    public static int acquireScopeCode(int header) {
        return (header >>> ACQUIRE_FENCE_SCOPE_SHIFT) & FENCE_SCOPE_MASK;
    }

    /** The release fence scope code. */
    public static int releaseScopeCode(int header) {
        return (header >>> RELEASE_FENCE_SCOPE_SHIFT) & FENCE_SCOPE_MASK;
    }
}
