package org.hsa4j.memory;

/**
 * The right of one compute unit's thread to read or write one L1 line's words directly, through a
 * {@link LineCursor}, until its unit changes the line: the line's {@link CacheLine} revokes the lease
 * when it takes another line, drops bytes or its unit stops running kernel code, so a lease in
 * force always means "this thread's L1 holds this line, as it was when granted or newer".
 *
 * <p>Every field but the two bases is final, so a lease seen by another thread through a racy
 * field is whole; the bases are written only by the granting thread, and every other thread fails
 * the {@link #thread} check, whatever it reads of them.
 */
final class LineLease {
    /** A {@link #base} no access matches (a line address is a multiple of 64). */
    static final long REVOKED = 1;
    /** The lease a cursor starts with: no thread holds it. */
    static final LineLease NONE = new LineLease(null, null, false);

    /** The unit's thread the lease is for. */
    final Thread thread;
    /** The leased line (for the masks a store sets). */
    final CacheLine line;
    /** The line's words. */
    final long[] words;
    /** The SVM address of the leased line for stores, or {@link #REVOKED}. */
    long storeBase;
    /** As {@link #storeBase} for loads: {@link #REVOKED} too when a byte of the line was not valid when granted. */
    long loadBase;

    LineLease(Thread thread, CacheLine line, boolean loads) {
        this.thread = thread;
        this.line = line;
        this.words = line == null ? new long[CacheLine.WORDS] : line.words;
        this.storeBase = line == null ? REVOKED : line.tag;
        this.loadBase = loads ? storeBase : REVOKED;
    }

    /** Ends the lease. */
    void revoke() {
        storeBase = REVOKED;
        loadBase = REVOKED;
    }

    /**
     * True when {@code size} bytes (a power of two) at {@code address} lie in the line at
     * {@code base}, aligned to their size (so inside one word): one mask test, which also fails for
     * {@link #REVOKED} and for any address outside the line.
     */
    static boolean covers(long base, long address, int size) {
        return ((address - base) & ~(long) (CacheLine.LINE - size)) == 0;
    }
}
