package org.hsa4j.memory;

/**
 * Layout of a 64-bit SVM address: the descriptor of the flat address space.
 *
 * <pre>
 *  small allocation (a BlockHeap block, at most 1 MiB):
 *   63  62  61    60..45            44..21                20..0
 *  [ 0 | 1 | 0 | generation (16) | allocation slot (24) | byte offset (21) ]
 *
 *  large allocation (a dedicated arena, at most 8 GiB):
 *   63  62  61    60..47            46..34                33..0
 *  [ 0 | 1 | 1 | generation (14) | allocation slot (13) | byte offset (34) ]
 * </pre>
 *
 * Bit 63 is 0 and bit 62 is 1 in every address the table hands out: real native addresses (below
 * 2^57 on every current CPU) never have bit 62 set, so real pointers (the {@link RealArena} kind,
 * which a GPU can follow) live beside tagged ones and one test tells them apart. Bit 61 is the size class: small
 * allocations, by far the most numerous and the most often recycled, get a narrow offset and so a
 * wide generation; large ones get the offset their size needs. Each offset field is at least twice
 * the largest allocation of its class, so an address one past the end (or anything up to the
 * allocation's size past it) stays inside its own slot and faults instead of reaching the next one.
 *
 * <p>The slot names a live allocation in the {@link AddressSpace} table, so translating an address
 * is two array loads and a compare; the generation makes a stale pointer into a freed and reused
 * slot fault instead of aliasing the new allocation. A slot whose generation would wrap is retired,
 * never reused, so no stale address can ever match a later allocation: exhaustion after 2^40 small
 * (or 2^27 large) allocations is OUT_OF_RESOURCES, never an alias. Address 0 is the null pointer.
 * Pointer arithmetic inside one allocation is ordinary long arithmetic, and an address keeps the
 * alignment of its offset, because every allocation starts at offset 0 of its slot.
 *
 * <p>The unqualified constants ({@link #OFFSET_BITS}, {@link #SLOT_MASK}, ...) and
 * {@link #encode} describe the small class; the LARGE_ ones the large class.
 */
public final class SvmAddress {
    /** Bit 62: set in every tagged SVM address (bit 63 is always clear). */
    public static final long TAG_BIT = 1L << 62;
    /** Bit 61: set in the addresses of large allocations. */
    public static final long LARGE_BIT = 1L << 61;

    /** Bits of the byte offset inside a small allocation. */
    public static final int OFFSET_BITS = 21;
    /** Bits of a small allocation's slot. */
    public static final int SLOT_BITS = 24;
    /** Bits of a small slot's generation. */
    public static final int GENERATION_BITS = 16;
    /** Mask of the small offset field. */
    public static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;
    /** Position of the small slot field. */
    public static final int SLOT_SHIFT = OFFSET_BITS;
    /** Mask of the small slot field, after shifting. */
    public static final int SLOT_MASK = (1 << SLOT_BITS) - 1;
    /** Position of the small generation field. */
    public static final int GENERATION_SHIFT = OFFSET_BITS + SLOT_BITS;
    /** Mask of the small generation field, after shifting: also the last generation before a slot retires. */
    public static final int GENERATION_MASK = (1 << GENERATION_BITS) - 1;
    /** How many small allocations can be live at once (slot 0 is reserved). */
    public static final int MAX_ALLOCATIONS = SLOT_MASK;

    /** Bits of the byte offset inside a large allocation. */
    public static final int LARGE_OFFSET_BITS = 34;
    /** Bits of a large allocation's slot. */
    public static final int LARGE_SLOT_BITS = 13;
    /** Bits of a large slot's generation. */
    public static final int LARGE_GENERATION_BITS = 14;
    /** Mask of the large offset field. */
    public static final long LARGE_OFFSET_MASK = (1L << LARGE_OFFSET_BITS) - 1;
    /** Position of the large slot field. */
    public static final int LARGE_SLOT_SHIFT = LARGE_OFFSET_BITS;
    /** Mask of the large slot field, after shifting. */
    public static final int LARGE_SLOT_MASK = (1 << LARGE_SLOT_BITS) - 1;
    /** Position of the large generation field. */
    public static final int LARGE_GENERATION_SHIFT = LARGE_OFFSET_BITS + LARGE_SLOT_BITS;
    /** Mask of the large generation field, after shifting: also the last generation before a slot retires. */
    public static final int LARGE_GENERATION_MASK = (1 << LARGE_GENERATION_BITS) - 1;
    /** How many large allocations can be live at once (slot 0 is reserved). */
    public static final int MAX_LARGE_ALLOCATIONS = LARGE_SLOT_MASK;

    /** The largest small allocation (a BlockHeap block): half the small offset field. */
    public static final long MAX_SMALL_SIZE = 1L << (OFFSET_BITS - 1);
    /** The largest single allocation: half the large offset field. */
    public static final long MAX_ALLOCATION_SIZE = 1L << (LARGE_OFFSET_BITS - 1);
    /** Entries of the allocation table: the small slots, then the large ones. */
    static final int TABLE_SIZE = (1 << SLOT_BITS) + (1 << LARGE_SLOT_BITS);

    private SvmAddress() {
    }

    /** The address of byte {@code offset} of the small allocation in {@code slot} at {@code generation}. */
    public static long encode(int slot, int generation, long offset) {
        return TAG_BIT | ((long) generation << GENERATION_SHIFT) | ((long) slot << SLOT_SHIFT) | offset;
    }

    /** The address of byte {@code offset} of the large allocation in {@code slot} at {@code generation}. */
    public static long encodeLarge(int slot, int generation, long offset) {
        return TAG_BIT | LARGE_BIT | ((long) generation << LARGE_GENERATION_SHIFT) | ((long) slot << LARGE_SLOT_SHIFT)
                | offset;
    }

    /** True when {@code address} has the tag of an SVM address (bit 63 clear, bit 62 set). */
    public static boolean tagged(long address) {
        return address >>> 62 == 1;
    }

    /** True when {@code address} points into a large allocation's slot. */
    public static boolean large(long address) {
        return (address & LARGE_BIT) != 0;
    }

    /** The allocation slot an address points into (within its size class). */
    public static int slot(long address) {
        return large(address) ? (int) (address >>> LARGE_SLOT_SHIFT) & LARGE_SLOT_MASK
                : (int) (address >>> SLOT_SHIFT) & SLOT_MASK;
    }

    /** The slot generation an address was handed out with. */
    public static int generation(long address) {
        return large(address) ? (int) (address >>> LARGE_GENERATION_SHIFT) & LARGE_GENERATION_MASK
                : (int) (address >>> GENERATION_SHIFT) & GENERATION_MASK;
    }

    /** The byte offset inside the allocation. */
    public static long offset(long address) {
        return address & offsetMask(address);
    }

    /** The offset field's mask in the size class of {@code address}. */
    static long offsetMask(long address) {
        return large(address) ? LARGE_OFFSET_MASK : OFFSET_MASK;
    }

    /** The allocation table entry of the slot {@code address} names: small slots first, then large ones. */
    static int tableIndex(long address) {
        return large(address) ? (1 << SLOT_BITS) + ((int) (address >>> LARGE_SLOT_SHIFT) & LARGE_SLOT_MASK)
                : (int) (address >>> SLOT_SHIFT) & SLOT_MASK;
    }

    /** True when {@code address} lies in the slot and generation of the allocation based at {@code base}. */
    static boolean sameAllocation(long base, long address) {
        return ((base ^ address) & ~offsetMask(base)) == 0;
    }
}
