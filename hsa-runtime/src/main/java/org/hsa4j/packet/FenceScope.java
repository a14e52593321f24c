package org.hsa4j.packet;

import org.hsa4j.memory.MemoryScope;

/** Packet fence scopes ({@code hsa_fence_scope_t}) for the header's acquire and release fields. */
public enum FenceScope {
    /** No fence. */
    NONE(0),
    /** Fence at agent scope. */
    AGENT(1),
    /** Fence at system scope. */
    SYSTEM(2);

    private final int code;

    FenceScope(int code) {
        this.code = code;
    }

    /** The 2-bit value in the header. */
    public int code() {
        return code;
    }

    /** The memory scope this fence scope orders at, or null for NONE. */
    public MemoryScope memoryScope() {
        return switch (this) {
            case NONE -> null;
            case AGENT -> MemoryScope.AGENT;
            case SYSTEM -> MemoryScope.SYSTEM;
        };
    }

    /** The scope with 2-bit code {@code code}, or null for the reserved value 3. */
    public static FenceScope fromCode(int code) {
        return switch (code) {
            case 0 -> NONE;
            case 1 -> AGENT;
            case 2 -> SYSTEM;
            default -> null;
        };
    }
}
