// hsa4j's GPU-resident packet processor (issue 19 part 1), part 3 of 3: the processor kernel.
// Compiled after hsa4j_resident_prelude.cu, the program's kernels and the table CudaResidentProgram
// generates (HSA4J_RESIDENT_KERNEL_COUNT and hsa4j_resident_call). docs/ARCHITECTURE.md ("The
// GPU-resident packet processor") says why it is built this way; the host half is
// CudaResidentProcessor.java, and ResidentLayout.java holds every offset below (a test compares).
//
// Roles. One cooperative launch of `blocks` blocks of HSA4J_R_BLOCK threads, all co-resident.
// Thread 0 of block 0 is the command processor (CP): it polls the AQL ring in registered host memory
// (the headers of a window of 32 slots, system-scope relaxed loads and the first one acquire, then,
// for more than one packet, fence.acq_rel.sys: the acquire pattern, one PCIe round trip for up to 32
// published packets, and one more for their bodies,
// which block 0's first 4 threads a packet load together, 16 bytes each, into shared memory; every
// load of a round issues before any is used: each host-memory load is a ~1 us PCIe round trip, and
// a thread that uses a value before its next load issues pays one per load), validates and decodes
// each packet, and completes it. The CP is one thread, so every instruction on its path is latency
// (~3 ns, dependent chains, no other warp's work to hide it): the decode uses 32-bit divisions and
// none for a size of 1, 1-dimensional dispatches take a path with no division per work-item and no
// barrier between a block's workgroups, the global timer (a slow read) is read only once the queue
// looks idle, and a completion is one red.release.sys. These took an empty packet from 2.2 to 1.3 us
// in a batch on the H100 (ResidentVariantProbe, docs/GPU.md).
// A quiet queue is read one slot at a time: a window of 32 headers costs two PCIe round trips (a
// thread's round of loads stays one round trip only up to ~8 lines), so after a look that found at
// most one packet (a round trip, the end of a batch) the next look (HSA4J_R_LOOK) loads slot `read`'s
// line of the shadow ring (ResidentShadow.java: the launch call copies the packet there before its
// header store, other producers' doorbell stores after it, with a 32-bit tag of its id in every
// 8-byte word; block 0's threads 0..7, one 128-byte request)
// and the slot's header (the CP, ld.acquire.sys), one round trip. A line whose tags all name `read`,
// with the header published, is the packet: no body round (round trip p50 5.6 -> 4.8-5.0 us, H200
// and H100, docs/GPU.md seventh round). A batch brings the 32-slot window back: the copier's hint
// (SHADOW_MORE: it saw read+2 reserved) or a second published packet in a row without its copy (a
// batch still being written: its doorbell, and so its copy, comes at the end). A dispatch of a
// single work-item runs in the CP itself, with no block barrier (run: 488 -> 107 ns). The first look
// after a signalled completion waits for the completion's stores (a fence) and a self-tuned lead
// (hsa4j_r_lead): looking at once wasted one empty look per round trip (p50 5.0 -> 4.6-4.8 us).
// Tried and dropped: eight pollers (lane 0 of each warp) on slot `read`, staggered (round trip
// 27 us: loads of one line serialize, ~8 round trips a look), and two loads of the slot in flight
// half a round trip apart (the acquire fence after a relaxed load waits for the other load too);
// earlier, running small dispatches in warp 0 alone with __syncwarp instead of block barriers
// (slower: the waiting lanes of the CP's own warp take its issue slots; so did a look by warp 0
// alone, 2.9 us instead of 1.5); the shadow line loaded by the CP's one thread (8 loads of one
// line: 4.7-5.3 us) or spread over 8 lines (2.5-2.8 us); slot read+2's header as a third line of
// the look (looks 0.3 us longer, hits rarer); two watcher warps of block 0 looking at two shadow
// copies half a round trip apart, the CP waiting on their reports in shared memory (looks 1.2 instead
// of 1.8 us, but the completion's fence waited for their loads in flight: 0.6 -> 1.0 us, round trip
// 6.7 us); a fixed spin instead of the lead's fence (stores not sent: first looks missed); the fence
// inside the completion, before the retirement's stores (4.9-5.0 us against 4.6-4.8); the completion
// as fence.release.sys + red.relaxed.sys (the one-way fence costs the same 0.6-0.7 us); the answer's
// first look without the header (a hit look took 1.75 us with or without it). A phase timer
// (clock64 deltas per phase, HSA4J_R_PH_*) goes to the control block when the grid ends: where the
// CP's time went, per packet, without a profiler. The other
// blocks are workers: they wait on a mailbox in device memory for a dispatch, run their share of its
// workgroups (grid-stride over the workgroups, one workgroup per block at a time) and acknowledge.
//
// Order. Packets run one at a time in queue order: a packet starts only after the previous one
// completed, so the barrier bit is always honoured (independent dispatches do not overlap yet).
// A dispatch of one workgroup runs in block 0 alone, without the mailbox; one of a single work-item
// runs in the CP's thread (no barrier: resident kernels may not use one).
//
// Words and their one writer (HOST_NATIVE_ATOMIC_SUPPORTED is 0 on a PCIe H100: a host RMW and a
// device RMW on one word are not atomic with each other, so no word has two RMW sides):
//   ring headers        host stores the packet (release), CP stores INVALID once the packet completed,
//                       late: at its next header round, before the fence that then releases the read
//                       index (no host-memory store is outstanding while a packet runs: a thread's
//                       __syncthreads waits for its outstanding system-scope stores, ~1 PCIe round trip)
//   shadow lines        the copier (one producer thread at a time, release stores after an acquire of
//                       the packet's header) stores a packet's copy; the CP stores every tag ~id when it
//                       retires the slot, with its INVALID header store; block 0's threads 0..7 load it
//   write index         host (producers' CAS, host-only RMW); CP only loads it (park handshake)
//   read index          CP stores (fence.acq_rel.sys, then a relaxed store: the release pattern;
//                       at a window's acquire fence, which is also this release (windows of more
//                       than one packet, else once the index is a window behind), or on the second
//                       empty poll in a row); host loads
//   completion signals  CP's red.release.sys (the packet's release) is the only RMW; the host only loads
//                       (waits) and, before reusing a signal, stores
//   dependency signals  loaded by the CP (relaxed loads, then fence.acq_rel.sys)
//   control: stop       host stores; CP loads
//   control: the rest   CP stores; host loads after the kernel ended (or to watch)
//   mailbox             device memory: CP stores fields then generation (release.gpu); workers
//                       acquire the generation and add to `done` (red.release.gpu); CP acquires done
//
// Idle. The CP spins on the ring for HSA4J_R_SPIN_NS, then naps (nanosleep, doubling up to
// sleep_max_ns); after idle_ns without a packet it parks: stores PARKED (release.sys), fence.sc.sys,
// re-reads the write index; unchanged, it tells the workers to exit and the grid ends (holding no
// SM); changed, it stores RUNNING and goes on. The host relaunches when the doorbell rings.

#define HSA4J_R_BLOCK 256
#define HSA4J_R_SPIN_NS 50000
#define HSA4J_R_WINDOW 32
#define HSA4J_R_LOOK_GUESS 3000   // cycles of an empty look before one was timed (1.5 us at 1.98 GHz)

