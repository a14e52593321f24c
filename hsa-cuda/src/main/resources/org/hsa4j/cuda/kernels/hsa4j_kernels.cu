// hsa4j's CUDA C kernels for the CUDA kernel agent (issue 18). Compiled at run time by NVRTC
// (CudaAgent.compile) or loaded from hsa4j_kernels.ptx, which nvcc makes from this file:
//   nvcc -arch=sm_90 -ptx -o hsa4j_kernels.ptx hsa4j_kernels.cu
// The kernarg segment of an AQL dispatch is these parameters laid out as C lays out a struct.
// CUDA has no partial blocks, so every kernel checks its global id against the grid size it is
// given: the work-items of the spec's partial last workgroup are the threads that pass the check.
// No includes: NVRTC compiles it without the CUDA toolkit's headers.

extern "C" __global__ void hsa4j_empty() {
}

// c[i] = a[i] + b[i] for i < n
extern "C" __global__ void hsa4j_vector_add(const float* a, const float* b, float* c, unsigned int n) {
    unsigned long long i = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

// out[i] = gridDim.x * blockDim.x for the ids below n, untouched above: shows the partial workgroup
extern "C" __global__ void hsa4j_mark(unsigned int* out, unsigned int n) {
    unsigned long long i = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = gridDim.x * blockDim.x;
    }
}

// sync_1way: every thread adds 1 to *counter `times` times with system-scope atomics
extern "C" __global__ void hsa4j_count(int* counter, int times) {
    for (int k = 0; k < times; k++) {
        atomicAdd_system(counter, 1);
    }
}

static __device__ __forceinline__ int load_acquire_sys(const int* p) {
    int v;
    asm volatile("ld.acquire.sys.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __forceinline__ void store_release_sys(int* p, int v) {
    asm volatile("st.release.sys.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

// pingpong: the host writes 2k+1, the kernel answers 2k+2, `rounds` times; gives up after
// `spin_limit` polls of one round (20 M polls: seconds, so a lost host cannot hold the GPU) and writes -1
extern "C" __global__ void hsa4j_pingpong(int* flag, int rounds, long long spin_limit) {
    for (int k = 0; k < rounds; k++) {
        long long spins = 0;
        while (load_acquire_sys(flag) != 2 * k + 1) {
            if (++spins > spin_limit) {
                store_release_sys(flag, -1);
                return;
            }
        }
        store_release_sys(flag, 2 * k + 2);
    }
}

// pingpong_serve: like pingpong, but without a round count, for benchmarks that cannot know it: the
// kernel answers 2k+2 to the host's 2k+1 until the host writes a negative value (the stop), then
// returns; gives up after `spin_limit` polls of one round and writes -1
extern "C" __global__ void hsa4j_pingpong_serve(int* flag, long long spin_limit) {
    for (int k = 0;; k++) {
        long long spins = 0;
        int v;
        while ((v = load_acquire_sys(flag)) != 2 * k + 1) {
            if (v < 0) {
                return;
            }
            if (++spins > spin_limit) {
                store_release_sys(flag, -1);
                return;
            }
        }
        store_release_sys(flag, 2 * k + 2);
    }
}

// writes through `bad`: a pointer to memory the device cannot reach makes the kernel fault
extern "C" __global__ void hsa4j_fault(int* bad) {
    *bad = 42;
    __threadfence_system();
}

// ---- the seed programs of issue 18 part 7 (CudaSeeds): sync_2way, atomic_int, vector add (above),
// ---- async_chain and managed_memory

// sync_2way: work-item i (1..n) waits until the host's *flag says i, moves the single 1 of cells
// from cell i-1 to cell i, then says so with *ack = i (release); returns when the host writes a
// negative flag (it gave up), and gives up itself after `spin_limit` polls, writing -1 to *ack, so
// a lost host cannot hold the GPU
extern "C" __global__ void hsa4j_sync_2way(int* flag, int* ack, int* cells, int n, long long spin_limit) {
    int i = (int) (blockIdx.x * blockDim.x + threadIdx.x) + 1;
    if (i > n) {
        return;
    }
    long long spins = 0;
    int f;
    while ((f = load_acquire_sys(flag)) != i) {
        if (f < 0) {
            return;
        }
        if (++spins > spin_limit) {
            store_release_sys(ack, -1);
            return;
        }
    }
    cells[i - 1] = 0;
    cells[i] = 1;
    store_release_sys(ack, i);
}

// atomic_int: a[i] += 1 and b[i] -= 1 with system-scope atomics, then c[i] = a[i] + b[i] with a
// system-scope release store, for i < n
extern "C" __global__ void hsa4j_atomic_int(int* a, int* b, int* c, unsigned int n) {
    unsigned long long i = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = atomicAdd_system(&a[i], 1) + 1;
        int y = atomicSub_system(&b[i], 1) - 1;
        store_release_sys(&c[i], x + y);
    }
}

// async_chain k1: a[i] = i for i < n
extern "C" __global__ void hsa4j_chain_iota(int* a, unsigned int n) {
    unsigned long long i = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        a[i] = (int) i;
    }
}

// async_chain k3: c[i] = b[i] + 1 for i < n
extern "C" __global__ void hsa4j_chain_add_one(const int* b, int* c, unsigned int n) {
    unsigned long long i = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = b[i] + 1;
    }
}

