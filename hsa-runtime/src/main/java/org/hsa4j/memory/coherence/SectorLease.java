package org.hsa4j.memory.coherence;

/**
 * The right of one compute unit's thread to read or write one L1 sector's data directly, through
 * a {@link SectorCursor}, until its unit changes the sector: the {@link CacheSector} revokes the
 * lease when it takes another block, drops bytes or its unit stops running kernel code, so a lease
 * in force always means "this thread's L1 holds the block at {@link #storeBase}, as it was when
 * granted or newer".
 *
 * <p>Each sector has one lease object for its life, made by its unit's thread at the first grant
 * and granted again (its bases set to the new block) after each revocation. A cursor still holding
 * it from an earlier grant is therefore always right: an access in the block now leased is an
 * access to that block by the same thread, and any other access misses the bases. No lease is
 * allocated on the hot path, and two views over one block share it.
 *
 * <p>Every field but the two bases is final, so a lease seen by another thread through a racy
 * field is whole; the bases are written by the unit's thread, and by a thread that freed the
 * allocation, which only revokes ({@link CoherenceModel#released}); every other thread fails the
 * {@link #thread} check, whatever it reads of them.
 */
final class SectorLease {
    /** A base no access matches (a block address is a multiple of the sector size). */
    static final long REVOKED = 1;
    /** The lease a cursor starts with: no thread holds it. */
    static final SectorLease NONE = new SectorLease(null, null);

    /** The unit's thread the lease is for. */
    final Thread thread;
    /** The leased sector; null for {@link #NONE}. */
    final CacheSector sector;
    /** The sector's data and dirty flags (a store sets its bytes' flags there). */
    final int[] ints;
    /** The SVM address of the leased block for stores, or {@link #REVOKED}. */
    long storeBase;
    /** As {@link #storeBase} for loads: {@link #REVOKED} too when a byte of the block held no value when granted. */
    long loadBase;

    SectorLease(Thread thread, CacheSector sector) {
        this.thread = thread;
        this.sector = sector;
        this.ints = sector == null ? new int[CacheGeometry.L1_SECTOR_INTS] : sector.ints;
        this.storeBase = REVOKED;
        this.loadBase = REVOKED;
    }

    /** Grants the lease for loads on {@code block} (every byte holds a value); stores keep their grant only if it is on the same block. */
    void grantLoads(long block) {
        loadBase = block;
        if (storeBase != block) {
            storeBase = REVOKED;
        }
    }

    /** Grants the lease for stores on {@code block}, and for loads when {@code loads} (every byte holds a value). */
    void grantStores(long block, boolean loads) {
        storeBase = block;
        loadBase = loads ? block : REVOKED;
    }

    /** Ends the lease. */
    void revoke() {
        storeBase = REVOKED;
        loadBase = REVOKED;
    }

    /**
     * True when {@code size} bytes (a power of two) at {@code address} lie in the sector at
     * {@code base}, aligned to their size (so inside one word): one mask test, which also fails for
     * {@link #REVOKED} and for any address outside the sector.
     */
    static boolean covers(long base, long address, int size) {
        return ((address - base) & ~(long) (CacheGeometry.SECTOR_SIZE - size)) == 0;
    }
}
