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
