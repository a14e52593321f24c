// hsa4j_gheap.cuh: a device heap for CUDA kernels whose every read-modify-written word is the GPU's
// alone, refilled over RPC (issue 19 part 2, "the device heap's refill").
//
// WHY NOT THE SERVICES' DeviceHeap: its chunk list, free counts and bitmaps are in SVM and are
// read-modify-written by work-items AND by the host's refill service. On a GPU without host-native
// atomics (H100 over PCIe) a GPU atomic and a host atomic on one word are not atomic with each other,
// so that layout cannot be shared with a CUDA kernel safely.
//
// THE DESIGN: split what is read-modify-written from what the host writes.
//   - Metadata (class list heads, chunk descriptors: base, class, free count, bitmap) lives in DEVICE
//     memory (CudaRpc.createHeap allocates it zeroed; the host never touches it again). Every RMW on
//     it is a gpu-scope atomic in L2 (~0.3 us), never a PCIe atomic.
//   - Blocks live in chunks the HOST hands out: a work-item that finds its class full elects itself
//     the class's refiller (atomicCAS on the class's refill word, device memory) and asks the host's
//     malloc for a chunk over RPC (hsa4j_malloc: one warp-batched call). The host writes only the RPC
//     reply (a lane buffer word the GPU only reads); the refiller writes the chunk's descriptor and
//     publishes it with a release exchange of the class head. Blocks are real-address host memory,
//     valid in every kernel and on the host.
//   So the host never writes a word the GPU RMWs, and the GPU never RMWs a word the host writes.
//
// ALLOCATING: round up to a class (16 B .. 2 KiB, powers of two); walk the class's chunks newest
// first; in a chunk reserve a block by decrementing its free count (undone when it was already 0),
// then set a clear bit with atomicOr starting at a word chosen by the thread: having reserved, it
// finds one. Larger requests go to the host's malloc. FREEING: find the chunk by address (a scan of
// the descriptors: bounded by the chunk count), check the block boundary (INTERIOR_POINTER), clear the
// bit with atomicAnd (a clear bit is DOUBLE_FREE, nothing changes) and give the count back; an
// address in no chunk goes to the host's free. Codes are the services' HeapStatus values. Every wait
// is bounded (ctx->spin_limit polls), nobody waits while holding anything but a class's refill word,
// and the refiller's RPC call is itself bounded.
//
// Chunks stay with the heap (reused by later kernels); they go back when the services close (the
// host's malloc frees its slabs), so a heap lives as long as its services.

#ifndef HSA4J_GHEAP_CUH
#define HSA4J_GHEAP_CUH

#include "hsa4j_rpc.cuh"

// ---- the heap's layout in device memory (CudaRpc.GHEAP_*; CudaRpcHeaderTest checks) ----
#define HSA4J_GHEAP_CLASSES 8
#define HSA4J_GHEAP_MIN_SHIFT 4
#define HSA4J_GHEAP_CHUNK_BYTES 65536
#define HSA4J_GHEAP_MAX_CHUNKS 1024
#define HSA4J_GHEAP_COUNT 0
#define HSA4J_GHEAP_HEADS 64
#define HSA4J_GHEAP_REFILL 128
#define HSA4J_GHEAP_DESCRIPTORS 192
#define HSA4J_GHEAP_DESC_BASE 0
#define HSA4J_GHEAP_DESC_NEXT 8
#define HSA4J_GHEAP_DESC_CLASS 12
#define HSA4J_GHEAP_DESC_FREE 16
#define HSA4J_GHEAP_DESC_BITMAP 64
#define HSA4J_GHEAP_DESC_BYTES 576
#define HSA4J_GHEAP_BYTES (HSA4J_GHEAP_DESCRIPTORS + HSA4J_GHEAP_MAX_CHUNKS * HSA4J_GHEAP_DESC_BYTES)

// HeapStatus codes
#define HSA4J_HEAP_OK 0
#define HSA4J_HEAP_DOUBLE_FREE (-1)
#define HSA4J_HEAP_FOREIGN_POINTER (-2)
#define HSA4J_HEAP_INTERIOR_POINTER (-3)

