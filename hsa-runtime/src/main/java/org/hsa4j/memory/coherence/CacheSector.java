package org.hsa4j.memory.coherence;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

import org.hsa4j.memory.Allocation;

/**
 * One sector of a compute unit's L1 in fidelity mode: which aligned block of
 * {@link CacheGeometry#SECTOR_LINES} lines of which allocation it holds, its data with a dirty flag
 * per byte (one {@code int[]}, layout in {@link CacheGeometry}: {@code L1_DATA}, {@code L1_DIRTY})
 * and a clean mask per line. Only the unit's own thread changes it; an L1 is an array of these, one
 * per set.
 *
 * <p>A byte <em>holds a value</em> when it is dirty (written here and not yet in the L2) or valid
 * (clean: as fetched, or as written back). A 4- or 8-byte store writes its data ints and sets their
 * dirty flags with plain stores: no mask is read, modified and written, so one store never waits
 * for the one before it (a read-modify-write of a shared mask word chains every store of a loop
 * through memory, which cost more than all the rest of a leased store). The data are ints, not
 * bytes read through a view, so a leased float or int access is one array access with one bounds
 * check. The per-line masks the caches exchange are packed from the flags only when a sector is
 * written back or asked whether it is whole. A write-back turns dirty bytes valid; an invalidate
 * clears the valid bytes and keeps the dirty ones.
 *
 * <p>A sector is an object, not a slice of parallel arrays, so it can hand a view's
 * {@link SectorCursor} a {@link SectorLease} on its ints: the next elements of the same sector are
 * then read and written with one thread compare and one range compare. The sector revokes its
 * lease whenever the lease's promise would break: it takes another block ({@link #assign}), loses
 * bytes ({@link #dropClean}, {@link #dropLine}) or its unit stops running kernel code
 * ({@link UnitCache#stop}).
 */
final class CacheSector {
    static final int LINE = CacheGeometry.LINE_SIZE;
    static final int LINES = CacheGeometry.SECTOR_LINES;
    static final int SIZE = CacheGeometry.SECTOR_SIZE;
    static final int DATA = CacheGeometry.L1_DATA;
    static final int DIRTY = CacheGeometry.L1_DIRTY;
    /** Byte offset of the dirty flags in {@link #segment}. */
    static final long DIRTY_BYTES = (long) DIRTY * Integer.BYTES;
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    /** Dirty flags of 8 bytes, read so that byte {@code k} is bits {@code 8k..8k+7} whatever the platform. */
    private static final ValueLayout.OfLong FLAGS = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Multiplying 8 flags (each 0 or 1, byte {@code k} at bit {@code 8k}) by this gathers flag {@code k} at bit {@code 56 + k}. */
    private static final long GATHER = 0x0102_0408_1020_4080L;
    /** The flags of four bytes. */
    private static final int FLAGGED = 0x0101_0101;
    /** Ints of flags. */
    private static final int FLAG_INTS = SIZE / Integer.BYTES;
    /** The flags of a sector whose every byte is dirty, to compare with in one vectorized pass. */
    private static final int[] ALL_FLAGGED = new int[FLAG_INTS];
    /** The flags of a sector with no dirty byte. */
    private static final int[] NONE_FLAGGED = new int[FLAG_INTS];

    static {
        Arrays.fill(ALL_FLAGGED, FLAGGED);
    }

    /** The L1 this sector belongs to. */
    final UnitCache cache;
    /** Data and dirty flags (see the class comment). */
    final int[] ints = new int[CacheGeometry.L1_SECTOR_INTS];
    /** The same array as a segment: data from byte 0, flags from {@link #DIRTY_BYTES}; for copies and packing. */
    final MemorySegment segment = MemorySegment.ofArray(ints);
    /** Per line, the clean bytes that hold a value. */
    final long[] valid = new long[LINES];
    /** The SVM address of the block held (its tag, a multiple of the sector size); 0 when the set is empty. */
    long tag;
    /** The allocation the block belongs to; null when the set is empty. */
    Allocation owner;
    /** This sector's lease, made at the first grant; in force when its bases are not {@link SectorLease#REVOKED}. */
    private SectorLease lease;
    /**
     * True when no dirty flag is set: after the flags were cleared, until a store may set one (a
     * {@link #put}, or a lease granted for stores). Spares a load-only sector the flag scans.
     */
    private boolean clean = true;

