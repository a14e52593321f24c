// CUDA kernels that call host services through hsa4j_rpc.cuh (issue 19 part 2): the GPU tests, the
// seeds (syscall, fibonacci) and the JMH benchmarks load them from hsa4j_rpc_kernels.ptx, which nvcc
// makes from this file (CudaRpcHeaderTest checks that the PTX has every kernel here):
//   nvcc -arch=sm_90 -ptx -I. -o hsa4j_rpc_kernels.ptx hsa4j_rpc_kernels.cu
// Every kernel takes the calling context (hsa4j_rpc_ctx in SVM, CudaRpc.writeContext) first, copies
// it into a local (its calls then read it from registers, not over PCIe) and checks its global id
// against n (CUDA has no partial blocks).

#include "hsa4j_rpc.cuh"
#include "hsa4j_gheap.cuh"

static __device__ __forceinline__ unsigned int global_id() {
    return blockIdx.x * blockDim.x + threadIdx.x;
}

// every thread below n makes `calls` no-op calls; status[i]: 0, or the first failing call's status
extern "C" __global__ void hsa4j_rpc_nop(const hsa4j_rpc_ctx* context, int* status, int calls, unsigned int n) {
    unsigned int i = global_id();
    if (i >= n) {
        return;
    }
    const hsa4j_rpc_ctx local = *context;
    const hsa4j_rpc_ctx* ctx = &local;
    int first = 0;
    for (int k = 0; k < calls; k++) {
        int s = hsa4j_nop(ctx);
        if (s != 0) {
            first = s;
            break;
        }
    }
    status[i] = first;
}

// each thread echoes eight words made of its id; out[i]: 0, the failing status, or -2000 - the first wrong word
extern "C" __global__ void hsa4j_rpc_echo(const hsa4j_rpc_ctx* context, long long* out, unsigned int n) {
    unsigned int i = global_id();
    if (i >= n) {
        return;
    }
    const hsa4j_rpc_ctx local = *context;
    const hsa4j_rpc_ctx* ctx = &local;
    unsigned long long io[8];
    for (int w = 0; w < 8; w++) {
        io[w] = (unsigned long long) i * 1000003ull + (unsigned long long) w * 7919ull;
    }
    int s = hsa4j_rpc_call(ctx, HSA4J_OP_ECHO, io);
    long long r = s;
    if (s == 0) {
        for (int w = 0; w < 8; w++) {
            if (io[w] != (unsigned long long) i * 1000003ull + (unsigned long long) w * 7919ull) {
                r = -2000 - w;
                break;
            }
        }
    }
    out[i] = r;
}

// writes `v` as `width` decimal digits (zero-padded) at `at`
static __device__ void put_decimal(unsigned char* at, unsigned long long v, int width) {
    for (int d = width - 1; d >= 0; d--) {
        at[d] = (unsigned char) ('0' + v % 10);
        v /= 10;
    }
}

#define HSA4J_RPC_LINE 64

// the syscall seed: each thread reads the clock and the pid, writes a 64-byte line of them into its
// slot of the file at `path` (pwrite), reads it back (pread) and compares. results[8 i ..]:
// clock ns, pid, fd, bytes written, bytes read, close result, 1 when the line read back is the one
// written, 0
extern "C" __global__ void hsa4j_rpc_syscalls(const hsa4j_rpc_ctx* context, const char* path, unsigned char* written,
                                              unsigned char* read_back, long long* results, unsigned int n) {
    unsigned int i = global_id();
    if (i >= n) {
        return;
    }
    const hsa4j_rpc_ctx local = *context;
    const hsa4j_rpc_ctx* ctx = &local;
    long long now = hsa4j_clock_gettime_ns(ctx, HSA4J_CLOCK_REALTIME);
    long long pid = hsa4j_getpid(ctx);
    unsigned char* line = written + (unsigned long long) i * HSA4J_RPC_LINE;
    unsigned char* back = read_back + (unsigned long long) i * HSA4J_RPC_LINE;
    // "gpu 000042 pid 0000012345 clock 1764099999123456789" padded with spaces, '\n' last
    const char* a = "gpu ";
    const char* b = " pid ";
    const char* c = " clock ";
    int at = 0;
    for (int k = 0; a[k]; k++) line[at++] = a[k];
    put_decimal(line + at, i, 6);
    at += 6;
    for (int k = 0; b[k]; k++) line[at++] = b[k];
    put_decimal(line + at, pid < 0 ? 0 : (unsigned long long) pid, 10);
    at += 10;
    for (int k = 0; c[k]; k++) line[at++] = c[k];
    put_decimal(line + at, now < 0 ? 0 : (unsigned long long) now, 19);
    at += 19;
    while (at < HSA4J_RPC_LINE - 1) line[at++] = ' ';
    line[HSA4J_RPC_LINE - 1] = '\n';
    for (int k = 0; k < HSA4J_RPC_LINE; k++) back[k] = 0;
    long long fd = hsa4j_open(ctx, path, HSA4J_O_RDWR, 0);
    long long wrote = fd < 0 ? fd : hsa4j_pwrite(ctx, fd, line, HSA4J_RPC_LINE, (long long) i * HSA4J_RPC_LINE);
    long long got = fd < 0 ? fd : hsa4j_pread(ctx, fd, back, HSA4J_RPC_LINE, (long long) i * HSA4J_RPC_LINE);
    long long closed = fd < 0 ? fd : hsa4j_close(ctx, fd);
    int same = 1;
    for (int k = 0; k < HSA4J_RPC_LINE; k++) {
        if (back[k] != line[k]) {
            same = 0;
        }
    }
    long long* r = results + 8ull * i;
    r[0] = now;
    r[1] = pid;
    r[2] = fd;
    r[3] = wrote;
    r[4] = got;
    r[5] = closed;
    r[6] = same;
    r[7] = 0;
}

