package org.hsa4j.memory;

/**
 * Layout of a 64-bit SVM address: the descriptor of the flat address space.
 *
 * <pre>
 *  63   62..57       56..33             32..0
 * [ 0 | generation | allocation slot | byte offset ]
 * </pre>
 *
 * The slot names a live allocation in the {@link AddressSpace} table, so translating an address
 * is two array loads and a bounds check; the generation makes a stale pointer into a freed and
 * reused slot fault instead of aliasing the new allocation. Address 0 is the null pointer (slot 0
 * is never handed out). Pointer arithmetic inside one allocation is ordinary long arithmetic, and
 * an address keeps the alignment of its offset, because every allocation starts 64-byte aligned.
 */
public final class SvmAddress {
    /** Bits of the byte offset inside an allocation. */
    public static final int OFFSET_BITS = 33;
    /** Bits of the allocation slot. */
    public static final int SLOT_BITS = 24;
    /** Bits of the slot generation. */
    public static final int GENERATION_BITS = 6;

    /** Mask of the offset field. */
    public static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;
    /** Position of the slot field. */
    public static final int SLOT_SHIFT = OFFSET_BITS;
    /** Mask of the slot field, after shifting. */
    public static final int SLOT_MASK = (1 << SLOT_BITS) - 1;
    /** Position of the generation field. */
    public static final int GENERATION_SHIFT = OFFSET_BITS + SLOT_BITS;
    /** Mask of the generation field, after shifting. */
    public static final int GENERATION_MASK = (1 << GENERATION_BITS) - 1;
    /** The largest single allocation: the offset field's range. */
    public static final long MAX_ALLOCATION_SIZE = 1L << OFFSET_BITS;
    /** How many allocations can be live at once (slot 0 is reserved). */
    public static final int MAX_ALLOCATIONS = SLOT_MASK;

    private SvmAddress() {
    }

    /** The address of byte {@code offset} of the allocation in {@code slot} at {@code generation}. */
    public static long encode(int slot, int generation, long offset) {
        return ((long) generation << GENERATION_SHIFT) | ((long) slot << SLOT_SHIFT) | offset;
    }

    /** The allocation slot an address points into. */
    public static int slot(long address) {
        return (int) (address >>> SLOT_SHIFT) & SLOT_MASK;
    }

    /** The slot generation an address was handed out with. */
    public static int generation(long address) {
        return (int) (address >>> GENERATION_SHIFT) & GENERATION_MASK;
    }

    /** The byte offset inside the allocation. */
    public static long offset(long address) {
        return address & OFFSET_MASK;
    }
}