// control block offsets (ResidentLayout.CTL_*)
#define HSA4J_R_CTL_STOP 0
#define HSA4J_R_CTL_STATE 64
#define HSA4J_R_CTL_ERROR 68
#define HSA4J_R_CTL_ERROR_DETAIL 72
#define HSA4J_R_CTL_ERROR_PACKET 80
#define HSA4J_R_CTL_PROCESSED 88
#define HSA4J_R_CTL_GENERATION 96
#define HSA4J_R_CTL_TAKEN 104
#define HSA4J_R_CTL_PHASES 128

// the phase timer: u64 words at CTL_PHASES the CP stores when the grid ends (ResidentLayout.PH_*);
// *_CYCLES are clock64 deltas of the CP's thread, CYCLES and NANOS the grid's whole life (the ratio)
#define HSA4J_R_PHASE_COUNT 19
#define HSA4J_R_PH_CYCLES 0
#define HSA4J_R_PH_NANOS 1
#define HSA4J_R_PH_PACKETS 2
#define HSA4J_R_PH_POLLS 3
#define HSA4J_R_PH_POLL_CYCLES 4
#define HSA4J_R_PH_WINDOWS 5
#define HSA4J_R_PH_HEADER_CYCLES 6
#define HSA4J_R_PH_ACQUIRE_CYCLES 7
#define HSA4J_R_PH_BODY_CYCLES 8
#define HSA4J_R_PH_TAKE_CYCLES 9
#define HSA4J_R_PH_RUN_CYCLES 10
#define HSA4J_R_PH_FLUSHES 11
#define HSA4J_R_PH_FLUSH_CYCLES 12
#define HSA4J_R_PH_NAPS 13
#define HSA4J_R_PH_NAP_CYCLES 14
#define HSA4J_R_PH_STOP_CYCLES 15
#define HSA4J_R_PH_SHADOW_HITS 16
#define HSA4J_R_PH_LEAD_CYCLES 17
#define HSA4J_R_PH_LEAD_MISSES 18

// the shadow ring (ResidentLayout.SHADOW_*, ResidentShadow.java): per slot 16 words tag << 32 | payload,
// one 128-byte line, loaded by 8 threads of warp 0 together (one request: one thread's 8 loads of it
// took 4 round trips, of 8 lines 2); 0 here makes the quiet poll ignore it (ResidentVariantProbe's A/B)
#define HSA4J_R_USE_SHADOW 1
#define HSA4J_R_SHADOW_PIECE_BYTES 16
#define HSA4J_R_SHADOW_PIECES 8
#define HSA4J_R_SHADOW_WORDS 16
#define HSA4J_R_SHADOW_ID_LOW 12
#define HSA4J_R_SHADOW_ID_HIGH 13
#define HSA4J_R_SHADOW_MORE 2147483648

// states (ResidentLayout.STATE_*)
#define HSA4J_R_STATE_RUNNING 1
#define HSA4J_R_STATE_PARKED 2
#define HSA4J_R_STATE_STOPPED 3
#define HSA4J_R_STATE_FAILED 4
#define HSA4J_R_STATE_WAITING 5

// errors (ResidentLayout.ERR_*)
#define HSA4J_R_ERR_PACKET_TYPE 1
#define HSA4J_R_ERR_KERNEL_OBJECT 2
#define HSA4J_R_ERR_WORKGROUP 3
#define HSA4J_R_ERR_GRID 4
#define HSA4J_R_ERR_DIMENSIONS 5
#define HSA4J_R_ERR_GROUP_SEGMENT 6
#define HSA4J_R_ERR_FENCE 7

// queue descriptor and packets (QueueDescriptor, AqlPacket, KernelDispatchPacket, BarrierPacket)
#define HSA4J_Q_WRITE_INDEX 64
#define HSA4J_Q_READ_INDEX 128
#define HSA4J_P_SIZE 64
#define HSA4J_P_COMPLETION 56
#define HSA4J_P_DEP0 8
#define HSA4J_P_DEPS 5
#define HSA4J_T_INVALID 1
#define HSA4J_T_KERNEL_DISPATCH 2
#define HSA4J_T_BARRIER_AND 3
#define HSA4J_T_BARRIER_OR 5

#define HSA4J_R_RUN 1
#define HSA4J_R_EXIT 2
#define HSA4J_R_FETCH 3
#define HSA4J_R_LOOK 4

// one dispatch as every thread of a block reads it (shared memory), and as the mailbox carries it
struct hsa4j_r_work {
    hsa4j_u32 command;
    hsa4j_u32 kernel;
    hsa4j_u32 acquire_sys;
    hsa4j_u32 release_sys;
    hsa4j_u32 grid[3];
    hsa4j_u32 wg[3];
    hsa4j_u32 groups[3];
    hsa4j_u32 total;
    hsa4j_u32 linear;      // 1: a 1-dimensional grid of 1-dimensional workgroups (no divisions per work-item)
    hsa4j_u64 kernarg;
    hsa4j_u64 completion;
};

// device memory, ResidentLayout.MAILBOX_BYTES; generation and done on lines of their own
struct hsa4j_r_mailbox {
    hsa4j_u32 generation;
    hsa4j_u32 pad0[31];
    hsa4j_r_work work;
    hsa4j_u32 pad1[32 - sizeof(hsa4j_r_work) / 4];
    hsa4j_u32 done;
    hsa4j_u32 pad2[31];
};

