// hsa4j's GPU-resident packet processor, part 2 of 3 for the built-in program: the resident kernels
// every program starts with (CudaResidentProgram.BUILTIN lists them in this order: their kernel
// objects are their indices). See hsa4j_resident_prelude.cu for what a resident kernel is.

// does nothing: the empty dispatch of the round-trip and batch benchmarks
__device__ void hsa4j_r_empty(const void* kernarg, const hsa4j_item& it) {
}

// c[i] = a[i] + b[i] for every work-item i (the grid is n work-items: no bounds check needed)
struct hsa4j_r_vector_add_args {
    const float* a;
    const float* b;
    float* c;
};
__device__ void hsa4j_r_vector_add(const void* kernarg, const hsa4j_item& it) {
    const hsa4j_r_vector_add_args* k = (const hsa4j_r_vector_add_args*) kernarg;
    k->c[it.global_x] = k->a[it.global_x] + k->b[it.global_x];
}

// out[i] = 2 * in[i] for every work-item i: reads what an earlier dispatch wrote (barrier-bit tests)
struct hsa4j_r_twice_args {
    const float* in;
    float* out;
};
__device__ void hsa4j_r_twice(const void* kernarg, const hsa4j_item& it) {
    const hsa4j_r_twice_args* k = (const hsa4j_r_twice_args*) kernarg;
    k->out[it.global_x] = 2.0f * k->in[it.global_x];
}

// one step of an ordered chain: work-item 0 sleeps about delay_ns, then cells[index] =
// cells[index - 1] + 1 (cells[0] = 1): a packet that ran before its predecessor finished leaves a gap
struct hsa4j_r_step_args {
    int* cells;
    hsa4j_u32 index;
    hsa4j_u32 delay_ns;
};
__device__ void hsa4j_r_step(const void* kernarg, const hsa4j_item& it) {
    const hsa4j_r_step_args* k = (const hsa4j_r_step_args*) kernarg;
    if (it.global_x != 0) {
        return;
    }
    hsa4j_u64 until = hsa4j_now_ns() + k->delay_ns;
    while (hsa4j_now_ns() < until) {
        hsa4j_sleep_ns(1000);
    }
    int before = k->index == 0 ? 0 : ((volatile int*) k->cells)[k->index - 1];
    ((volatile int*) k->cells)[k->index] = before + 1;
}

// spins until *flag (host memory) is non-zero or about limit_ns passed: a kernel that runs as long as
// the host wants (close-while-busy tests); writes 1 to *seen once it started
struct hsa4j_r_hold_args {
    const int* flag;
    int* seen;
    hsa4j_u64 limit_ns;
};
__device__ void hsa4j_r_hold(const void* kernarg, const hsa4j_item& it) {
    const hsa4j_r_hold_args* k = (const hsa4j_r_hold_args*) kernarg;
    if (it.global_x != 0) {
        return;
    }
    hsa4j_st_release_sys_u32(k->seen, 1);
    hsa4j_u64 until = hsa4j_now_ns() + k->limit_ns;
    while (hsa4j_ld_acquire_sys_u32(k->flag) == 0 && hsa4j_now_ns() < until) {
        hsa4j_sleep_ns(1000);
    }
}