// host malloc and free over RPC: each thread mallocs 8 (1 + i % 64) bytes, fills and checks them,
// frees them. results[2 i]: 0, -1 when malloc gave null, -2 - the first wrong word; results[2 i + 1]: free's HeapStatus
extern "C" __global__ void hsa4j_rpc_malloc_free(const hsa4j_rpc_ctx* context, long long* results, unsigned int n) {
    unsigned int i = global_id();
    if (i >= n) {
        return;
    }
    const hsa4j_rpc_ctx local = *context;
    const hsa4j_rpc_ctx* ctx = &local;
    unsigned int words = 1 + i % 64;
    long long* p = (long long*) hsa4j_malloc(ctx, 8ull * words);
    long long r = 0;
    int freed = 0;
    if (p == 0) {
        r = -1;
    } else {
        for (unsigned int w = 0; w < words; w++) {
            p[w] = (long long) i * 100000 + w;
        }
        for (unsigned int w = 0; w < words; w++) {
            if (p[w] != (long long) i * 100000 + w) {
                r = -2 - (long long) w;
                break;
            }
        }
        freed = hsa4j_free(ctx, p);
    }
    results[2ull * i] = r;
    results[2ull * i + 1] = freed;
}

// fibonacci (device new/delete): each thread news a zeroed long[k] (k = 2 + i % 91) on the host heap
// over RPC (calloc), fills it with fib(0..k-1), keeps fib(k-1) and deletes the array.
// results[2 i]: fib(k-1), or -1 when calloc gave null; results[2 i + 1]: free's HeapStatus
extern "C" __global__ void hsa4j_rpc_fibonacci(const hsa4j_rpc_ctx* context, long long* results, unsigned int n) {
    unsigned int i = global_id();
    if (i >= n) {
        return;
    }
    const hsa4j_rpc_ctx local = *context;
    const hsa4j_rpc_ctx* ctx = &local;
    unsigned int k = 2 + i % 91;
    long long* memo = (long long*) hsa4j_calloc(ctx, 8ull * k);
    if (memo == 0) {
        results[2ull * i] = -1;
        results[2ull * i + 1] = 0;
        return;
    }
    memo[1] = 1;
    for (unsigned int m = 2; m < k; m++) {
        memo[m] = memo[m - 1] + memo[m - 2];
    }
    results[2ull * i] = memo[k - 1];
    results[2ull * i + 1] = hsa4j_free(ctx, memo);
}

// printf: each thread prints one line; status[i]: the bytes printf wrote, or -1
extern "C" __global__ void hsa4j_rpc_printf(const hsa4j_rpc_ctx* context, int* status, unsigned int n) {
    unsigned int i = global_id();
    if (i >= n) {
        return;
    }
    const hsa4j_rpc_ctx local = *context;
    const hsa4j_rpc_ctx* ctx = &local;
    status[i] = hsa4j_printf(ctx, "hsa4j-cuda-printf thread %u of %u says %s %lld %.1f end\n", i, n, "hello",
                             (long long) i * 1000003ll, (double) i * 0.5);
}

