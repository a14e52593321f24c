package org.hsa4j.services.memory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.rpc.OpcodeRegistry;
import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.RpcClient;
import org.hsa4j.services.rpc.ServerCall;
import org.hsa4j.services.rpc.ServiceMode;
import org.hsa4j.status.HsaException;

/**
 * The host side of the memory service: malloc, calloc and free for kernels, served from the
 * runtime's fine-grained system pool ({@code hostMalloc}), so every address is valid on the host
 * and in every kernel; and the chunk refills of {@link DeviceHeap}s.
 *
 * <p>The service keeps the set of blocks it handed out, so a free is checked before it runs: an
 * address it did not hand out is {@link HeapStatus#FOREIGN_POINTER} (or
 * {@link HeapStatus#INTERIOR_POINTER} inside one of its blocks), an address freed already is
 * {@link HeapStatus#DOUBLE_FREE}, and neither changes anything. Frees of one address race safely:
 * removal from the set is atomic, so exactly one of them frees the block.
 */
public final class HostMallocService implements AutoCloseable {
    /** Owner name of the memory namespace. */
    public static final String OWNER = "hsa4j-memory";
    /** Largest block malloc hands out. */
    public static final long MAX_BYTES = 1L << 32;
    private static final int FREED_REMEMBERED = 1 << 16;

