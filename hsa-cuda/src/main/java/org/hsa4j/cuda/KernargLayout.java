package org.hsa4j.cuda;

import java.util.List;

/**
 * The kernarg segment of one kernel: each parameter's offset and size, laid out as C lays out a
 * struct (each at a multiple of its alignment), which is both the HSA kernarg layout and what
 * {@code cuLaunchKernel} expects behind CU_LAUNCH_PARAM_BUFFER_POINTER.
 *
 * @param offsets byte offset of each parameter
 * @param sizes   byte size of each parameter
 * @param bytes   segment size: the end of the last parameter
 */
public record KernargLayout(long[] offsets, long[] sizes, long bytes) {
    /** The empty layout (no parameters). */
    public static final KernargLayout EMPTY = new KernargLayout(new long[0], new long[0], 0);

    public KernargLayout {
        offsets = offsets.clone();
        sizes = sizes.clone();
    }

    /** Lays out parameters of the given sizes and alignments in order. */
    public static KernargLayout of(long[] sizes, long[] alignments) {
        long[] offsets = new long[sizes.length];
        long at = 0;
        for (int i = 0; i < sizes.length; i++) {
            long a = Math.max(1, alignments[i]);
            at = (at + a - 1) / a * a;
            offsets[i] = at;
            at += sizes[i];
        }
        return new KernargLayout(offsets, sizes, at);
    }

    /** A layout from the driver's (offset, size) pairs. */
    public static KernargLayout fromDriver(List<long[]> offsetAndSize) {
        long end = 0;
        long[] offsets = new long[offsetAndSize.size()];
        long[] sizes = new long[offsetAndSize.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = offsetAndSize.get(i)[0];
            sizes[i] = offsetAndSize.get(i)[1];
            end = Math.max(end, offsets[i] + sizes[i]);
        }
        return new KernargLayout(offsets, sizes, end);
    }

    /**
     * The kernarg buffer's alignment as {@code HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT}
     * gives it: the larger of 16 and the parameters' alignments. Each parameter's alignment is taken
     * as the largest power of two dividing both its offset and its size, a bound never below the
     * real one, so the buffer is never under-aligned (at worst over-aligned, which is harmless).
     */
    public int segmentAlignment() {
        long align = 16;
        for (int i = 0; i < offsets.length; i++) {
            long a = sizes[i] == 0 ? 1 : Long.lowestOneBit(sizes[i]);
            if (offsets[i] != 0) {
                a = Math.min(a, Long.lowestOneBit(offsets[i]));
            }
            align = Math.max(align, a);
        }
        return (int) Math.min(align, 1 << 12);
    }

    /** Number of parameters. */
    public int count() {
        return offsets.length;
    }

    @Override
    public long[] offsets() {
        return offsets.clone();
    }

    @Override
    public long[] sizes() {
        return sizes.clone();
    }
}