// the MilThread shape (issue 19 part 2's table): each thread allocates a 64-byte block, writes its id
// into its eight words, reads them back and frees it. With `heap` != 0 from the GPU heap
// (hsa4j_gheap.cuh: the host asked only for chunks), else from the host's malloc over RPC (two calls
// per warp). results[i]: 0, -1 when the allocation gave null, -2 - w when word w was wrong, or
// -100 + free's HeapStatus when the free failed
extern "C" __global__ void hsa4j_rpc_milthread(const hsa4j_rpc_ctx* context, void* heap, long long* results, unsigned int n) {
    unsigned int i = global_id();
    if (i >= n) {
        return;
    }
    const hsa4j_rpc_ctx local = *context;
    const hsa4j_rpc_ctx* ctx = &local;
    long long* p = (long long*) (heap != 0 ? hsa4j_gheap_malloc(ctx, heap, 64) : hsa4j_malloc(ctx, 64));
    long long r = 0;
    if (p == 0) {
        r = -1;
    } else {
        for (int w = 0; w < 8; w++) {
            p[w] = (long long) i * 8 + w;
        }
        for (int w = 0; w < 8; w++) {
            if (p[w] != (long long) i * 8 + w) {
                r = -2 - w;
                break;
            }
        }
        int freed = heap != 0 ? hsa4j_gheap_free(ctx, heap, p) : hsa4j_free(ctx, p);
        if (r == 0 && freed != 0) {
            r = -100 + freed;
        }
    }
    results[i] = r;
}

// the GPU heap's checks, in two launches so that no block is handed out again while a check runs
// (a free of a block another thread already got back is no DOUBLE_FREE: with allocations running
// beside it, a second free of `a` frees whoever holds `a` now; the first H100 run, 4096 threads in
// one launch, failed exactly so: -4, the victim's own free -6, a third owner's block -2).
// phase 0: thread i allocates 16 << (i % 8) bytes twice (two live blocks, which must not overlap),
// fills a with i and b with i + 1 and keeps both in blocks[2 i], blocks[2 i + 1]. phase 1 (after every
// thread of phase 0, no allocation beside it): both blocks still hold their bytes (every block of the
// grid was live at once: two owners of one block show here), a is freed twice (the second is
// DOUBLE_FREE), an interior address of b gives INTERIOR_POINTER, then b is freed.
// results[i]: 0 or the first wrong step (-1 .. -7), phase 1 skips a thread phase 0 failed
extern "C" __global__ void hsa4j_gheap_check(const hsa4j_rpc_ctx* context, void* heap, long long* results,
                                             unsigned long long* blocks, unsigned int phase, unsigned int n) {
    unsigned int i = global_id();
    if (i >= n) {
        return;
    }
    const hsa4j_rpc_ctx local = *context;
    const hsa4j_rpc_ctx* ctx = &local;
    unsigned long long bytes = 16ull << (i % 8);
    if (phase == 0) {
        unsigned char* a = (unsigned char*) hsa4j_gheap_malloc(ctx, heap, bytes);
        unsigned char* b = (unsigned char*) hsa4j_gheap_malloc(ctx, heap, bytes);
        blocks[2ull * i] = (unsigned long long) a;
        blocks[2ull * i + 1] = (unsigned long long) b;
        long long r = 0;
        if (a == 0 || b == 0) {
            r = -1;
        } else if (!(a + bytes <= b || b + bytes <= a)) {
            r = -7;
        } else {
            for (unsigned long long k = 0; k < bytes; k++) {
                a[k] = (unsigned char) i;
                b[k] = (unsigned char) (i + 1);
            }
        }
        results[i] = r;
        return;
    }
    if (results[i] != 0) {
        return;
    }
    unsigned char* a = (unsigned char*) blocks[2ull * i];
    unsigned char* b = (unsigned char*) blocks[2ull * i + 1];
    long long r = 0;
    for (unsigned long long k = 0; k < bytes && r == 0; k++) {
        if (a[k] != (unsigned char) i || b[k] != (unsigned char) (i + 1)) {
            r = -2;
        }
    }
    if (r != 0) {
        // left allocated: a block two threads hold must not be freed twice
    } else if (hsa4j_gheap_free(ctx, heap, a) != HSA4J_HEAP_OK) {
        r = -3;
    } else if (hsa4j_gheap_free(ctx, heap, a) != HSA4J_HEAP_DOUBLE_FREE) {
        r = -4;
    } else if (hsa4j_gheap_free(ctx, heap, b + 8) != HSA4J_HEAP_INTERIOR_POINTER) {
        r = -5;
    } else if (hsa4j_gheap_free(ctx, heap, b) != HSA4J_HEAP_OK) {
        r = -6;
    }
    results[i] = r;
}