    private final HsaRuntime runtime;
    private final Svm svm;
    /** With real addresses: the slabs malloc and calloc carve (mapped ahead of kernels' calls), else null. */
    private final MappedSlabs slabs;
    private final Map<Long, Long> live = new ConcurrentHashMap<>();
    private final Map<Long, Boolean> freed = new LinkedHashMap<>(1024, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
            return size() > FREED_REMEMBERED;
        }
    };
    private final Map<Long, HeapState> heaps = new ConcurrentHashMap<>();

    /** The host bookkeeping of one device heap. */
    private static final class HeapState {
        final long address;
        final long chunkBytes;
        final int classes;
        final long minBlock;
        final List<Long> chunks = new ArrayList<>();

        HeapState(long address, long chunkBytes, int classes, long minBlock) {
            this.address = address;
            this.chunkBytes = chunkBytes;
            this.classes = classes;
            this.minBlock = minBlock;
        }
    }

    /** A memory service allocating from {@code runtime}'s fine-grained system pool. */
    public HostMallocService(HsaRuntime runtime) {
        this(runtime, false);
    }

    /**
     * A memory service allocating from {@code runtime}'s fine-grained system pool, or with
     * {@code realAddresses} from slabs of its real-address pool ({@link HsaRuntime#realSystemPool()}):
     * an address a CUDA kernel can dereference (a CUDA agent registers that pool), valid on the host
     * too, in memory mapped before the kernel asks ({@link MappedSlabs}).
     */
    public HostMallocService(HsaRuntime runtime, boolean realAddresses) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.svm = runtime.svm();
        this.slabs = realAddresses ? new MappedSlabs(runtime) : null;
    }

    /** Claims the memory namespace and registers malloc, calloc, free and refill. */
    public void register(OpcodeRegistry registry) {
        registry.claimNamespace(Opcodes.MEMORY_NAMESPACE, OWNER);
        registry.register(OWNER, MemoryOp.MALLOC, ServiceMode.INLINE, call -> perLane(call, false));
        registry.register(OWNER, MemoryOp.CALLOC, ServiceMode.INLINE, call -> perLane(call, true));
        registry.register(OWNER, MemoryOp.FREE, ServiceMode.INLINE, this::free);
        registry.register(OWNER, MemoryOp.REFILL, ServiceMode.INLINE, this::refill);
    }

    /** Blocks handed out by malloc/calloc and not freed yet. */
    public int liveBlocks() {
        return live.size();
    }

    /** Frees every block malloc/calloc handed out (a reset between kernels); returns how many. */
    public int freeAll() {
        int n = 0;
        for (Long address : live.keySet()) {
            if (release(address) == HeapStatus.OK) {
                n++;
            }
        }
        return n;
    }

    // ---- malloc and free ------------------------------------------------------------------------

    private void perLane(ServerCall call, boolean zero) {
        for (long m = call.laneMask(); m != 0; m &= m - 1) {
            int lane = Long.numberOfTrailingZeros(m);
            long bytes = call.arg(lane, 0);
            long[] out = allocate(bytes, zero);
            call.result(lane, 0, out[0]);
            call.result(lane, 1, out[1]);
        }
    }

    /** Allocates for a kernel: {address, status}. */
    long[] allocate(long bytes, boolean zero) {
        if (bytes <= 0 || bytes > MAX_BYTES) {
            return new long[] {0, HeapStatus.BAD_SIZE};
        }
        long address;
        try {
            address = slabs != null ? slabs.allocate(bytes) : runtime.hostMalloc(bytes);
        } catch (HsaException e) {
            return new long[] {0, HeapStatus.OUT_OF_MEMORY};
        }
        if (zero) {
            svm.fill(address, bytes, (byte) 0);
        }
        synchronized (freed) {
            freed.remove(address);
        }
        live.put(address, bytes);
        return new long[] {address, HeapStatus.OK};
    }

    private void free(ServerCall call) {
        for (long m = call.laneMask(); m != 0; m &= m - 1) {
            int lane = Long.numberOfTrailingZeros(m);
            call.result(lane, 0, release(call.arg(lane, 0)));
        }
    }

    /** Frees a block for a kernel; returns a {@link HeapStatus}. */
    int release(long address) {
        if (address == 0) {
            return HeapStatus.OK;
        }
        if (live.remove(address) == null) {
            synchronized (freed) {
                if (freed.containsKey(address)) {
                    return HeapStatus.DOUBLE_FREE;
                }
            }
            if (slabs != null) {
                return slabs.isInterior(address) ? HeapStatus.INTERIOR_POINTER : HeapStatus.FOREIGN_POINTER;
            }
            Allocation a = runtime.pointerInfo(address);
            return a != null && live.containsKey(a.base()) ? HeapStatus.INTERIOR_POINTER : HeapStatus.FOREIGN_POINTER;
        }
        synchronized (freed) {
            freed.put(address, Boolean.TRUE);
        }
        if (slabs != null) {
            slabs.release(address);
        } else {
            runtime.free(address);
        }
        return HeapStatus.OK;
    }

    // ---- device heaps ---------------------------------------------------------------------------

    /**
     * Creates a device heap whose chunks of {@code chunkBytes} serve {@code classes} size classes
     * from {@code minBlock} bytes up (doubling); kernels use it through the returned object.
     */
    public DeviceHeap createHeap(RpcClient client, long chunkBytes, int classes, int minBlock) {
        if (classes < 1 || classes > 16 || minBlock < 8 || Integer.bitCount(minBlock) != 1) {
            throw new IllegalArgumentException("1..16 classes from a power-of-two block of at least 8 bytes");
        }
        long largest = (long) minBlock << (classes - 1);
        if (chunkBytes < 4 * largest + DeviceHeapLayout.CHUNK_HEADER_BYTES + 64 || chunkBytes > (1L << 30)) {
            throw new IllegalArgumentException("a chunk of " + chunkBytes + " bytes cannot hold four blocks of "
                    + largest + " bytes");
        }
        long heap = runtime.hostMalloc(DeviceHeapLayout.heapBytes(classes));
        svm.fill(heap, DeviceHeapLayout.heapBytes(classes), (byte) 0);
        svm.setInt(heap + DeviceHeapLayout.HEAP_MAGIC, DeviceHeapLayout.HEAP_MAGIC_VALUE);
        svm.setInt(heap + DeviceHeapLayout.HEAP_CLASS_COUNT, classes);
        svm.setLong(heap + DeviceHeapLayout.HEAP_CHUNK_BYTES, chunkBytes);
        svm.setLong(heap + DeviceHeapLayout.HEAP_SELF, heap);
        svm.setLong(heap + DeviceHeapLayout.HEAP_MIN_BLOCK, minBlock);
        for (int c = 0; c < classes; c++) {
            svm.setInt(DeviceHeapLayout.classRecord(heap, c) + DeviceHeapLayout.CLASS_BLOCK_SIZE, minBlock << c);
        }
        heaps.put(heap, new HeapState(heap, chunkBytes, classes, minBlock));
        return new DeviceHeap(client, heap, chunkBytes, classes, minBlock);
    }

    /** Frees a heap and all its chunks; kernels must not use it any more. */
    public void destroyHeap(DeviceHeap heap) {
        HeapState st = heaps.remove(heap.address());
        if (st == null) {
            throw new IllegalArgumentException("not a live heap of this service: " + heap);
        }
        synchronized (st) {
            for (long chunk : st.chunks) {
                runtime.free(chunk);
            }
            st.chunks.clear();
        }
        runtime.free(st.address);
    }

    /** Chunks a heap holds, for tests and diagnostics. */
    public int chunkCount(DeviceHeap heap) {
        HeapState st = heaps.get(heap.address());
        if (st == null) {
            return 0;
        }
        synchronized (st) {
            return st.chunks.size();
        }
    }

    private void refill(ServerCall call) {
        int lane = call.firstLane();
        HeapState st = heaps.get(call.arg(lane, 0));
        long cls = call.arg(lane, 1);
        long seen = call.arg(lane, 2);
        if (st == null || cls < 0 || cls >= st.classes) {
            call.result(lane, 0, 0);
            call.result(lane, 1, HeapStatus.FOREIGN_POINTER);
            return;
        }
        long record = DeviceHeapLayout.classRecord(st.address, (int) cls);
        synchronized (st) {
            long head = svm.loadLongAcquire(record + DeviceHeapLayout.CLASS_HEAD);
            if (head != seen) {
                call.result(lane, 0, head);
                call.result(lane, 1, HeapStatus.OK);
                return;
            }
            long blockSize = st.minBlock << cls;
            long chunk;
            try {
                chunk = runtime.hostMalloc(st.chunkBytes);
            } catch (HsaException e) {
                call.result(lane, 0, 0);
                call.result(lane, 1, HeapStatus.OUT_OF_MEMORY);
                return;
            }
            int words = DeviceHeapLayout.bitmapWords(st.chunkBytes, blockSize);
            long dataOffset = DeviceHeapLayout.dataOffset(st.chunkBytes, blockSize);
            int count = DeviceHeapLayout.blockCount(st.chunkBytes, blockSize);
            svm.fill(chunk, dataOffset, (byte) 0);
            svm.setInt(chunk + DeviceHeapLayout.CHUNK_MAGIC, DeviceHeapLayout.CHUNK_MAGIC_VALUE);
            svm.setInt(chunk + DeviceHeapLayout.CHUNK_CLASS, (int) cls);
            svm.setLong(chunk + DeviceHeapLayout.CHUNK_HEAP, st.address);
            svm.setLong(chunk + DeviceHeapLayout.CHUNK_NEXT, head);
            svm.setInt(chunk + DeviceHeapLayout.CHUNK_BLOCK_SIZE, (int) blockSize);
            svm.setInt(chunk + DeviceHeapLayout.CHUNK_BLOCK_COUNT, count);
            svm.setInt(chunk + DeviceHeapLayout.CHUNK_FREE, count);
            svm.setInt(chunk + DeviceHeapLayout.CHUNK_BITMAP_WORDS, words);
            svm.setLong(chunk + DeviceHeapLayout.CHUNK_DATA_OFFSET, dataOffset);
            svm.setLong(chunk + DeviceHeapLayout.CHUNK_SELF, chunk);
            for (int b = count; b < words * 64; b++) {
                long word = chunk + DeviceHeapLayout.CHUNK_HEADER_BYTES + 8L * (b >>> 6);
                svm.setLong(word, svm.getLong(word) | 1L << (b & 63));
            }
            st.chunks.add(chunk);
            svm.setInt(record + DeviceHeapLayout.CLASS_CHUNKS, st.chunks.size());
            svm.storeLongRelease(record + DeviceHeapLayout.CLASS_CURRENT, chunk);
            svm.storeLongRelease(record + DeviceHeapLayout.CLASS_HEAD, chunk);
            call.result(lane, 0, chunk);
            call.result(lane, 1, HeapStatus.OK);
        }
    }

    /** Frees every block and heap still live. */
    @Override
    public void close() {
        if (slabs != null) {
            slabs.close();
        }
        if (runtime.isClosed()) {
            return;
        }
        for (Long address : live.keySet()) {
            if (live.remove(address) != null && slabs == null) {
                runtime.free(address);
            }
        }
        for (HeapState st : heaps.values()) {
            heaps.remove(st.address);
            synchronized (st) {
                for (long chunk : st.chunks) {
                    runtime.free(chunk);
                }
                st.chunks.clear();
            }
            runtime.free(st.address);
        }
    }
}
