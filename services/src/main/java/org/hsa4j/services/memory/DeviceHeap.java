package org.hsa4j.services.memory;

import java.lang.foreign.ValueLayout;

import org.hsa4j.kernel.ServiceCaller;
import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.MemoryFaultException;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.services.rpc.RpcClient;
import org.hsa4j.services.rpc.RpcStatus;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * A device-side allocator: work-items allocate and free small blocks with atomics on SVM, and go
 * to the host over RPC only to refill a size class with a new chunk (or for blocks larger than
 * the largest class, which the host's malloc serves). Made by
 * {@link HostMallocService#createHeap}; layout in {@link DeviceHeapLayout}.
 *
 * <h2>Allocating</h2>
 * A request is rounded up to its size class (powers of two from the smallest block). The class's
 * chunks form a list the host pushes to; a work-item tries the class's current chunk, then the
 * others. In a chunk it first reserves a block by decrementing the chunk's free count (undoing it
 * when the count was already 0), then looks for a clear bit from a word chosen by its id and sets
 * it with an atomic OR; having reserved, it is sure to find one. When every chunk is full it asks
 * the host for a refill, passing the list head it saw: if another work-item's refill already
 * pushed a chunk, the host just answers with the new head, so simultaneous refills cost one chunk.
 * Nobody waits for another work-item at any point. A work-item that loses {@value #MAX_REFILLS}
 * refilled chunks in a row to others takes its block from the host's malloc instead, so starvation
 * costs a host call, never a failed malloc (malloc_bench on 2 cores once lost 64 in a row).
 *
 * <h2>Freeing</h2>
 * The address is resolved to its SVM allocation; a chunk is recognised by its magic and its
 * owner (this heap). The block index must be exact ({@link HeapStatus#INTERIOR_POINTER} if not);
 * the bit is cleared with an atomic AND, and a bit that was already clear is a
 * {@link HeapStatus#DOUBLE_FREE} that changed nothing. Addresses outside this heap's chunks go to
 * the host's free, which knows its own blocks (also the ones it freed lately, so a second free of
 * a large block is a {@link HeapStatus#DOUBLE_FREE}) and refuses the rest
 * ({@link HeapStatus#FOREIGN_POINTER}). A block freed twice after being handed out again in
 * between cannot be told from a legitimate free (as with any allocator without per-block tags).
 */
public final class DeviceHeap {
    private static final int MAX_REFILLS = 64;

    private final RpcClient client;
    private final HostMemory host;
    private final long address;
    private final long chunkBytes;
    private final int classes;
    private final int minBlock;
    private final int minShift;
    /** Why the latest malloc that returned 0 gave up (null while none did): for hosts reporting a failed run. */
    private volatile String lastFailure;

    DeviceHeap(RpcClient client, long address, long chunkBytes, int classes, int minBlock) {
        this.client = client;
        this.host = new HostMemory(client);
        this.address = address;
        this.chunkBytes = chunkBytes;
        this.classes = classes;
        this.minBlock = minBlock;
        this.minShift = Integer.numberOfTrailingZeros(minBlock);
    }

    /** SVM address of the heap header. */
    public long address() {
        return address;
    }

    /** Bytes per chunk. */
    public long chunkBytes() {
        return chunkBytes;
    }

    /** Largest block served on the device; larger requests go to the host. */
    public long maxBlock() {
        return (long) minBlock << (classes - 1);
    }

    /** The size class of {@code bytes}, or -1 when it is larger than the largest class. */
    public int sizeClass(long bytes) {
        if (bytes <= minBlock) {
            return 0;
        }
        int c = 64 - Long.numberOfLeadingZeros(bytes - 1) - minShift;
        return c < classes ? c : -1;
    }

    // ---- malloc ---------------------------------------------------------------------------------

    /** malloc from a kernel: an SVM address valid everywhere, or 0 when out of memory or {@code bytes <= 0}. */
    public long malloc(ServiceCaller wi, long bytes) {
        if (bytes <= 0) {
            return 0;
        }
        int cls = sizeClass(bytes);
        if (cls < 0) {
            return host.malloc(wi, bytes);
        }
        Svm svm = wi.svm();
        long record = DeviceHeapLayout.classRecord(address, cls);
        long hint = wi.flatGlobalId();
        for (int attempt = 0; attempt < MAX_REFILLS; attempt++) {
            long current = svm.loadLongAcquire(record + DeviceHeapLayout.CLASS_CURRENT);
            if (current != 0) {
                long p = tryChunk(svm, current, hint);
                if (p != 0) {
                    return p;
                }
            }
            long head = svm.loadLongAcquire(record + DeviceHeapLayout.CLASS_HEAD);
            for (long chunk = head; chunk != 0; chunk = svm.getLong(chunk + DeviceHeapLayout.CHUNK_NEXT)) {
                if (chunk != current) {
                    long p = tryChunk(svm, chunk, hint);
                    if (p != 0) {
                        svm.storeLongRelease(record + DeviceHeapLayout.CLASS_CURRENT, chunk);
                        return p;
                    }
                }
            }
            if (refill(wi, cls, head) == 0) {
                return 0;
            }
        }
        // every refilled chunk was drained by other work-items before this one looked (its thread
        // waited for a core meanwhile, say): the host's malloc serves the block, as it serves large
        // ones, so a lost race never ends as out-of-memory; free sends such a block back there
        long p = host.malloc(wi, bytes);
        if (p == 0) {
            lastFailure = String.format("size class %d: other work-items took the blocks of %d refills in a row, and"
                    + " the host's malloc failed too", cls, MAX_REFILLS);
        }
        return p;
    }

    /**
     * Why the latest {@link #malloc} that returned 0 for a positive size gave up: the refill's RPC
     * and heap status, or the refills lost to other work-items; null while none did.
     */
    public String lastFailure() {
        return lastFailure;
    }

    /** Reserves and takes one block of {@code chunk}; 0 when the chunk is full. */
    private static long tryChunk(Svm svm, long chunk, long hint) {
        long free = chunk + DeviceHeapLayout.CHUNK_FREE;
        if (svm.loadIntRelaxed(free) <= 0) {
            return 0;
        }
        if (svm.atomicAddInt(free, -1, MemoryOrder.ACQ_REL, MemoryScope.SYSTEM) <= 0) {
            svm.atomicAddInt(free, 1, MemoryOrder.ACQ_REL, MemoryScope.SYSTEM);
            return 0;
        }
        int words = svm.getInt(chunk + DeviceHeapLayout.CHUNK_BITMAP_WORDS);
        long blockSize = svm.getInt(chunk + DeviceHeapLayout.CHUNK_BLOCK_SIZE);
        long data = chunk + svm.getLong(chunk + DeviceHeapLayout.CHUNK_DATA_OFFSET);
        long bitmap = chunk + DeviceHeapLayout.CHUNK_HEADER_BYTES;
        int w = (int) Long.remainderUnsigned(hint, words);
        while (true) {
            long word = bitmap + 8L * w;
            long bits = svm.loadLongRelaxed(word);
            while (bits != -1L) {
                long bit = Long.lowestOneBit(~bits);
                long before = svm.atomicOrLong(word, bit, MemoryOrder.ACQ_REL, MemoryScope.SYSTEM);
                if ((before & bit) == 0) {
                    return data + ((long) w * 64 + Long.numberOfTrailingZeros(bit)) * blockSize;
                }
                bits = before | bit;
            }
            w = w + 1 == words ? 0 : w + 1;
        }
    }

    private long refill(ServiceCaller wi, int cls, long seenHead) {
        long[] inOut = {address, cls, seenHead, 0, 0, 0, 0, 0};
        RpcStatus s = client.invoke(wi, MemoryOp.REFILL, inOut);
        if (s == RpcStatus.OK && inOut[1] == HeapStatus.OK && inOut[0] != 0) {
            return inOut[0];
        }
        lastFailure = String.format("size class %d: the refill ended with RPC status %s, heap status %s", cls, s,
                s == RpcStatus.OK ? HeapStatus.name((int) inOut[1]) : "(no reply)");
        return 0;
    }

    // ---- free -----------------------------------------------------------------------------------

    /**
     * free from a kernel: {@link HeapStatus#OK} (also for address 0), or an error that changed
     * nothing: {@link HeapStatus#DOUBLE_FREE}, {@link HeapStatus#INTERIOR_POINTER},
     * {@link HeapStatus#FOREIGN_POINTER}, {@link HeapStatus#UNAVAILABLE}.
     */
    public int free(ServiceCaller wi, long pointer) {
        if (pointer == 0) {
            return HeapStatus.OK;
        }
        Svm svm = wi.svm();
        Allocation a;
        try {
            a = svm.resolve(pointer, 1);
        } catch (MemoryFaultException e) {
            return host.free(wi, pointer);
        }
        long chunk = a.base();
        if (a.size() < DeviceHeapLayout.CHUNK_HEADER_BYTES
                || svm.getInt(chunk + DeviceHeapLayout.CHUNK_MAGIC) != DeviceHeapLayout.CHUNK_MAGIC_VALUE
                || svm.getLong(chunk + DeviceHeapLayout.CHUNK_SELF) != chunk) {
            return host.free(wi, pointer);
        }
        if (svm.getLong(chunk + DeviceHeapLayout.CHUNK_HEAP) != address) {
            return HeapStatus.FOREIGN_POINTER;
        }
        long blockSize = svm.getInt(chunk + DeviceHeapLayout.CHUNK_BLOCK_SIZE);
        long offset = pointer - chunk - svm.getLong(chunk + DeviceHeapLayout.CHUNK_DATA_OFFSET);
        if (offset < 0) {
            return HeapStatus.FOREIGN_POINTER;
        }
        if (offset % blockSize != 0) {
            return HeapStatus.INTERIOR_POINTER;
        }
        long index = offset / blockSize;
        if (index >= svm.getInt(chunk + DeviceHeapLayout.CHUNK_BLOCK_COUNT)) {
            return HeapStatus.FOREIGN_POINTER;
        }
        long word = chunk + DeviceHeapLayout.CHUNK_HEADER_BYTES + 8 * (index >>> 6);
        long bit = 1L << (index & 63);
        long before = svm.atomicAndLong(word, ~bit, MemoryOrder.ACQ_REL, MemoryScope.SYSTEM);
        if ((before & bit) == 0) {
            return HeapStatus.DOUBLE_FREE;
        }
        svm.atomicAddInt(chunk + DeviceHeapLayout.CHUNK_FREE, 1, MemoryOrder.ACQ_REL, MemoryScope.SYSTEM);
        return HeapStatus.OK;
    }

    // ---- new / delete ---------------------------------------------------------------------------

    /**
     * {@code new}: a zeroed block of {@code bytes}.
     *
     * @throws HsaException OUT_OF_RESOURCES when no memory is left (as {@code new} throws bad_alloc)
     */
    public long newZeroed(ServiceCaller wi, long bytes) {
        long p = malloc(wi, bytes);
        if (p == 0) {
            throw new HsaException(HsaStatus.OUT_OF_RESOURCES, "device heap: cannot allocate " + bytes + " bytes");
        }
        wi.svm().fill(p, bytes, (byte) 0);
        return p;
    }

    /** {@code new T[count]}: a zeroed array of {@code count} elements of {@code element}. */
    public long newArray(ServiceCaller wi, ValueLayout element, long count) {
        if (count < 0 || count > Long.MAX_VALUE / element.byteSize()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "array of " + count + " elements");
        }
        return newZeroed(wi, Math.max(1, count * element.byteSize()));
    }

    /**
     * {@code delete}: frees {@code pointer}.
     *
     * @throws HsaException INVALID_ALLOCATION on a double free, a foreign or an interior pointer (nothing is freed)
     */
    public void delete(ServiceCaller wi, long pointer) {
        int s = free(wi, pointer);
        if (s != HeapStatus.OK) {
            throw new HsaException(HsaStatus.INVALID_ALLOCATION, String.format("device heap: delete of 0x%016x: %s",
                    pointer, HeapStatus.name(s)));
        }
    }

    @Override
    public String toString() {
        return String.format("DeviceHeap[0x%016x, %d classes from %d bytes, chunks of %d bytes]", address, classes,
                minBlock, chunkBytes);
    }
}
