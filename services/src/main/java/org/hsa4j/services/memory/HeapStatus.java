package org.hsa4j.services.memory;

/**
 * Results of free (and of malloc, in its second result word): 0 for success, a negative code for
 * an error. An error never changes the heap: a double free or a foreign pointer is refused, not
 * executed.
 */
public final class HeapStatus {
    /** Done. */
    public static final int OK = 0;
    /** The block was already free. */
    public static final int DOUBLE_FREE = -1;
    /** The address was not allocated by this heap (or by the host malloc service). */
    public static final int FOREIGN_POINTER = -2;
    /** The address points inside a block, not at its start. */
    public static final int INTERIOR_POINTER = -3;
    /** No memory left. */
    public static final int OUT_OF_MEMORY = -4;
    /** A size that is negative or too large. */
    public static final int BAD_SIZE = -5;
    /** The call could not reach the host service (closed, unknown opcode). */
    public static final int UNAVAILABLE = -6;

    private HeapStatus() {
    }

    /** The name of {@code status}. */
    public static String name(long status) {
        return switch ((int) status) {
            case OK -> "OK";
            case DOUBLE_FREE -> "DOUBLE_FREE";
            case FOREIGN_POINTER -> "FOREIGN_POINTER";
            case INTERIOR_POINTER -> "INTERIOR_POINTER";
            case OUT_OF_MEMORY -> "OUT_OF_MEMORY";
            case BAD_SIZE -> "BAD_SIZE";
            case UNAVAILABLE -> "UNAVAILABLE";
            default -> "status " + status;
        };
    }
}
