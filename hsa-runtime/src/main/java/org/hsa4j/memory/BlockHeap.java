package org.hsa4j.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * The off-heap memory behind every pool: segregated free lists of power-of-two blocks (64 B to
 * 1 MiB) carved from 4 MiB chunks of one long-lived shared arena, and a dedicated shared arena for
 * each larger allocation.
 *
 * <p>One long-lived arena matters: closing a shared arena costs a handshake with every thread, so
 * small blocks are recycled through the free lists and never returned to the arena; only large
 * allocations pay an arena close, where it is cheap next to their size. Blocks are aligned to
 * their size up to 4 KiB (the bytes skipped to align a block, and the tail of a full chunk, go on
 * the free lists as smaller aligned blocks), which makes every small allocation's SVM address and
 * native address agree modulo its alignment, as atomics and aligned allocations need. Memory of a
 * recycled block is not cleared (as with malloc).
 */
final class BlockHeap {
    static final int MIN_SHIFT = 6;
    static final int MAX_SMALL_SHIFT = 20;
    static final long CHUNK_SIZE = 4L << 20;
    static final long CHUNK_ALIGNMENT = 4096;

    private final Arena arena = Arena.ofShared();
    @SuppressWarnings("unchecked")
    private final ArrayDeque<MemorySegment>[] freeLists = new ArrayDeque[MAX_SMALL_SHIFT - MIN_SHIFT + 1];
    private MemorySegment chunk;
    private long chunkUsed;
    private long reservedChunkBytes;
    private long dedicatedBytes;

    BlockHeap() {
        for (int i = 0; i < freeLists.length; i++) {
            freeLists[i] = new ArrayDeque<>();
        }
    }

    /** The size class that serves {@code size} bytes at {@code alignment}, or -1 for a dedicated arena. */
    static int sizeClass(long size, long alignment) {
        long need = Math.max(Math.max(size, alignment), 1L << MIN_SHIFT);
        if (need > (1L << MAX_SMALL_SHIFT) || alignment > CHUNK_ALIGNMENT) {
            return -1;
        }
        int shift = 64 - Long.numberOfLeadingZeros(need - 1);
        return shift - MIN_SHIFT;
    }

    /** Bytes a block of {@code sizeClass} occupies. */
    static long blockSize(int sizeClass) {
        return 1L << (sizeClass + MIN_SHIFT);
    }

    MemorySegment allocateBlock(int sizeClass) {
        ArrayDeque<MemorySegment> list = freeLists[sizeClass];
        synchronized (list) {
            MemorySegment block = list.pollLast();
            if (block != null) {
                return block;
            }
        }
        long blockSize = blockSize(sizeClass);
        synchronized (this) {
            long start = chunk == null ? CHUNK_SIZE : alignUp(chunkUsed, Math.min(blockSize, CHUNK_ALIGNMENT));
            if (start + blockSize > CHUNK_SIZE) {
                if (chunk != null) {
                    spill(chunkUsed, CHUNK_SIZE);
                }
                chunk = arena.allocate(CHUNK_SIZE, CHUNK_ALIGNMENT);
                chunkUsed = 0;
                start = 0;
                reservedChunkBytes += CHUNK_SIZE;
            }
            spill(chunkUsed, start);
            chunkUsed = start + blockSize;
            return chunk.asSlice(start, blockSize);
        }
    }

    private static long alignUp(long offset, long alignment) {
        return (offset + alignment - 1) & -alignment;
    }

    /**
     * Puts the unused chunk bytes {@code from .. to} on the free lists, as the largest blocks that
     * are aligned to their size: what aligning a block skips, or the tail of a full chunk, is not lost.
     */
    private void spill(long from, long to) {
        while (from < to) {
            long piece = Math.min(from == 0 ? CHUNK_SIZE : Long.lowestOneBit(from), Long.highestOneBit(to - from));
            piece = Math.min(piece, 1L << MAX_SMALL_SHIFT);
            int sizeClass = Long.numberOfTrailingZeros(piece) - MIN_SHIFT;
            releaseBlock(sizeClass, chunk.asSlice(from, piece));
            from += piece;
        }
    }

    void releaseBlock(int sizeClass, MemorySegment block) {
        ArrayDeque<MemorySegment> list = freeLists[sizeClass];
        synchronized (list) {
            list.addLast(block);
        }
    }

    synchronized void addDedicated(long bytes) {
        dedicatedBytes += bytes;
    }

    synchronized void removeDedicated(long bytes) {
        dedicatedBytes -= bytes;
    }

    /** Off-heap bytes held: chunks plus dedicated arenas. */
    synchronized long reservedBytes() {
        return reservedChunkBytes + dedicatedBytes;
    }

    void close() {
        arena.close();
    }
}