    CacheSector(UnitCache cache) {
        this.cache = cache;
    }

    /** This sector's lease, made by the unit's thread at the first grant. */
    private SectorLease lease() {
        if (lease == null) {
            lease = new SectorLease(Thread.currentThread(), this);
        }
        return lease;
    }

    /** This sector's lease, granted for loads on the block held now, which the caller made whole; the caller is the unit's thread, running kernel code. */
    SectorLease grantLoads() {
        SectorLease l = lease();
        l.grantLoads(tag);
        return l;
    }

    /**
     * This sector's lease, granted for stores on the block held now (and for loads when it is
     * whole); the caller is the unit's thread, running kernel code. Whether it is whole is asked
     * before the sector stops being clean, so a fresh sector answers from its valid masks without
     * packing any dirty flags.
     */
    SectorLease grantStores() {
        SectorLease l = lease();
        boolean loads = l.loadBase == tag || whole();
        clean = false;
        l.grantStores(tag, loads);
        return l;
    }

    /** Revokes the lease, if it was ever made. */
    void revoke() {
        if (lease != null) {
            lease.revoke();
        }
    }

    /** True when this sector holds the block at {@code block} of {@code a}. */
    boolean holds(Allocation a, long block) {
        return tag == block && owner == a;
    }

    /** The dirty bytes of line {@code k}, as a per-byte mask packed from their flags. */
    long dirtyMask(int k) {
        if (clean) {
            return 0;
        }
        long mask = 0;
        long at = DIRTY_BYTES + (long) k * LINE;
        for (int w = 0; w < Long.BYTES; w++) {
            long flags = segment.get(FLAGS, at + (long) w * Long.BYTES);
            mask |= ((flags * GATHER) >>> 56) << (w * Long.BYTES);
        }
        return mask;
    }

    /**
     * The dirty masks of the sector's lines, in a scratch array of the unit's (valid until the next
     * call); null when no byte is dirty. One pass over the flags tells the two common cases, every
     * byte dirty (a stream of stores) and none, from the ones that need packing.
     */
    long[] dirtyMasks() {
        if (clean) {
            return null;
        }
        boolean all = Arrays.mismatch(ints, DIRTY, DIRTY + FLAG_INTS, ALL_FLAGGED, 0, FLAG_INTS) < 0;
        if (!all && Arrays.mismatch(ints, DIRTY, DIRTY + FLAG_INTS, NONE_FLAGGED, 0, FLAG_INTS) < 0) {
            clean = true;
            return null;
        }
        long[] masks = cache.scratch();
        for (int k = 0; k < LINES; k++) {
            masks[k] = all ? -1L : dirtyMask(k);
        }
        return masks;
    }

    /** True when no dirty flag can be set (a sector no store has touched since it was last cleaned). */
    boolean clean() {
        return clean;
    }

    /** The bytes of line {@code k} that hold a value (dirty or valid). */
    long held(int k) {
        return valid[k] == -1L ? -1L : valid[k] | dirtyMask(k);
    }

    /** True when some byte is dirty. */
    boolean dirty() {
        if (!clean && Arrays.mismatch(ints, DIRTY, DIRTY + FLAG_INTS, NONE_FLAGGED, 0, FLAG_INTS) < 0) {
            clean = true;
        }
        return !clean;
    }

    /** True when every byte of the block that lies inside its allocation holds a value. */
    boolean whole() {
        long and = -1L;
        for (int k = 0; k < LINES; k++) {
            and &= valid[k];
        }
        if (and == -1L) {
            return true;
        }
        for (int k = 0; k < LINES; k++) {
            long inside = CacheLines.inside(owner, tag + (long) k * LINE);
            if ((held(k) & inside) != inside) {
                return false;
            }
        }
        return true;
    }

    /** Makes this sector hold an empty copy of block {@code block} of {@code a} (the caller wrote the old one back). */
    void assign(Allocation a, long block) {
        revoke();
        tag = block;
        owner = a;
        for (int k = 0; k < LINES; k++) {
            valid[k] = 0;
        }
        clearFlags();
    }

    private void clearFlags() {
        if (!clean) {
            Arrays.fill(ints, DIRTY, DIRTY + FLAG_INTS, 0);
            clean = true;
        }
    }

