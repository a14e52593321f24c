// Litmus tests on the H100 (issue 19 part 3): one kernel that interprets the GPU roles of a litmus
// test, round after round, in step with host threads that play the other roles on the same pinned
// memory. Compiled to hsa4j_litmus.ptx by
//   nvcc -arch=sm_90 -ptx -o hsa4j_litmus.ptx hsa4j_litmus.cu
// No includes, so NVRTC can compile it too. The Java side (org.hsa4j.cuda.litmus) holds the
// layouts: LitmusLayout for the control block, LitmusOp for the op encoding.
//
// Op (one int): kind bits 0-3 (1 store, 2 load, 3 fence), order bits 4-7 (0 plain, 1 relaxed,
// 2 acquire, 3 release, 4 sc, 5 acq_rel, all at system scope; the mutant suite's narrowed scopes:
// 6 acquire.gpu, 7 release.gpu, 8 acquire.cta, 9 release.cta, 10 acq_rel.gpu fence, 11 acq_rel.cta
// fence), location bits 8-11, register bits 12-15, value bits 16-31.

static __device__ __forceinline__ int lit_ld(const int* p, int order) {
    int v;
    switch (order) {
        case 0: asm volatile("ld.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); break;
        case 2: asm volatile("ld.acquire.sys.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); break;
        case 4: asm volatile("fence.sc.sys;\n\tld.acquire.sys.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); break;
        case 6: asm volatile("ld.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); break;
        case 8: asm volatile("ld.acquire.cta.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); break;
        default: asm volatile("ld.relaxed.sys.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); break;
    }
    return v;
}

static __device__ __forceinline__ void lit_st(int* p, int v, int order) {
    switch (order) {
        case 0: asm volatile("st.global.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); break;
        case 3: asm volatile("st.release.sys.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); break;
        case 4: asm volatile("fence.sc.sys;\n\tst.relaxed.sys.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); break;
        case 7: asm volatile("st.release.gpu.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); break;
        case 9: asm volatile("st.release.cta.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); break;
        default: asm volatile("st.relaxed.sys.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); break;
    }
}

static __device__ __forceinline__ void lit_fence(int order) {
    if (order == 4) {
        asm volatile("fence.sc.sys;" ::: "memory");
    } else if (order == 10) {
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
    } else if (order == 11) {
        asm volatile("fence.acq_rel.cta;" ::: "memory");
    } else {
        asm volatile("fence.acq_rel.sys;" ::: "memory");
    }
}

static __device__ __forceinline__ int ctl_ld(const int* p) {
    int v;
    asm volatile("ld.acquire.sys.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// The GPU roles of a litmus test, `rounds` times.
//   prog[role * 4 + i]: op i of role (0 ends the role early); roles[k]: the k-th role the GPU plays
//   locs: instances x 4 locations, each `stride` ints apart; regs: instances x roles x 4 registers
//   ctrl: the control block (LitmusLayout): GO at 0, DONE at 32, STOP at 64, FAILED at 96 (ints)
//   delays[(round % ndelays) * 4 + role]: nanoseconds the role sleeps (__nanosleep) before it runs in that round
// Thread t of the first gpu_roles * instances threads plays role roles[t / instances] of instance
// t % instances; the other threads of those blocks return at once (in a role's warp they would slow
// it), and every thread of the blocks after them is memory stress on `scratch` (scratch_ints ints)
// until STOP.
// A wait of more than spin_limit polls sets FAILED and returns, so a lost host cannot hold the GPU.
extern "C" __global__ void hsa4j_litmus(const int* prog, const int* roles, int gpu_roles, int* locs, int stride,
                                        int* regs, int* ctrl, const int* delays, int ndelays, int rounds,
                                        int instances, int* scratch, int scratch_ints, long long spin_limit) {
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int role_threads = (unsigned int) (gpu_roles * instances);
    if (t >= role_threads && blockIdx.x * blockDim.x < role_threads) {
        return;
    }
    if (t >= role_threads) {
        // stress: read-modify-write lines of scratch, strided so that every SM touches many lines
        if (scratch_ints <= 0) {
            return;
        }
        unsigned int i = (t * 2654435761u) % (unsigned int) scratch_ints;
        // STOP is polled once per 1024 accesses: a poll is a PCIe read, and thousands of stress
        // threads polling often would flood the link the host-GPU roles use
        long long spins = 0;
        while (ctl_ld(ctrl + 64) == 0 && ++spins < spin_limit) {
            for (int k = 0; k < 1024; k++) {
                scratch[i] = scratch[i] + 1;
                i = (i + 1031u) % (unsigned int) scratch_ints;
            }
        }
        return;
    }
    int role = roles[t / instances];
    int inst = t % instances;
    int* mine = locs + (long long) inst * 4 * stride;
    int* out = regs + ((long long) inst * 4 + role) * 4;
    int ops[4];
    for (int i = 0; i < 4; i++) {
        ops[i] = prog[role * 4 + i];
    }
    for (int r = 1; r <= rounds; r++) {
        long long spins = 0;
        while (ctl_ld(ctrl) < r) {
            if (++spins > spin_limit) {
                atomicExch_system(ctrl + 96, r);
                return;
            }
        }
        int d = delays[(r % ndelays) * 4 + role];
        if (d > 0) {
            __nanosleep(d);
        }
        int reg[4] = {0, 0, 0, 0};
        for (int i = 0; i < 4; i++) {
            int op = ops[i];
            int kind = op & 15;
            int order = (op >> 4) & 15;
            int* p = mine + ((op >> 8) & 15) * stride;
            if (kind == 1) {
                lit_st(p, (op >> 16) & 0xffff, order);
            } else if (kind == 2) {
                reg[(op >> 12) & 3] = lit_ld(p, order);
            } else if (kind == 3) {
                lit_fence(order);
            }
        }
        for (int i = 0; i < 4; i++) {
            out[i] = reg[i];
        }
        __threadfence_system();
        atomicAdd_system(ctrl + 32, 1);
    }
}