// managed_memory: x[i] = 2 * x[i] + 1 for i < n; on memory the device cannot reach it faults
extern "C" __global__ void hsa4j_twice_plus_one(int* x, unsigned int n) {
    unsigned long long i = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = 2 * x[i] + 1;
    }
}

// binary_tree_insert: one node of the tree the GPU and host threads grow together, in
// real-address SVM (CudaBinaryTree.Node is the host's copy of this layout)
struct hsa4j_tree_node {
    long long value;
    unsigned long long left;    // SVM address of the subtree of smaller values, 0 when empty
    unsigned long long right;   // SVM address of the subtree of larger values, 0 when empty
};

static __device__ __forceinline__ unsigned long long load_acquire_sys_u64(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.acquire.sys.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

// compare-and-swap with release (the new node's fields before the link) and acquire (the winner's
// node when it fails) at system scope: host threads link nodes into the same tree
static __device__ __forceinline__ unsigned long long cas_acq_rel_sys_u64(unsigned long long* p,
        unsigned long long expected, unsigned long long desired) {
    unsigned long long old;
    asm volatile("atom.acq_rel.sys.cas.b64 %0, [%1], %2, %3;" : "=l"(old) : "l"(p), "l"(expected), "l"(desired)
                 : "memory");
    return old;
}

// binary_tree_insert: thread i fills node nodes[i] with keys[i] and links it under `root` with a
// CAS on the empty child pointer it finds (values are distinct); all threads first wait for the
// host to set *start to 1 (acquire), so the GPU and the host threads insert at the same time, and
// give up after `spin_limit` polls, setting *start to -1. Every pointer is a real SVM address.
extern "C" __global__ void hsa4j_tree_insert(hsa4j_tree_node* root, hsa4j_tree_node* nodes, const long long* keys,
                                             unsigned int n, int* start, long long spin_limit) {
    unsigned long long i = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    long long spins = 0;
    while (load_acquire_sys(start) != 1) {
        if (++spins > spin_limit) {
            store_release_sys(start, -1);
            return;
        }
    }
    hsa4j_tree_node* node = &nodes[i];
    long long key = keys[i];
    node->value = key;
    node->left = 0;
    node->right = 0;
    unsigned long long mine = (unsigned long long) node;
    hsa4j_tree_node* current = root;
    while (true) {
        unsigned long long* link = key < current->value ? &current->left : &current->right;
        unsigned long long child = load_acquire_sys_u64(link);
        if (child == 0) {
            child = cas_acq_rel_sys_u64(link, 0, mine);
            if (child == 0) {
                return;
            }
        }
        current = (hsa4j_tree_node*) child;
    }
}

static __device__ __forceinline__ void store_release_sys_s64(long long* p, long long v) {
    asm volatile("st.release.sys.b64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}

// signal_serve: a kernel that waits on one hsa4j signal and answers on another (CudaAgent.createSignal:
// `ping` and `pong` are the signals' int64 value words). Round k: wait until ping holds k+1
// (ld.acquire.sys), answer pong = k+1 (st.release.sys). Returns when ping turns negative (the stop);
// gives up after `spin_limit` polls of one round, storing -1 into pong.
extern "C" __global__ void hsa4j_signal_serve(long long* ping, long long* pong, long long spin_limit) {
    for (long long k = 0;; k++) {
        long long spins = 0;
        long long v;
        while ((v = (long long) load_acquire_sys_u64((const unsigned long long*) ping)) != k + 1) {
            if (v < 0) {
                return;
            }
            if (++spins > spin_limit) {
                store_release_sys_s64(pong, -1);
                return;
            }
        }
        store_release_sys_s64(pong, k + 1);
    }
}
