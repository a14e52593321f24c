package org.hsa4j.memory;

/**
 * The right of one compute unit's thread to read or write one L1 line's words directly, through a
 * {@link LineCursor}, until its unit changes the line: the line's {@link CacheLine} revokes the lease
 * when it takes another line, drops bytes or its unit stops running kernel code, so a lease in
 * force always means "this thread's L1 holds the line at {@link #storeBase}, as it was when granted
 * or newer".
 *
 * <p>Each L1 line has one lease object for its life, made by its unit's thread at the first grant
 * and granted again (its bases set to the new line) after each revocation. A cursor still holding
 * it from an earlier grant is therefore always right: an access in the line now leased is an access
 * to that line by the same thread, and any other access misses the bases. No lease is allocated on
 * the hot path, and two views over one line share it.
 *
 * <p>Every field but the two bases is final, so a lease seen by another thread through a racy
 * field is whole; the bases are written only by the unit's thread, and every other thread fails the
 * {@link #thread} check, whatever it reads of them.
 */
final class LineLease {
    /** A {@link #base} no access matches (a line address is a multiple of 64). */
    static final long REVOKED = 1;
    /** The lease a cursor starts with: no thread holds it. */
    static final LineLease NONE = new LineLease(null, null);

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

    LineLease(Thread thread, CacheLine line) {
        this.thread = thread;
        this.line = line;
        this.words = line == null ? new long[CacheLine.WORDS] : line.words;
        this.storeBase = REVOKED;
        this.loadBase = REVOKED;
    }

    /** Grants the lease on the line its {@link CacheLine} holds now; for loads too when {@code loads} (every byte valid). */
    void grant(boolean loads) {
        storeBase = line.tag;
        loadBase = loads ? line.tag : REVOKED;
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