namespace hsa4j_gheap_detail {

typedef unsigned long long u64;
typedef unsigned int u32;

static __device__ __forceinline__ u32 ld_acquire_gpu_u32(u64 a) {
    u32 v;
    asm volatile("ld.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
    return v;
}

static __device__ __forceinline__ void st_release_gpu_u32(u64 a, u32 v) {
    asm volatile("st.release.gpu.b32 [%0], %1;" :: "l"(a), "r"(v) : "memory");
}

static __device__ __forceinline__ u32 exch_release_gpu_u32(u64 a, u32 v) {
    u32 old;
    asm volatile("atom.release.gpu.exch.b32 %0, [%1], %2;" : "=r"(old) : "l"(a), "r"(v) : "memory");
    return old;
}

static __device__ __forceinline__ u64 desc(u64 heap, u32 index) {
    return heap + HSA4J_GHEAP_DESCRIPTORS + (u64) index * HSA4J_GHEAP_DESC_BYTES;
}

/** Blocks of a chunk of class `cls`. */
static __device__ __forceinline__ u32 blocks_of(u32 cls) {
    return HSA4J_GHEAP_CHUNK_BYTES >> (HSA4J_GHEAP_MIN_SHIFT + cls);
}

/** A block from chunk descriptor `d` of class `cls`, or null when it is full. */
static __device__ void* take_block(u64 d, u32 cls, u32 seed) {
    int* free_count = (int*) (d + HSA4J_GHEAP_DESC_FREE);
    if (*(volatile int*) free_count <= 0) {
        return 0;
    }
    if (atomicSub(free_count, 1) <= 0) {
        atomicAdd(free_count, 1);
        return 0;
    }
    u32 words = blocks_of(cls) / 32;
    u32* bitmap = (u32*) (d + HSA4J_GHEAP_DESC_BITMAP);
    u64 base = *(volatile u64*) (d + HSA4J_GHEAP_DESC_BASE);
    // reserved: a clear bit exists (the count never exceeds the clear bits: alloc counts down before
    // it sets a bit, free clears a bit before it counts up); bounded all the same, the reservation
    // given back when a chunk's bits keep changing under the search
    for (u32 k = 0; k < 64 * words; k++) {
        u32 w = (seed + k) % words;
        u32 seen = *(volatile u32*) (bitmap + w);
        while (seen != 0xffffffffu) {
            u32 bit = __ffs(~seen) - 1;
            u32 before = atomicOr(bitmap + w, 1u << bit);
            if ((before & (1u << bit)) == 0) {
                __threadfence(); // acquire: the block's last owner's writes (fenced before its free) come first
                return (void*) (base + ((u64) (w * 32 + bit) << (HSA4J_GHEAP_MIN_SHIFT + cls)));
            }
            seen = before | (1u << bit);
        }
    }
    atomicAdd(free_count, 1);
    return 0;
}

/** Adds a chunk to class `cls` (the caller holds the class's refill word): true when one was added. */
static __device__ bool refill(const hsa4j_rpc_ctx* ctx, u64 heap, u32 cls) {
    u32 index = atomicAdd((u32*) (heap + HSA4J_GHEAP_COUNT), 1u);
    if (index >= HSA4J_GHEAP_MAX_CHUNKS) {
        atomicSub((u32*) (heap + HSA4J_GHEAP_COUNT), 1u);
        return false;
    }
    void* chunk = hsa4j_malloc(ctx, HSA4J_GHEAP_CHUNK_BYTES);
    u64 d = desc(heap, index);
    u64 head = heap + HSA4J_GHEAP_HEADS + 4ull * cls;
    // a descriptor taken but left without a chunk stays class 0 (never in a list); its base 0 matches no address
    if (chunk == 0) {
        return false;
    }
    *(volatile u64*) (d + HSA4J_GHEAP_DESC_BASE) = (u64) chunk;
    *(volatile int*) (d + HSA4J_GHEAP_DESC_FREE) = (int) blocks_of(cls);
    // release: a free that acquires the class (its descriptor scan) sees the base; a plain store
    // could be seen first, and the free would send a heap block to the host's free
    st_release_gpu_u32(d + HSA4J_GHEAP_DESC_CLASS, cls + 1);
    *(volatile u32*) (d + HSA4J_GHEAP_DESC_NEXT) = *(volatile u32*) head;
    exch_release_gpu_u32(head, index + 1); // only the refill word's holder writes the head
    return true;
}

} // namespace hsa4j_gheap_detail

/**
 * A block of at least `bytes` from the GPU heap at `heap` (device memory, CudaRpc.createHeap), or
 * null (out of memory, or the host did not answer within the spin limit). Larger than 2 KiB: the host's malloc.
 */
static __device__ void* hsa4j_gheap_malloc(const hsa4j_rpc_ctx* ctx, void* heap_ptr, unsigned long long bytes) {
    using namespace hsa4j_gheap_detail;
    u64 heap = (u64) heap_ptr;
    if (bytes == 0) {
        bytes = 1;
    }
    u32 cls = 0;
    while (cls < HSA4J_GHEAP_CLASSES && (1ull << (HSA4J_GHEAP_MIN_SHIFT + cls)) < bytes) {
        cls++;
    }
    if (cls == HSA4J_GHEAP_CLASSES) {
        return hsa4j_malloc(ctx, bytes);
    }
    u32 seed = blockIdx.x * blockDim.x + threadIdx.x;
    u64 head = heap + HSA4J_GHEAP_HEADS + 4ull * cls;
    u32* refilling = (u32*) (heap + HSA4J_GHEAP_REFILL + 4ull * cls);
    u32 ns = 32;
    for (long long polls = 0; polls <= ctx->spin_limit; polls++) {
        u32 first = ld_acquire_gpu_u32(head);
        for (u32 i = first; i != 0; i = *(volatile u32*) (desc(heap, i - 1) + HSA4J_GHEAP_DESC_NEXT)) {
            void* p = take_block(desc(heap, i - 1), cls, seed);
            if (p != 0) {
                return p;
            }
        }
        // every chunk of the class is full: one thread refills, the others look again
        if (atomicCAS(refilling, 0u, 1u) == 0u) {
            bool added = ld_acquire_gpu_u32(head) != first || refill(ctx, heap, cls);
            atomicExch(refilling, 0u);
            if (!added) {
                return 0;
            }
        } else {
            __nanosleep(ns);
            if (ns < 1024) {
                ns <<= 1;
            }
        }
    }
    return 0;
}

/** Frees a block of hsa4j_gheap_malloc: a HeapStatus (0 OK, DOUBLE_FREE, INTERIOR_POINTER; the host's answer for other addresses). */
static __device__ int hsa4j_gheap_free(const hsa4j_rpc_ctx* ctx, void* heap_ptr, void* p) {
    using namespace hsa4j_gheap_detail;
    u64 heap = (u64) heap_ptr;
    u64 a = (u64) p;
    u32 count = *(volatile u32*) (heap + HSA4J_GHEAP_COUNT);
    if (count > HSA4J_GHEAP_MAX_CHUNKS) {
        count = HSA4J_GHEAP_MAX_CHUNKS;
    }
    for (u32 i = 0; i < count; i++) {
        u64 d = desc(heap, i);
        u32 cls = ld_acquire_gpu_u32(d + HSA4J_GHEAP_DESC_CLASS);
        u64 base = *(volatile u64*) (d + HSA4J_GHEAP_DESC_BASE);
        if (cls == 0 || a < base || a >= base + HSA4J_GHEAP_CHUNK_BYTES) {
            continue;
        }
        cls -= 1;
        u32 shift = HSA4J_GHEAP_MIN_SHIFT + cls;
        if (((a - base) & ((1ull << shift) - 1)) != 0) {
            return HSA4J_HEAP_INTERIOR_POINTER;
        }
        u32 block = (u32) ((a - base) >> shift);
        u32 bit = 1u << (block % 32);
        __threadfence(); // release: this owner's writes to the block come before the next owner's
        u32 before = atomicAnd((u32*) (d + HSA4J_GHEAP_DESC_BITMAP) + block / 32, ~bit);
        if ((before & bit) == 0) {
            return HSA4J_HEAP_DOUBLE_FREE;
        }
        atomicAdd((int*) (d + HSA4J_GHEAP_DESC_FREE), 1);
        return HSA4J_HEAP_OK;
    }
    return hsa4j_free(ctx, p);
}

#endif
