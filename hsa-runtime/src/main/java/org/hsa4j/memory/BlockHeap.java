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
 * their size up to 4 KiB, which makes every small allocation's SVM address and native address
 * agree modulo 64, as atomics need. Memory of a recycled block is not cleared (as with malloc).
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
            if (chunk == null || chunkUsed + blockSize > CHUNK_SIZE) {
                chunk = arena.allocate(CHUNK_SIZE, CHUNK_ALIGNMENT);
                chunkUsed = 0;
                reservedChunkBytes += CHUNK_SIZE;
            }
            MemorySegment block = chunk.asSlice(chunkUsed, blockSize);
            chunkUsed += blockSize;
            return block;
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

    /** Off-heap bytes held: chunks plus dedicated arenas. */
    synchronized long reservedBytes() {
        return reservedChunkBytes + dedicatedBytes;
    }

    void close() {
        arena.close();
    }
}
