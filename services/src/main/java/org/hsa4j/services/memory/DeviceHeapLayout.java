package org.hsa4j.services.memory;

/**
 * The one layout of the device heap in SVM: a heap header with one record per size class, and
 * chunks (one SVM allocation each) that serve one size class through an allocation bitmap.
 *
 * <pre>
 * heap:  HEADER (64 bytes) | CLASS 0 (64 bytes) | CLASS 1 | ...          one cache line per class
 * chunk: CHUNK HEADER (64 bytes) | BITMAP (u64 words, padded to 64) | BLOCKS (block size each)
 * </pre>
 *
 * Work-items change only the bitmap words and the free counts (atomics); the host writes
 * everything else when it makes a chunk, before publishing it with a screlease store of the class
 * head, so a work-item that reads the head with scacquire sees a complete chunk.
 */
public final class DeviceHeapLayout {
    // ---- heap header ----------------------------------------------------------------------------

    /** u32 magic {@link #HEAP_MAGIC_VALUE}. */
    public static final long HEAP_MAGIC = 0;
    /** u32 number of size classes. */
    public static final long HEAP_CLASS_COUNT = 4;
    /** u64 bytes per chunk. */
    public static final long HEAP_CHUNK_BYTES = 8;
    /** u64 the heap's own address: chunks record it as their owner. */
    public static final long HEAP_SELF = 16;
    /** u64 smallest block size (class 0); class i serves blocks of {@code min << i}. */
    public static final long HEAP_MIN_BLOCK = 24;
    /** Bytes 32..63 reserved. */
    public static final long HEAP_RESERVED = 32;
    /** Size of the heap header; class records follow. */
    public static final long HEAP_HEADER_BYTES = 64;

    /** Magic of a heap ("DHEP"). */
    public static final int HEAP_MAGIC_VALUE = 0x44484550;

    // ---- class record ---------------------------------------------------------------------------

    /** u64 address of the newest chunk of the class (the list head), 0 when none; written by the host. */
    public static final long CLASS_HEAD = 0;
    /** u64 address of the chunk allocations try first (a hint, any work-item may move it). */
    public static final long CLASS_CURRENT = 8;
    /** u32 number of chunks in the class's list. */
    public static final long CLASS_CHUNKS = 16;
    /** u32 block size of the class. */
    public static final long CLASS_BLOCK_SIZE = 20;
    /** Size of a class record: a cache line, so classes do not share lines. */
    public static final long CLASS_BYTES = 64;

    // ---- chunk header ---------------------------------------------------------------------------

    /** u32 magic {@link #CHUNK_MAGIC_VALUE}. */
    public static final long CHUNK_MAGIC = 0;
    /** u32 size class index. */
    public static final long CHUNK_CLASS = 4;
    /** u64 address of the owning heap (its {@link #HEAP_SELF}). */
    public static final long CHUNK_HEAP = 8;
    /** u64 address of the next (older) chunk of the class, 0 at the end. */
    public static final long CHUNK_NEXT = 16;
    /** u32 block size. */
    public static final long CHUNK_BLOCK_SIZE = 24;
    /** u32 number of blocks. */
    public static final long CHUNK_BLOCK_COUNT = 28;
    /** i32 free blocks not yet reserved: an allocation decrements it before it looks for a bit. */
    public static final long CHUNK_FREE = 32;
    /** u32 number of bitmap words. */
    public static final long CHUNK_BITMAP_WORDS = 36;
    /** u64 offset of block 0 from the chunk's address. */
    public static final long CHUNK_DATA_OFFSET = 40;
    /** u64 the chunk's own address. */
    public static final long CHUNK_SELF = 48;
    /** u64 reserved. */
    public static final long CHUNK_RESERVED = 56;
    /** Size of the chunk header; the bitmap follows (bit set = block taken). */
    public static final long CHUNK_HEADER_BYTES = 64;

    /** Magic of a chunk ("DCHK"). */
    public static final int CHUNK_MAGIC_VALUE = 0x4443484B;

    private DeviceHeapLayout() {
    }

    /** Address of class {@code c}'s record in the heap at {@code heap}. */
    public static long classRecord(long heap, int c) {
        return heap + HEAP_HEADER_BYTES + c * CLASS_BYTES;
    }

    /** Bytes of a heap header with {@code classes} class records. */
    public static long heapBytes(int classes) {
        return HEAP_HEADER_BYTES + classes * CLASS_BYTES;
    }

    /** Bitmap words a chunk of {@code chunkBytes} with blocks of {@code blockSize} needs. */
    public static int bitmapWords(long chunkBytes, long blockSize) {
        return (int) ((chunkBytes / blockSize + 63) / 64);
    }

    /** Offset of block 0 in such a chunk (after header and bitmap, on a 64-byte boundary). */
    public static long dataOffset(long chunkBytes, long blockSize) {
        return (CHUNK_HEADER_BYTES + bitmapWords(chunkBytes, blockSize) * 8L + 63) & ~63L;
    }

    /** Number of blocks in such a chunk. */
    public static int blockCount(long chunkBytes, long blockSize) {
        return (int) ((chunkBytes - dataOffset(chunkBytes, blockSize)) / blockSize);
    }
}