    /** The dirty bytes {@code masks} (from {@link #dirtyMasks}) went to the L2: they are valid now, and nothing is dirty. */
    void wroteBack(long[] masks) {
        for (int k = 0; k < LINES; k++) {
            valid[k] |= masks[k];
        }
        clearFlags();
    }

    /** The dirty bytes {@code mask} of line {@code k} went to the L2 and this sector no longer holds them. */
    void forget(int k, long mask) {
        for (long m = mask; m != 0; m &= m - 1) {
            segment.set(ValueLayout.JAVA_BYTE, DIRTY_BYTES + (long) k * LINE + Long.numberOfTrailingZeros(m), (byte) 0);
        }
    }

    /** Drops the clean bytes; a sector left with no byte is freed. */
    void dropClean() {
        revoke();
        for (int k = 0; k < LINES; k++) {
            valid[k] = 0;
        }
        if (!dirty()) {
            tag = 0;
            owner = null;
        }
    }

    /** Drops the clean bytes of line {@code k}; a sector left with no byte is freed. */
    void dropLine(int k) {
        revoke();
        valid[k] = 0;
        long or = 0;
        for (int j = 0; j < LINES; j++) {
            or |= valid[j];
        }
        if (or == 0 && !dirty()) {
            tag = 0;
            owner = null;
        }
    }

    /** The bit shift, in a native-order int, of the {@code size} bytes starting at byte {@code k} (0..3) of the int. */
    private static int shift(int k, int size) {
        return LITTLE_ENDIAN ? k << 3 : (Integer.BYTES - k - size) << 3;
    }

    /**
     * Reads {@code size} (1, 2, 4 or 8) bytes at byte {@code offset} of the sector (inside one line),
     * as bits (an int, short or byte sign-extended, as {@link CacheLines#get}).
     */
    long get(int offset, int size) {
        return (offset & (size - 1)) == 0 ? get(ints, offset, size) : CacheLines.get(segment, offset, size);
    }

    /** Reads {@code size} (1, 2, 4 or 8) bytes at byte {@code offset} (aligned to {@code size}) of a sector's {@code ints}, sign-extended. */
    static long get(int[] ints, int offset, int size) {
        int j = DATA + (offset >>> 2);
        return switch (size) {
            case 4 -> ints[j];
            case 8 -> LITTLE_ENDIAN
                    ? (long) ints[j + 1] << 32 | (ints[j] & 0xFFFF_FFFFL)
                    : (long) ints[j] << 32 | (ints[j + 1] & 0xFFFF_FFFFL);
            case 2 -> (short) (ints[j] >>> shift(offset & 3, 2));
            default -> (byte) (ints[j] >>> shift(offset & 3, 1));
        };
    }

    /** Writes the low {@code size} (1, 2, 4 or 8) bytes of {@code bits} at byte {@code offset} (inside one line), making them dirty. */
    void put(int offset, int size, long bits) {
        clean = false;
        if ((offset & (size - 1)) == 0) {
            put(ints, offset, size, bits);
            return;
        }
        CacheLines.put(segment, offset, size, bits);
        CacheLines.put(segment, DIRTY_BYTES + offset, size, 0x0101_0101_0101_0101L);
    }

    /** As {@link #put} on a sector's {@code ints}: the data, then the dirty flags; plain stores for 4 and 8 bytes. */
    static void put(int[] ints, int offset, int size, long bits) {
        int j = DATA + (offset >>> 2);
        switch (size) {
            case 4 -> {
                ints[j] = (int) bits;
                ints[DIRTY + j] = FLAGGED;
            }
            case 8 -> {
                ints[j] = (int) (LITTLE_ENDIAN ? bits : bits >>> 32);
                ints[j + 1] = (int) (LITTLE_ENDIAN ? bits >>> 32 : bits);
                ints[DIRTY + j] = FLAGGED;
                ints[DIRTY + j + 1] = FLAGGED;
            }
            default -> {
                int sh = shift(offset & 3, size);
                int m = (size == 2 ? 0xFFFF : 0xFF) << sh;
                ints[j] = (ints[j] & ~m) | ((int) bits << sh & m);
                ints[DIRTY + j] |= FLAGGED & m;
            }
        }
    }
}