static __device__ __forceinline__ hsa4j_u64 hsa4j_r_ld_relaxed_sys_u64(const void* p) {
    hsa4j_u64 v;
    asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

// 16 bytes of a ring slot in one load (a packet is four of them): no dependency between them, so a
// run of these issues back to back and costs one PCIe round trip, not one each
static __device__ __forceinline__ void hsa4j_r_ld_relaxed_sys_v2_u64(const void* p, hsa4j_u64& a, hsa4j_u64& b) {
    asm volatile("ld.relaxed.sys.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}

static __device__ __forceinline__ hsa4j_u64 hsa4j_r_clock() {
    hsa4j_u64 c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c));
    return c;
}

static __device__ __forceinline__ void hsa4j_r_st_relaxed_sys_v2_u64(void* p, hsa4j_u64 a, hsa4j_u64 b) {
    asm volatile("st.relaxed.sys.v2.u64 [%0], {%1, %2};" :: "l"(p), "l"(a), "l"(b) : "memory");
}

// piece q (words 2q, 2q+1) of slot s in the shadow ring (ResidentLayout.shadowPiece)
static __device__ __forceinline__ hsa4j_u64 hsa4j_r_piece(hsa4j_u64 s, int q) {
    return s * HSA4J_R_SHADOW_PIECES * HSA4J_R_SHADOW_PIECE_BYTES + (hsa4j_u64) q * HSA4J_R_SHADOW_PIECE_BYTES;
}

static __device__ __forceinline__ void hsa4j_r_st_relaxed_sys_u32(void* p, hsa4j_u32 v) {
    asm volatile("st.relaxed.sys.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

static __device__ __forceinline__ void hsa4j_r_red_release_sys_add_u64(void* p, hsa4j_u64 v) {
    asm volatile("red.release.sys.add.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}

static __device__ __forceinline__ hsa4j_u32 hsa4j_r_ld_relaxed_gpu_u32(const void* p) {
    hsa4j_u32 v;
    asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __forceinline__ hsa4j_u32 hsa4j_r_ld_acquire_sys_u32(const void* p) {
    hsa4j_u32 v;
    asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __forceinline__ hsa4j_u32 hsa4j_r_ld_relaxed_sys_u32(const void* p) {
    hsa4j_u32 v;
    asm volatile("ld.relaxed.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// calls kernel `kernel` for work-item t of workgroup g (global id gx) of a 1-dimensional dispatch
static __device__ __forceinline__ void hsa4j_r_call_1d(hsa4j_u32 kernel, hsa4j_u64 kernarg, hsa4j_u64 g, hsa4j_u64 gx,
                                                       hsa4j_u32 t, hsa4j_u32 wg, hsa4j_u32 grid) {
    hsa4j_item it;
    it.group_x = (hsa4j_u32) g;
    it.group_y = 0;
    it.group_z = 0;
    it.global_x = (hsa4j_u32) gx;
    it.global_y = 0;
    it.global_z = 0;
    it.local_x = t;
    it.local_y = 0;
    it.local_z = 0;
    it.wg_x = wg;
    it.wg_y = 1;
    it.wg_z = 1;
    it.grid_x = grid;
    it.grid_y = 1;
    it.grid_z = 1;
    hsa4j_resident_call(kernel, (const void*) kernarg, it);
}

// calls the dispatch's kernel for work-item t of workgroup g (global id gx) of a 1-dimensional dispatch
static __device__ __forceinline__ void hsa4j_r_call_linear(const hsa4j_r_work& w, hsa4j_u64 g, hsa4j_u64 gx, hsa4j_u32 t) {
    hsa4j_r_call_1d(w.kernel, w.kernarg, g, gx, t, w.wg[0], w.grid[0]);
}

// runs this block's share of the dispatch's workgroups (grid-stride); every thread of the block calls it
static __device__ void hsa4j_r_run_groups(const hsa4j_r_work& w) {
    hsa4j_u32 t = threadIdx.x;
    if (w.linear) {
        // the common case, and the CP's own critical path for one-workgroup dispatches: no division, no
        // barrier between this block's workgroups (resident kernels share nothing within a block)
        if (t < w.wg[0]) {
            for (hsa4j_u64 g = blockIdx.x; g < w.total; g += gridDim.x) {   // 64-bit: no wrap near 2^32
                hsa4j_u64 gx = g * w.wg[0] + t;
                if (gx < w.grid[0]) {
                    hsa4j_r_call_linear(w, g, gx, t);
                }
            }
        }
        return;
    }
    hsa4j_u32 per = w.wg[0] * w.wg[1] * w.wg[2];
    hsa4j_u32 lx = t % w.wg[0];
    hsa4j_u32 ly = (t / w.wg[0]) % w.wg[1];
    hsa4j_u32 lz = t / (w.wg[0] * w.wg[1]);
    for (hsa4j_u64 g = blockIdx.x; g < w.total; g += gridDim.x) {
        if (t < per) {
            hsa4j_item it;
            it.group_x = (hsa4j_u32) (g % w.groups[0]);
            it.group_y = (hsa4j_u32) ((g / w.groups[0]) % w.groups[1]);
            it.group_z = (hsa4j_u32) (g / ((hsa4j_u64) w.groups[0] * w.groups[1]));
            hsa4j_u64 gx = (hsa4j_u64) it.group_x * w.wg[0] + lx;
            hsa4j_u64 gy = (hsa4j_u64) it.group_y * w.wg[1] + ly;
            hsa4j_u64 gz = (hsa4j_u64) it.group_z * w.wg[2] + lz;
            if (gx < w.grid[0] && gy < w.grid[1] && gz < w.grid[2]) {
                it.global_x = (hsa4j_u32) gx;
                it.global_y = (hsa4j_u32) gy;
                it.global_z = (hsa4j_u32) gz;
                it.local_x = lx;
                it.local_y = ly;
                it.local_z = lz;
                it.wg_x = w.wg[0];
                it.wg_y = w.wg[1];
                it.wg_z = w.wg[2];
                it.grid_x = w.grid[0];
                it.grid_y = w.grid[1];
                it.grid_z = w.grid[2];
                hsa4j_resident_call(w.kernel, (const void*) w.kernarg, it);
            }
        }
        __syncthreads();
    }
}

// a worker block: waits for each generation, runs its share, acknowledges; returns on EXIT
static __device__ void hsa4j_r_worker(hsa4j_r_mailbox* mb, hsa4j_u32 seen, hsa4j_r_work* w) {
    for (;;) {
        if (threadIdx.x == 0) {
            hsa4j_u32 nap = 32;
            hsa4j_u32 g;
            while ((g = hsa4j_ld_acquire_gpu_u32(&mb->generation)) == seen) {
                hsa4j_sleep_ns(nap);
                if (nap < 1024) {
                    nap <<= 1;
                }
            }
            seen = g;
            // strong (L1-bypassing) loads of the work, word by word, after the acquire of its generation
            const hsa4j_u32* src = (const hsa4j_u32*) &mb->work;
            hsa4j_u32* dst = (hsa4j_u32*) w;
            for (int i = 0; i < (int) (sizeof(hsa4j_r_work) / 4); i++) {
                dst[i] = hsa4j_r_ld_relaxed_gpu_u32(src + i);
            }
            if (w->command == HSA4J_R_RUN && w->acquire_sys) {
                hsa4j_fence_acq_rel_sys();
            }
        }
        __syncthreads();
        if (w->command != HSA4J_R_RUN) {
            return;
        }
        hsa4j_r_run_groups(*w);
        __syncthreads();
        if (threadIdx.x == 0) {
            if (w->release_sys) {
                hsa4j_fence_sc_sys();
            }
            hsa4j_red_release_gpu_add_u32(&mb->done, 1);
        }
    }
}

// what the CP (thread 0 of block 0) keeps between packets: its read index and a window of packets
// read ahead. Packets [base, base + cached) are copies of ring slots (in hsa4j_r_win, header included:
// no array here, so the struct can stay in registers); none of them is consumed yet, so no producer may
// overwrite them while they are cached.
struct hsa4j_r_cp {
    unsigned char* shadow; // the shadow ring (registered host memory)
    hsa4j_u64 read;        // next packet id to run
    hsa4j_u64 base;        // packet id of pkt[0]
    hsa4j_u32 cached;      // packets cached from base
    hsa4j_u32 dirty;       // 0: read index stored; else 1 + empty polls since the last completion
    hsa4j_u64 retired;     // slots below this id are INVALID in the ring (stored, maybe not yet fenced)
    hsa4j_u64 published;   // the read index last stored
    hsa4j_u64 served;      // packets served by this grid (stop checks)
    hsa4j_u64 ph[HSA4J_R_PHASE_COUNT];   // the phase timer (HSA4J_R_PH_*)
    hsa4j_u64 ran;         // clock when the last dispatch or window load began
    hsa4j_u32 quiet;       // 1: the last look found at most one packet: the next loads one slot (and a hint)
    hsa4j_u32 loaded;      // 1: the last look took its packet from the shadow ring: no body round
    hsa4j_u32 looked;      // 1: block 0 just loaded slot read's shadow (hsa4j_r_look) and header (h0)
    hsa4j_u32 h0;          // header word of slot read (ld.acquire.sys), when looked
    hsa4j_u32 misses;      // looks in a row that found slot read published but not its shadow
    hsa4j_u32 nap;         // the idle poll's next nap (ns), kept across looks
    hsa4j_u32 polls;       // iterations of the CP's loop since it last went back to run something
    hsa4j_u64 done_at;     // clock when the last signalled completion's red was issued
    hsa4j_u32 answer;      // 1: a signalled completion since the last look: the next look is its answer's first
    hsa4j_u32 first;       // 1: the look in flight is the first after a signalled completion
    hsa4j_u32 lead;        // cycles from a signalled completion to the first look after it (self-tuned)
    hsa4j_u32 look;        // cycles of an empty look (running mean): the lead's bound and its steps
    hsa4j_u64 idle_since;  // global timer when the queue began to look idle, 0 while busy
};

// the stores of a flush, after its fence (and after hsa4j_r_retire): the read index, the progress word
static __device__ __forceinline__ void hsa4j_r_publish(unsigned char* queue, unsigned char* ctl, hsa4j_r_cp& cp) {
    hsa4j_st_relaxed_sys_u64(queue + HSA4J_Q_READ_INDEX, cp.read);
    hsa4j_st_relaxed_sys_u64(ctl + HSA4J_R_CTL_PROCESSED, cp.read);
    cp.published = cp.read;
    cp.dirty = 0;
    cp.ph[HSA4J_R_PH_FLUSHES]++;
}

// the completed slots [retired, read) go INVALID: relaxed stores, released by the next system-scope
// fence (before the read index moves past them); issued before the next header loads of the same
// thread, which therefore see them (one location, one thread), also in a ring under 32 slots. Each
// slot's shadow gets every tag ~id (payloads 0) the same way: the tag of the slot's next packet,
// id + size, differs (~a == a + size has no solution for an even size), so no word left from an older
// copy can pass for it (ResidentShadow)
static __device__ __forceinline__ void hsa4j_r_retire(unsigned char* ring, hsa4j_u64 size, hsa4j_r_cp& cp) {
    for (hsa4j_u64 id = cp.retired; id != cp.read; id++) {
        hsa4j_u64 slot = id & (size - 1);
        hsa4j_r_st_relaxed_sys_u32(ring + slot * HSA4J_P_SIZE, HSA4J_T_INVALID);
        hsa4j_u64 t = (hsa4j_u64) (~(hsa4j_u32) id) << 32;
#pragma unroll
        for (int q = 0; q < HSA4J_R_SHADOW_PIECES; q++) {
            hsa4j_r_st_relaxed_sys_v2_u64(cp.shadow + hsa4j_r_piece(slot, q), t, t);
        }
    }
    cp.retired = cp.read;
}

// block 0's copy of the window's packets: the first 4 * k threads of block 0 load them together (one
// 16-byte load each, one PCIe round trip for the window), the CP reads them
__shared__ hsa4j_u64 hsa4j_r_win[HSA4J_R_WINDOW][8];

// slot read's shadow as block 0's first 8 threads loaded it (HSA4J_R_LOOK), for the CP
__shared__ hsa4j_u64 hsa4j_r_look[HSA4J_R_SHADOW_WORDS];

// publishes the consumed slots: their INVALID stores, one system-scope fence, then the read index as
// relaxed stores after it (the release pattern: a fence then strong writes)
static __device__ void hsa4j_r_flush(unsigned char* ring, hsa4j_u64 size, unsigned char* queue, unsigned char* ctl,
                                     hsa4j_r_cp& cp) {
    hsa4j_u64 t0 = hsa4j_r_clock();
    hsa4j_r_retire(ring, size, cp);
    hsa4j_fence_acq_rel_sys();
    hsa4j_r_publish(queue, ctl, cp);
    cp.ph[HSA4J_R_PH_FLUSH_CYCLES] += hsa4j_r_clock() - t0;
}

// the CP's packet completion: cp.read moves; a signal is released at once (red.release.sys, then the
// progress word the host reads after a fault), while the slot's INVALID store and the read index wait
// for the next header round or empty poll (the host waits on the signal, producers on the read index)
static __device__ void hsa4j_r_complete(unsigned char* ctl, hsa4j_r_cp& cp, hsa4j_u64 completion) {
    cp.read++;
    cp.dirty = 1;
    if (completion != 0) {
        hsa4j_u64 t0 = hsa4j_r_clock();
        hsa4j_r_red_release_sys_add_u64((void*) completion, (hsa4j_u64) -1LL);
        cp.done_at = hsa4j_r_clock();
        cp.answer = 1;
        hsa4j_st_relaxed_sys_u64(ctl + HSA4J_R_CTL_PROCESSED, cp.read);
        cp.ph[HSA4J_R_PH_FLUSHES]++;
        cp.ph[HSA4J_R_PH_FLUSH_CYCLES] += hsa4j_r_clock() - t0;
    }
}

// the CP stops on a bad packet: it stays in the ring for the host, which fails it and the queue
static __device__ void hsa4j_r_fail(unsigned char* ctl, hsa4j_u32 error, hsa4j_u32 detail, hsa4j_u64 packet) {
    hsa4j_r_st_relaxed_sys_u32(ctl + HSA4J_R_CTL_ERROR, error);
    hsa4j_r_st_relaxed_sys_u32(ctl + HSA4J_R_CTL_ERROR_DETAIL, detail);
    hsa4j_st_relaxed_sys_u64(ctl + HSA4J_R_CTL_ERROR_PACKET, packet);
    hsa4j_st_release_sys_u32(ctl + HSA4J_R_CTL_STATE, HSA4J_R_STATE_FAILED);
}

// The answer's push and lead. On a quiet queue the next packet is usually the host's answer to the
// last completion (a round trip: the signal's way to the host, the host's dispatch, the packet's way
// back). A look issued right behind the completion samples host memory before the answer can be
// there, so every round trip paid one empty look (~1.5 us, the H100). So before the first look after
// a signalled completion the CP waits for its stores (the red, the retirement's) with
// fence.acq_rel.sys (~0.6 us with nothing else to do: round trip p50 5.0 -> 4.4-4.6 us,
// ResidentVariantProbe, docs/GPU.md eighth round). The fence is not only a delay: a spin of 600-900
// ns in its place still missed the answer (the stores seem to leave late without it), and one inside
// the completion, before the retirement's stores, did worse. Then it waits the rest of `lead` cycles
// from the completion: a first look that finds the answer there shortens the lead by 1/32 of a look,
// one that finds nothing lengthens it by 1/4 (at most one look), so it settles where about one first
// look in nine misses. A lead of 0 skips the fence too: a producer that is always ahead (its next
// packet published before the last completed) drives the lead to 0 and pays nothing.
// Batches are not slowed: their windows do not look, and only the last packet is signalled.
static __device__ __forceinline__ void hsa4j_r_lead(hsa4j_r_cp& cp) {
    cp.answer = 0;
    cp.first = 1;
    if (cp.lead == 0) {
        return;   // the answers were there: look at once (a producer ahead of the processor pays no fence)
    }
    hsa4j_u64 now = hsa4j_r_clock();
    hsa4j_fence_acq_rel_sys();
    hsa4j_u64 until = cp.done_at + cp.lead;
    while ((long long) (until - hsa4j_r_clock()) > 0) {
    }
    cp.ph[HSA4J_R_PH_LEAD_CYCLES] += hsa4j_r_clock() - now;
}

// the first look after a signalled completion found the answer there (or not): the lead's step
static __device__ __forceinline__ void hsa4j_r_tune_lead(hsa4j_r_cp& cp, bool there) {
    cp.first = 0;
    if (there) {
        hsa4j_u32 down = cp.look / 32;
        cp.lead = cp.lead > down ? cp.lead - down : 0;
    } else {
        hsa4j_u32 up = cp.lead + cp.look / 4;
        cp.lead = up < cp.look ? up : cp.look;
        cp.ph[HSA4J_R_PH_LEAD_MISSES]++;
    }
}

// reads ahead from cp.read: the headers of a window of slots (all issued before any is used: one PCIe
// round trip; slots 1..31 relaxed, slot 0 last with ld.acquire.sys), then, when more than the first
// is published, a fence (acquire for what the relaxed loads showed); a window of one packet (a round
// trip) has its acquire already and skips the fence (~0.6 us) unless the read index is a window
// behind. Returns how many consecutive published packets there are (0: nothing published at
// cp.read), whose bodies block 0 then loads into hsa4j_r_win (HSA4J_R_FETCH). Slots consumed since
// the last flush (cp.dirty) go back after the window's fence, which is also their release (one
// system-scope fence per window, not two), or from the second empty poll in a row, by a flush.
static __device__ hsa4j_u32 hsa4j_r_fetch(unsigned char* ring, hsa4j_u64 size, unsigned char* queue, unsigned char* ctl,
                                          hsa4j_r_cp& cp) {
    hsa4j_u64 t0 = hsa4j_r_clock();
    hsa4j_r_retire(ring, size, cp);   // on their way during the header round; the fence below releases them
    hsa4j_u32 w = size < HSA4J_R_WINDOW ? (hsa4j_u32) size : HSA4J_R_WINDOW;
    cp.loaded = 0;
    if (cp.quiet) {
        // what block 0 loaded in one PCIe round trip (HSA4J_R_LOOK): slot read's shadow and its header
        // (acquire). A batch shows as the copier's hint (SHADOW_MORE: it saw read+2 reserved too), or,
        // for one still being written (its doorbell, and so its copy, comes at the end), as a second
        // published packet in a row without a copy: either brings the 32-slot window back
        t0 = cp.ran;   // the look's start: its round trip counts
        cp.looked = 0;
        hsa4j_u32 h0 = cp.h0;
        // the line is packet read when every tag is read's low half and the id's high half is there
        hsa4j_u64 sw[HSA4J_R_SHADOW_WORDS];
#pragma unroll
        for (int k = 0; k < HSA4J_R_SHADOW_WORDS; k++) {
            sw[k] = hsa4j_r_look[k];
        }
        hsa4j_u32 tag = (hsa4j_u32) cp.read;
        hsa4j_u32 miss = ((hsa4j_u32) sw[HSA4J_R_SHADOW_ID_HIGH] ^ (hsa4j_u32) (cp.read >> 32)) & ~HSA4J_R_SHADOW_MORE;
#pragma unroll
        for (int k = 0; k < HSA4J_R_SHADOW_WORDS; k++) {
            miss |= (hsa4j_u32) (sw[k] >> 32) ^ tag;
        }
        // taken only with the header published: its acquire (the look's thread 0 is the CP) orders what
        // follows; the line needs none, its tags prove it whole (a line without its header: the next look)
        bool hit = HSA4J_R_USE_SHADOW && miss == 0;
        if (cp.first) {
            hsa4j_r_tune_lead(cp, (h0 & 0xFF) != HSA4J_T_INVALID);
        }
        if ((h0 & 0xFF) == HSA4J_T_INVALID) {
            hsa4j_u64 took = hsa4j_r_clock() - t0;
            cp.look = (hsa4j_u32) ((cp.look * 7ull + took) / 8);
            cp.ph[HSA4J_R_PH_POLLS]++;
            cp.ph[HSA4J_R_PH_POLL_CYCLES] += took;
            if (cp.dirty != 0 && ++cp.dirty > 2) {
                hsa4j_r_flush(ring, size, queue, ctl, cp);
            }
            return 0;
        }
        cp.misses = hit ? 0 : cp.misses + 1;
        cp.quiet = cp.misses < 2 && (!hit || ((hsa4j_u32) sw[HSA4J_R_SHADOW_ID_HIGH] & HSA4J_R_SHADOW_MORE) == 0);
        hsa4j_u64 t1 = hsa4j_r_clock();
        if (cp.dirty != 0 && cp.read - cp.published >= HSA4J_R_WINDOW) {
            hsa4j_fence_acq_rel_sys();
            hsa4j_r_publish(queue, ctl, cp);
        }
        cp.ph[HSA4J_R_PH_WINDOWS]++;
        cp.ph[HSA4J_R_PH_HEADER_CYCLES] += t1 - t0;
        cp.ph[HSA4J_R_PH_ACQUIRE_CYCLES] += hsa4j_r_clock() - t1;
        cp.base = cp.read;
        cp.cached = 1;
        if (hit) {
#pragma unroll
            for (int q = 0; q < HSA4J_R_SHADOW_PIECES; q++) {
                hsa4j_r_win[0][q] = (sw[2 * q] & 0xFFFFFFFFull) | (sw[2 * q + 1] << 32);
            }
            hsa4j_r_win[0][HSA4J_R_SHADOW_ID_LOW / 2] = 0;   // reserved2: 0 in every packet the host shadows
            cp.loaded = 1;
            cp.ph[HSA4J_R_PH_SHADOW_HITS]++;
        }
        return 1;
    }
    hsa4j_u32 h[HSA4J_R_WINDOW];
#pragma unroll
    for (int j = 1; j < HSA4J_R_WINDOW; j++) {
        h[j] = hsa4j_r_ld_relaxed_sys_u32(ring + ((cp.read + j) & (size - 1)) * HSA4J_P_SIZE);   // a ring under 32 slots repeats
    }
    h[0] = hsa4j_r_ld_acquire_sys_u32(ring + (cp.read & (size - 1)) * HSA4J_P_SIZE);   // last: orders only what follows
    hsa4j_u32 k = 0;
#pragma unroll
    for (int j = 0; j < HSA4J_R_WINDOW; j++) {
        if (k == (hsa4j_u32) j && (hsa4j_u32) j < w && (h[j] & 0xFF) != HSA4J_T_INVALID) {
            k++;
        }
    }
    cp.quiet = k <= 1;
    if (k == 0) {   // the clock is read after the branch on the loaded headers: their round trip counts
        cp.ph[HSA4J_R_PH_POLLS]++;
        cp.ph[HSA4J_R_PH_POLL_CYCLES] += hsa4j_r_clock() - t0;
        // the consumed slots go back while the queue is empty, from its second empty poll in a row on: a
        // packet that follows its predecessor's completion (a round trip) is not held up by this fence
        if (cp.dirty != 0 && ++cp.dirty > 2) {
            hsa4j_r_flush(ring, size, queue, ctl, cp);
        }
        return 0;
    }
    hsa4j_u64 t1 = hsa4j_r_clock();
    if (k > 1 || (cp.dirty != 0 && cp.read - cp.published >= HSA4J_R_WINDOW)) {
        hsa4j_fence_acq_rel_sys();   // acquire for the headers loaded relaxed; release for the slots consumed
        if (cp.dirty) {
            hsa4j_r_publish(queue, ctl, cp);
        }
    }
    hsa4j_u64 t2 = hsa4j_r_clock();
    cp.ph[HSA4J_R_PH_WINDOWS]++;
    cp.ph[HSA4J_R_PH_HEADER_CYCLES] += t1 - t0;
    cp.ph[HSA4J_R_PH_ACQUIRE_CYCLES] += t2 - t1;
    cp.base = cp.read;
    cp.cached = k;
    return k;
}

// decodes and validates the kernel dispatch p (8 words) into w; false (the error stored) when invalid
static __device__ bool hsa4j_r_decode(const hsa4j_u64* p, hsa4j_u32 word, hsa4j_u64 read, hsa4j_u64 program_key,
                                      hsa4j_r_work& w, unsigned char* ctl) {
    hsa4j_u64 q0 = p[0];   // header, setup, wg x, wg y
    hsa4j_u64 q1 = p[1];   // wg z, reserved, grid x
    hsa4j_u64 q2 = p[2];   // grid y, grid z
    hsa4j_u64 q3 = p[3];   // private, group segment
    hsa4j_u64 ko = p[4];
    hsa4j_u64 ka = p[5];
    hsa4j_u64 cs = p[HSA4J_P_COMPLETION / 8];
    hsa4j_u32 dims = (word >> 16) & 3;
    hsa4j_u32 wx = (hsa4j_u32) ((q0 >> 32) & 0xFFFF);
    hsa4j_u32 wy = (hsa4j_u32) ((q0 >> 48) & 0xFFFF);
    hsa4j_u32 wz = (hsa4j_u32) (q1 & 0xFFFF);
    hsa4j_u32 gx = (hsa4j_u32) (q1 >> 32);
    hsa4j_u32 gy = (hsa4j_u32) q2;
    hsa4j_u32 gz = (hsa4j_u32) (q2 >> 32);
    hsa4j_u32 group_bytes = (hsa4j_u32) (q3 >> 32);
    if (dims < 1) {
        hsa4j_r_fail(ctl, HSA4J_R_ERR_DIMENSIONS, dims, read);
        return false;
    }
    if ((dims < 2 && (wy != 1 || gy != 1)) || (dims < 3 && (wz != 1 || gz != 1))) {
        hsa4j_r_fail(ctl, HSA4J_R_ERR_DIMENSIONS, dims, read);
        return false;
    }
    hsa4j_u32 per = wx * wy;   // each <= 0xFFFF: no overflow in two factors
    if (per == 0 || wz == 0 || per > HSA4J_R_BLOCK || per * wz > HSA4J_R_BLOCK) {
        hsa4j_r_fail(ctl, HSA4J_R_ERR_WORKGROUP, per > HSA4J_R_BLOCK ? per : per * wz, read);
        return false;
    }
    if (gx == 0 || gy == 0 || gz == 0) {
        hsa4j_r_fail(ctl, HSA4J_R_ERR_GRID, 0, read);
        return false;
    }
    if (group_bytes != 0) {
        hsa4j_r_fail(ctl, HSA4J_R_ERR_GROUP_SEGMENT, group_bytes, read);
        return false;
    }
    if ((ko >> 32) != program_key || (ko & 0xFFFFFFFFull) >= HSA4J_RESIDENT_KERNEL_COUNT) {
        hsa4j_r_fail(ctl, HSA4J_R_ERR_KERNEL_OBJECT, (hsa4j_u32) ko, read);
        return false;
    }
    // 32-bit divisions only, and none for a size of 1 (the CP is one thread: every instruction on
    // this path is latency, ~3 ns each)
    hsa4j_u32 nx = wx == 1 ? gx : gx / wx + (gx % wx != 0);
    hsa4j_u32 ny = wy == 1 ? gy : gy / wy + (gy % wy != 0);
    hsa4j_u32 nz = wz == 1 ? gz : gz / wz + (gz % wz != 0);
    hsa4j_u64 total = (hsa4j_u64) nx * ny;
    if (nz != 1) {
        total *= nz;
    }
    if (total > 0xFFFFFFFFull) {
        hsa4j_r_fail(ctl, HSA4J_R_ERR_GRID, 1, read);
        return false;
    }
    w.linear = wy == 1 && wz == 1 && gy == 1 && gz == 1;
    w.command = HSA4J_R_RUN;
    w.kernel = (hsa4j_u32) ko;
    w.acquire_sys = ((word >> 9) & 3) == 2;
    w.release_sys = ((word >> 11) & 3) != 0;
    w.grid[0] = gx;
    w.grid[1] = gy;
    w.grid[2] = gz;
    w.wg[0] = wx;
    w.wg[1] = wy;
    w.wg[2] = wz;
    w.groups[0] = nx;
    w.groups[1] = ny;
    w.groups[2] = nz;
    w.total = (hsa4j_u32) total;
    w.kernarg = ka;
    w.completion = cs;
    return true;
}

// true when the dispatch p (8 words, header word `word`) is one work-item of a valid 1-dimensional
// dispatch: a grid and workgroup of 1 in every dimension, no group segment, a kernel of this program.
// A few word compares instead of decode's ~150 dependent instructions (the CP's take: 0.26 us); any
// other dispatch, a refused one included, goes through hsa4j_r_decode, which says why
static __device__ __forceinline__ bool hsa4j_r_single(const hsa4j_u64* p, hsa4j_u32 word, hsa4j_u64 program_key) {
    const hsa4j_u64 ones = 0x0000000100000001ull;   // two 32-bit fields of 1 (or wx, wy: 16-bit ones)
    hsa4j_u64 ko = p[4];
    return ((word >> 16) & 3) == 1
            && (p[0] >> 32) == 0x00010001ull      // workgroup x, y
            && p[1] == ones                       // workgroup z, reserved0 0, grid x
            && p[2] == ones                       // grid y, z
            && (p[3] >> 32) == 0                  // group segment bytes
            && (ko >> 32) == program_key && (ko & 0xFFFFFFFFull) < HSA4J_RESIDENT_KERNEL_COUNT;
}

// 1 when the barrier p (8 words) may complete, 0 while it waits
static __device__ int hsa4j_r_barrier_ready(const hsa4j_u64* p, bool and_) {
    hsa4j_u64 v[HSA4J_P_DEPS];
    for (int i = 0; i < HSA4J_P_DEPS; i++) {
        hsa4j_u64 h = p[HSA4J_P_DEP0 / 8 + i];
        v[i] = h != 0 ? hsa4j_r_ld_relaxed_sys_u64((const void*) h) : 0;
    }
    bool all = true;
    bool any = false;
    for (int i = 0; i < HSA4J_P_DEPS; i++) {
        if (p[HSA4J_P_DEP0 / 8 + i] == 0) {
            continue;
        }
        if (v[i] == 0) {
            any = true;
        } else {
            all = false;
        }
    }
    bool ok = and_ ? all : any;
    if (ok) {
        hsa4j_fence_acq_rel_sys();   // the acquire half of what the dependencies' completers released
    }
    return ok ? 1 : 0;
}

// the CP: runs barrier packets itself and returns the next dispatch in w, or EXIT (state stored)
static __device__ void hsa4j_r_next(unsigned char* ctl, unsigned char* queue, unsigned char* ring, hsa4j_u64 size,
                                    hsa4j_u64 idle_ns, hsa4j_u64 sleep_max_ns, hsa4j_u64 program_key,
                                    hsa4j_r_cp& cp, hsa4j_r_work& w) {
    if (!cp.looked) {   // back from running something (or the first call): a fresh idle period
        cp.idle_since = 0;   // read from the global timer only once the queue looks idle (a slow read)
        cp.nap = 0;
        cp.polls = 0;
    }
    for (;; cp.polls++) {
        // not again on the call that follows a look: that call goes on with the same iteration
        bool stop_check = !cp.looked && ((cp.polls & 15) == 15 || (++cp.served & 63) == 0);
        if (stop_check) {
            hsa4j_u64 t0 = hsa4j_r_clock();
            if (hsa4j_ld_acquire_sys_u32(ctl + HSA4J_R_CTL_STOP) != 0) {
                hsa4j_st_release_sys_u32(ctl + HSA4J_R_CTL_STATE, HSA4J_R_STATE_STOPPED);
                w.command = HSA4J_R_EXIT;
                return;
            }
            cp.ph[HSA4J_R_PH_STOP_CYCLES] += hsa4j_r_clock() - t0;   // after the branch: the load's round trip counts
        }
        if (cp.read - cp.base >= cp.cached) {
            cp.cached = 0;
            if (cp.quiet && !cp.looked) {
                // the consumed slots' INVALID and shadow stores first, before the look's loads (a ring
                // of 4 slots looks at the line it retires: one location, stored before the barrier)
                hsa4j_r_retire(ring, size, cp);
                if (cp.answer) {
                    hsa4j_r_lead(cp);
                }
                w.command = HSA4J_R_LOOK;   // block 0 loads slot read's shadow and header, then calls again
                w.kernarg = cp.read;
                return;
            }
            if (hsa4j_r_fetch(ring, size, queue, ctl, cp) != 0 && !cp.loaded) {   // also gives the consumed slots back
                w.command = HSA4J_R_FETCH;   // block 0 loads the bodies, then calls again
                w.total = cp.cached;
                w.kernarg = cp.base;
                return;
            }
        }
        if (cp.read - cp.base < cp.cached) {
            hsa4j_u32 j = (hsa4j_u32) (cp.read - cp.base);
            const hsa4j_u64* p = hsa4j_r_win[j];
            hsa4j_u32 word = (hsa4j_u32) p[0];   // the header as the body round loaded it (a published slot stays)
            hsa4j_u32 type = word & 0xFF;
            if (((word >> 9) & 3) == 3 || ((word >> 11) & 3) == 3) {
                hsa4j_r_fail(ctl, HSA4J_R_ERR_FENCE, word & 0xFFFF, cp.read);
                w.command = HSA4J_R_EXIT;
                return;
            }
            if (type == HSA4J_T_KERNEL_DISPATCH) {
                hsa4j_u64 t0 = hsa4j_r_clock();
                if (hsa4j_r_single(p, word, program_key)) {   // the CP runs it at once, nothing decoded
                    hsa4j_u64 t1 = hsa4j_r_clock();
                    cp.ph[HSA4J_R_PH_TAKE_CYCLES] += t1 - t0;
                    hsa4j_r_call_1d((hsa4j_u32) p[4], p[5], 0, 0, 0, 1, 1);   // kernel object's index, kernarg
                    cp.ph[HSA4J_R_PH_RUN_CYCLES] += hsa4j_r_clock() - t1;
                    cp.ph[HSA4J_R_PH_PACKETS]++;
                    hsa4j_r_complete(ctl, cp, p[HSA4J_P_COMPLETION / 8]);
                    cp.idle_since = 0;
                    cp.nap = 0;
                    continue;
                }
                if (hsa4j_r_decode(p, word, cp.read, program_key, w, ctl)) {
                    hsa4j_u64 t1 = hsa4j_r_clock();
                    cp.ph[HSA4J_R_PH_TAKE_CYCLES] += t1 - t0;
                    if (w.linear && w.grid[0] == 1) {   // one work-item: the CP runs it itself, no block barrier
                        hsa4j_r_call_linear(w, 0, 0, 0);
                        cp.ph[HSA4J_R_PH_RUN_CYCLES] += hsa4j_r_clock() - t1;
                        cp.ph[HSA4J_R_PH_PACKETS]++;
                        hsa4j_r_complete(ctl, cp, w.completion);
                        cp.idle_since = 0;
                        cp.nap = 0;
                        continue;
                    }
                } else {
                    w.command = HSA4J_R_EXIT;   // refused: left in the ring for the host
                }
                return;
            }
            if (type == HSA4J_T_BARRIER_AND || type == HSA4J_T_BARRIER_OR) {
                if (hsa4j_r_barrier_ready(p, type == HSA4J_T_BARRIER_AND)) {
                    hsa4j_r_complete(ctl, cp, p[HSA4J_P_COMPLETION / 8]);
                    cp.ph[HSA4J_R_PH_PACKETS]++;
                    cp.idle_since = 0;
                    cp.nap = 0;
                    continue;
                }
                if (cp.idle_since == 0) {
                    cp.idle_since = hsa4j_now_ns();
                } else if (hsa4j_now_ns() - cp.idle_since > idle_ns) {
                    // parks while the barrier waits: the host relaunches after a pause
                    hsa4j_st_release_sys_u32(ctl + HSA4J_R_CTL_STATE, HSA4J_R_STATE_WAITING);
                    w.command = HSA4J_R_EXIT;
                    return;
                }
            } else {
                hsa4j_r_fail(ctl, HSA4J_R_ERR_PACKET_TYPE, type, cp.read);
                w.command = HSA4J_R_EXIT;
                return;
            }
        } else if (cp.idle_since == 0) {
            cp.idle_since = hsa4j_now_ns();
        } else if (hsa4j_now_ns() - cp.idle_since > idle_ns) {
            // Dekker: PARKED, full fence, re-read the write index; the host stores the write index
            // before it reads our state (after the grid ended), so one of us sees the other
            hsa4j_st_release_sys_u32(ctl + HSA4J_R_CTL_STATE, HSA4J_R_STATE_PARKED);
            hsa4j_fence_sc_sys();
            if (hsa4j_ld_acquire_sys_u64(queue + HSA4J_Q_WRITE_INDEX) == cp.read) {
                w.command = HSA4J_R_EXIT;
                return;
            }
            hsa4j_st_release_sys_u32(ctl + HSA4J_R_CTL_STATE, HSA4J_R_STATE_RUNNING);
            cp.idle_since = hsa4j_now_ns();
            cp.nap = 0;
            continue;
        }
        if (cp.idle_since != 0 && hsa4j_now_ns() - cp.idle_since > HSA4J_R_SPIN_NS) {
            cp.nap = cp.nap == 0 ? 256 : (cp.nap * 2 > sleep_max_ns ? (hsa4j_u32) sleep_max_ns : cp.nap * 2);
            hsa4j_u64 t0 = hsa4j_r_clock();
            hsa4j_sleep_ns(cp.nap);
            cp.ph[HSA4J_R_PH_NAPS]++;
            cp.ph[HSA4J_R_PH_NAP_CYCLES] += hsa4j_r_clock() - t0;
        }
    }
}

// the processor; parameters are all 64-bit (CudaResidentProcessor passes them in this order)
extern "C" __global__ void __launch_bounds__(HSA4J_R_BLOCK) hsa4j_resident_processor(
        unsigned char* ctl, unsigned char* queue, unsigned char* ring, hsa4j_u64 size, hsa4j_r_mailbox* mb,
        hsa4j_u64 idle_ns, hsa4j_u64 base_generation, hsa4j_u64 sleep_max_ns, hsa4j_u64 program_key,
        unsigned char* shadow) {
    __shared__ hsa4j_r_work w;
    if (blockIdx.x != 0) {
        hsa4j_r_worker(mb, (hsa4j_u32) base_generation, &w);
        return;
    }
    hsa4j_u32 generation = (hsa4j_u32) base_generation;
    hsa4j_r_cp cp;
    if (threadIdx.x == 0) {
        for (int i = 0; i < HSA4J_R_PHASE_COUNT; i++) {
            cp.ph[i] = 0;
        }
        cp.ph[HSA4J_R_PH_CYCLES] = hsa4j_r_clock();   // the start, until the grid ends (in memory: no register held)
        cp.ph[HSA4J_R_PH_NANOS] = hsa4j_now_ns();
        cp.read = hsa4j_ld_acquire_sys_u64(queue + HSA4J_Q_READ_INDEX);
        cp.base = cp.read;
        cp.retired = cp.read;
        cp.published = cp.read;
        cp.cached = 0;
        cp.dirty = 0;
        cp.served = 0;
        cp.quiet = 1;
        cp.loaded = 0;
        cp.looked = 0;
        cp.misses = 0;
        cp.answer = 0;
        cp.first = 0;
        cp.lead = 0;
        cp.look = HSA4J_R_LOOK_GUESS;
        cp.done_at = 0;
        cp.shadow = shadow;
        hsa4j_st_release_sys_u32(ctl + HSA4J_R_CTL_STATE, HSA4J_R_STATE_RUNNING);
    }
    for (;;) {
        if (threadIdx.x == 0) {
            hsa4j_r_next(ctl, queue, ring, size, idle_ns, sleep_max_ns, program_key, cp, w);
            cp.ran = hsa4j_r_clock();
            if (w.command == HSA4J_R_RUN && w.total > 1 && gridDim.x > 1) {
                mb->work = w;
                mb->done = 0;
                hsa4j_st_release_gpu_u32(&mb->generation, ++generation);
            }
        }
        __syncthreads();
        if (w.command == HSA4J_R_LOOK) {
            // slot read's shadow line in one request (threads 0..7, 16 bytes each: one quarter-warp),
            // then the CP's load of the slot's header (acquire): every load issues before any value is
            // used, one PCIe round trip. Nothing more: a third line (slot read+2's header as a batch
            // hint) made looks 0.3 us longer and hits rarer. Block barriers, not warp ones: lanes waiting
            // in __syncwarp take the CP's issue slots (a look took 2.9 us instead of 1.5 that way)
            hsa4j_u64 a = 0;
            hsa4j_u64 b = 0;
            hsa4j_u64 slot = w.kernarg & (size - 1);
            hsa4j_u32 piece = threadIdx.x;
            if (piece < HSA4J_R_SHADOW_PIECES) {
                hsa4j_r_ld_relaxed_sys_v2_u64(shadow + hsa4j_r_piece(slot, piece), a, b);
            }
            if (threadIdx.x == 0) {
                cp.h0 = hsa4j_r_ld_acquire_sys_u32(ring + slot * HSA4J_P_SIZE);
                cp.looked = 1;
            }
            if (piece < HSA4J_R_SHADOW_PIECES) {
                hsa4j_r_look[2 * piece] = a;
                hsa4j_r_look[2 * piece + 1] = b;
            }
            __syncthreads();   // the line landed in shared memory before the CP reads it
            continue;
        }
        if (w.command == HSA4J_R_FETCH) {
            // after the CP's acquire fence and this barrier: 4 threads a packet, 16 bytes each
            if (threadIdx.x < 4 * w.total) {
                hsa4j_u32 j = threadIdx.x >> 2;
                hsa4j_u32 q = threadIdx.x & 3;
                const unsigned char* at = ring + ((w.kernarg + j) & (size - 1)) * HSA4J_P_SIZE + 16 * q;
                hsa4j_r_ld_relaxed_sys_v2_u64(at, hsa4j_r_win[j][2 * q], hsa4j_r_win[j][2 * q + 1]);
            }
            __syncthreads();   // the loads landed (stored to shared memory) before the CP reads them
            if (threadIdx.x == 0) {
                cp.ph[HSA4J_R_PH_BODY_CYCLES] += hsa4j_r_clock() - cp.ran;
            }
            continue;
        }
        if (w.command != HSA4J_R_RUN) {
            break;
        }
        hsa4j_r_run_groups(w);
        __syncthreads();
        if (threadIdx.x == 0) {
            if (w.total > 1 && gridDim.x > 1) {
                hsa4j_u32 nap = 32;
                while (hsa4j_ld_acquire_gpu_u32(&mb->done) != gridDim.x - 1) {
                    hsa4j_sleep_ns(nap);
                    if (nap < 256) {
                        nap <<= 1;
                    }
                }
            }
            cp.ph[HSA4J_R_PH_RUN_CYCLES] += hsa4j_r_clock() - cp.ran;
            cp.ph[HSA4J_R_PH_PACKETS]++;
            hsa4j_r_complete(ctl, cp, w.completion);
        }
        // no barrier here: the other threads read w only before the one above and next wait at the loop's
        // top, where the CP arrives after its next header round (the signal's stores on their way meanwhile)
    }
    if (threadIdx.x == 0) {
        if (gridDim.x > 1) {
            mb->work.command = HSA4J_R_EXIT;
            hsa4j_st_release_gpu_u32(&mb->generation, ++generation);
        }
        if (cp.dirty) {
            hsa4j_r_flush(ring, size, queue, ctl, cp);   // the host reads the read index once the grid ended
        }
        hsa4j_st_relaxed_sys_u64(ctl + HSA4J_R_CTL_GENERATION, generation);
        cp.ph[HSA4J_R_PH_CYCLES] = hsa4j_r_clock() - cp.ph[HSA4J_R_PH_CYCLES];
        cp.ph[HSA4J_R_PH_NANOS] = hsa4j_now_ns() - cp.ph[HSA4J_R_PH_NANOS];
        for (int i = 0; i < HSA4J_R_PHASE_COUNT; i++) {
            hsa4j_st_relaxed_sys_u64(ctl + HSA4J_R_CTL_PHASES + 8 * i, cp.ph[i]);
        }
        hsa4j_fence_sc_sys();
    }
}
