// hsa4j's GPU-resident packet processor (issue 19 part 1), part 1 of 3: what resident kernels see.
// CudaResidentProgram compiles  prelude + the kernels + a generated table + hsa4j_resident.cu  as one
// translation unit (NVRTC, or nvcc for the checked-in hsa4j_resident.ptx of the built-in kernels).
// No includes: NVRTC compiles it without the toolkit's headers.
//
// A resident kernel is a __device__ function
//     __device__ void NAME(const void* kernarg, const hsa4j_item& it)
// that the processor's blocks call once per work-item of a dispatch: `kernarg` is the packet's
// kernarg_address (laid out as the C struct of the kernel's parameters), `it` the work-item's ids.
// Only work-items inside the grid are called (the spec's partial last workgroup), so a kernel needs
// no bounds check of its own against the grid. A workgroup runs on one processor block; the block's
// threads beyond the workgroup idle. Do not call __syncthreads() from a resident kernel: the idle
// threads do not reach it (workgroup barriers are future work).

typedef unsigned short hsa4j_u16;
typedef unsigned int hsa4j_u32;
typedef unsigned long long hsa4j_u64;

struct hsa4j_item {
    hsa4j_u32 global_x, global_y, global_z;   // work-item id in the grid
    hsa4j_u32 local_x, local_y, local_z;      // work-item id in its workgroup
    hsa4j_u32 group_x, group_y, group_z;      // workgroup id
    hsa4j_u32 wg_x, wg_y, wg_z;               // the packet's workgroup size
    hsa4j_u32 grid_x, grid_y, grid_z;         // the packet's grid size in work-items
};

static __device__ __forceinline__ hsa4j_u32 hsa4j_ld_acquire_sys_u32(const void* p) {
    hsa4j_u32 v;
    asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __forceinline__ hsa4j_u64 hsa4j_ld_acquire_sys_u64(const void* p) {
    hsa4j_u64 v;
    asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __forceinline__ void hsa4j_st_release_sys_u32(void* p, hsa4j_u32 v) {
    asm volatile("st.release.sys.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

static __device__ __forceinline__ void hsa4j_st_release_sys_u64(void* p, hsa4j_u64 v) {
    asm volatile("st.release.sys.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}

static __device__ __forceinline__ void hsa4j_st_relaxed_sys_u64(void* p, hsa4j_u64 v) {
    asm volatile("st.relaxed.sys.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}

// signal decrement: a system-scope release read-modify-write, the only RMW any side does on the word
static __device__ __forceinline__ hsa4j_u64 hsa4j_atom_add_release_sys_u64(void* p, hsa4j_u64 v) {
    hsa4j_u64 old;
    asm volatile("atom.release.sys.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
}

static __device__ __forceinline__ hsa4j_u32 hsa4j_ld_acquire_gpu_u32(const void* p) {
    hsa4j_u32 v;
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __forceinline__ void hsa4j_st_release_gpu_u32(void* p, hsa4j_u32 v) {
    asm volatile("st.release.gpu.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

static __device__ __forceinline__ void hsa4j_red_release_gpu_add_u32(void* p, hsa4j_u32 v) {
    asm volatile("red.release.gpu.add.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

static __device__ __forceinline__ void hsa4j_fence_sc_sys() {
    asm volatile("fence.sc.sys;" ::: "memory");
}

static __device__ __forceinline__ void hsa4j_fence_acq_rel_sys() {
    asm volatile("fence.acq_rel.sys;" ::: "memory");
}

static __device__ __forceinline__ hsa4j_u64 hsa4j_now_ns() {
    hsa4j_u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ __forceinline__ void hsa4j_sleep_ns(hsa4j_u32 ns) {
    asm volatile("nanosleep.u32 %0;" :: "r"(ns));
}
