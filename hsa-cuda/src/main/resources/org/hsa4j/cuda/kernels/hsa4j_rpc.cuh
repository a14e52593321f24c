// hsa4j_rpc.cuh: the client side of hsa4j's RPC ports for CUDA kernels (issue 19 part 2).
//
// A CUDA kernel calls the host services a Java kernel calls (printf, host malloc/free, the syscalls)
// through the same port set in SVM (services module, org.hsa4j.services.rpc, layout in RpcLayout,
// protocol in docs/SERVICES.md). With a CUDA agent open, SVM is real-address memory registered with
// CUDA: the port set's host address is its device address. No includes: NVRTC compiles it without
// the toolkit's headers (CudaRpc.compile passes its directory as an include path); nvcc too:
//   nvcc -arch=sm_90 -ptx -I<dir of this file> -o hsa4j_rpc_kernels.ptx hsa4j_rpc_kernels.cu
//
// HOW A CALL GOES (one call per warp, as LLVM libc's GPU RPC batches):
//   The lanes that call together (__activemask() at the call) elect a leader (the lowest lane). The
//   leader locks a device port (its lock word in device memory, below), waits for the client's turn and cancels a call a timed-out caller
//   left half-way. Every lane writes its eight arguments into its own lane buffer (lane = %laneid,
//   the lane mask is the active mask), fences, and the warp syncs; the leader writes the OPEN packet
//   (opcode, lane mask, caller) and flips the client flag with st.release.sys. For a payload
//   (send_n: printf's format and arguments, open's path) the leader waits for each server packet
//   that asks for a chunk and every lane writes its share of the lane buffers. The leader waits for
//   the final packet with ld.acquire.sys, the warp syncs, every lane acquires the flag itself and
//   reads its results, and the leader unlocks the port. A warp holds one port per call; its lanes
//   never wait for another warp while holding it, so any number of warps progress through any
//   number of device ports (waiting warps hold nothing).
//
// THE PORT'S DEVICE SHADOW (what a call costs over PCIe):
//   Only GPU clients lock a device port and only they write its packet words, so neither needs to
//   live in host memory. Each device port has a 64-byte shadow in device memory (ctx->locks, one
//   table per port set and CUDA agent, CudaRpc.writeContext allocates it): the lock word and the
//   values of the port's OPCODE, LANE_MASK, CALLER_*, KIND last written. A call then costs:
//     lock       one L2 atomic (atom.acquire.gpu, ~0.3 us) instead of a PCIe atomic on host memory
//                (a non-posted round trip, >= 1 us); a warp's port search reads L2, not PCIe
//     packet     only the words that differ from the shadow (a warp repeating a call writes none),
//                then the flag flip with st.release.sys: one posted store (~0.6 us one-way), as the
//                ping-pong's answer; the host line holding the words stays in the host's caches
//     answer     acquire polls of SERVER_FLAG+STATUS (one PCIe read each), as the ping-pong's wait
//     unlock     one release store to L2 (st.release.gpu), not a posted store plus a system fence
//   so a no-op's round trip is the ping-pong's plus two L2 operations and the server's checks. The
//   lock hands the port between threads of one GPU, so gpu scope orders the holders (the PTX
//   model's causality is transitive: the server's answer, acquired at sys scope by one holder,
//   happens before the next holder's acquire at gpu scope). Hence one GPU per port set's device
//   ports: a second agent's context is refused.
//
// WHY EACH WORD IS SAFE ON A GPU WITHOUT HOST-NATIVE ATOMICS (H100 over PCIe:
// CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED = 0, so a host RMW and a GPU RMW on one word are
// not atomic with each other):
//   shadow lock (device mem) RMW (atom.or.gpu) by GPU clients only; the host never sees it. Bit 0:
//                            held; bit 1: the client flag its last holder left; bit 2: its call ended
//                            with the server's final packet in the client's turn (released with one
//                            release store), so the taker learns both from its fetch-or, with no read.
//                            The port's LOCK word in host memory is unused by GPU clients.
//   CLIENT_FLAG, KIND, OPCODE, LANE_MASK, CALLER_*   plain stores by the lock holder in the client's
//                            turn (the packet words only when the shadow says they changed); the
//                            server only reads them.
//   SERVER_FLAG, STATUS, SERVER_WATCH                plain stores by the server; the GPU only reads.
//   lane buffers             stores by whichever side has the turn; the flag flip (release) and its
//                            observation (acquire) order them.
//   pending bitmap, SET_SLEEPERS, SERVER_CLAIM, doorbell   host RMW only: the GPU never writes them.
//                            The server's device-port watcher (DevicePortWatcher) sees a device port
//                            on the server's turn and marks it pending for the GPU.
//   SET_* header             written once by the host before any kernel runs; the GPU reads.
//
// BOUNDED: every wait polls at most ctx->spin_limit times (with __nanosleep back-off up to 1 us),
// then the call ends with HSA4J_RPC_E_SPIN and the kernel goes on; a closed server ends waits with
// HSA4J_RPC_E_CLOSED. A call's result is its RpcStatus code (0 OK, > 0 the server's status) or a
// negative HSA4J_RPC_E_* code of this client; the syscall wrappers map failures to -errno.
//
// RULES: call from converged code if you can (divergent lanes make one call per converged group);
// never wait for another warp while a call is open; close the services only after the kernels ended.

#ifndef HSA4J_RPC_CUH
#define HSA4J_RPC_CUH

// ---- the layout: every value equals org.hsa4j.services.rpc.RpcLayout's (CudaRpcHeaderTest checks) ----
#define HSA4J_RPC_SET_MAGIC 0
#define HSA4J_RPC_SET_VERSION 4
#define HSA4J_RPC_SET_PORT_COUNT 8
#define HSA4J_RPC_SET_LANES 12
#define HSA4J_RPC_SET_DOORBELL 16
#define HSA4J_RPC_SET_STATE 24
#define HSA4J_RPC_SET_SLEEPERS 28
#define HSA4J_RPC_SET_PENDING_OFFSET 32
#define HSA4J_RPC_SET_PORTS_OFFSET 40
#define HSA4J_RPC_SET_PORT_STRIDE 48
#define HSA4J_RPC_SET_DEVICE_FIRST 56
#define HSA4J_RPC_SET_DEVICE_PORTS 60
#define HSA4J_RPC_SET_HEADER_BYTES 64
#define HSA4J_RPC_MAGIC_VALUE 0x52504334
#define HSA4J_RPC_VERSION_VALUE 6
#define HSA4J_RPC_STATE_RUNNING 0
#define HSA4J_RPC_STATE_CLOSED 1
#define HSA4J_RPC_CLIENT_FLAG 0
#define HSA4J_RPC_KIND 4
#define HSA4J_RPC_OPCODE 8
#define HSA4J_RPC_LANE_MASK 16
#define HSA4J_RPC_CALLER_DISPATCH 24
#define HSA4J_RPC_CALLER_PACKET 32
#define HSA4J_RPC_SERVER_PACKET 40
#define HSA4J_RPC_SERVER_FLAG 40
#define HSA4J_RPC_STATUS 44
#define HSA4J_RPC_SERVER_WATCH 48
#define HSA4J_RPC_CALLER_AGENT 56
#define HSA4J_RPC_RESERVED_LINE 64
#define HSA4J_RPC_LOCK 128
#define HSA4J_RPC_SERVER_CLAIM 192
#define HSA4J_RPC_PORT_HEADER_BYTES 256
#define HSA4J_RPC_KIND_OPEN 1
#define HSA4J_RPC_KIND_DATA 2
#define HSA4J_RPC_KIND_CANCEL 3
#define HSA4J_RPC_LANE_BYTES 64
#define HSA4J_RPC_LANE_WORDS 8
#define HSA4J_RPC_MAX_LANES 64
#define HSA4J_RPC_CHUNK_LENGTH_BYTES 8

// ---- a device port's shadow in device memory (CudaRpc.SHADOW_*; GPU clients alone read and write it) ----
#define HSA4J_RPC_SHADOW_LOCK 0
#define HSA4J_RPC_SHADOW_VALID 4
#define HSA4J_RPC_SHADOW_OPCODE 8
#define HSA4J_RPC_SHADOW_KIND 12
#define HSA4J_RPC_SHADOW_LANE_MASK 16
#define HSA4J_RPC_SHADOW_DISPATCH 24
#define HSA4J_RPC_SHADOW_PACKET 32
#define HSA4J_RPC_SHADOW_AGENT 40
#define HSA4J_RPC_SHADOW_BYTES 64

// ---- statuses (RpcStatus codes; FINAL_BIT marks the server's last packet) ----
#define HSA4J_RPC_FINAL_BIT 0x80000000u
#define HSA4J_RPC_CONTINUE_WORD 0
#define HSA4J_RPC_STATUS_OK 0
#define HSA4J_RPC_STATUS_UNKNOWN_OPCODE 1
#define HSA4J_RPC_STATUS_SERVICE_ERROR 2
#define HSA4J_RPC_STATUS_CANCELLED 3
#define HSA4J_RPC_STATUS_PROTOCOL_ERROR 4
#define HSA4J_RPC_STATUS_TIMEOUT 5
#define HSA4J_RPC_STATUS_ABORTED 6
#define HSA4J_RPC_STATUS_CLOSED 7
#define HSA4J_RPC_STATUS_OVERFLOW 8
#define HSA4J_RPC_STATUS_BAD_REQUEST 9
#define HSA4J_RPC_STATUS_BUSY 10

// ---- this client's own failures (negative, never a server status) ----
/** A wait polled ctx->spin_limit times: the host did not answer (or every device port stayed taken). */
#define HSA4J_RPC_E_SPIN (-1001)
/** The services closed while the call waited. */
#define HSA4J_RPC_E_CLOSED (-1002)
/** The port set is not one this header knows: bad magic or version, no device ports, fewer than 32 lanes, or no shadow table. */
#define HSA4J_RPC_E_LAYOUT (-1003)
/** A payload longer than the client sends (HSA4J_RPC_MAX_PAYLOAD). */
#define HSA4J_RPC_E_PAYLOAD (-1004)
#define HSA4J_RPC_MAX_PAYLOAD (1ull << 30)

// ---- opcodes (namespace << 16 | function: Opcodes, Syscall, MemoryOp, PrintfService) ----
#define HSA4J_OP_NOP 0x00000000u
#define HSA4J_OP_ECHO 0x00000001u
#define HSA4J_OP_SYS_OPEN 0x00010000u
#define HSA4J_OP_SYS_CLOSE 0x00010001u
#define HSA4J_OP_SYS_READ 0x00010002u
#define HSA4J_OP_SYS_WRITE 0x00010003u
#define HSA4J_OP_SYS_PREAD 0x00010004u
#define HSA4J_OP_SYS_PWRITE 0x00010005u
#define HSA4J_OP_SYS_CLOCK_GETTIME 0x00010009u
#define HSA4J_OP_SYS_GETPID 0x0001000bu
#define HSA4J_OP_MALLOC 0x00020000u
#define HSA4J_OP_FREE 0x00020001u
#define HSA4J_OP_CALLOC 0x00020002u
#define HSA4J_OP_PRINTF 0x00030000u

// ---- values the wrappers use (OpenFlags, Clocks, Errno, PrintfArgs) ----
#define HSA4J_O_WRONLY 1
#define HSA4J_O_RDWR 2
#define HSA4J_O_CREAT 0100
#define HSA4J_O_TRUNC 01000
#define HSA4J_CLOCK_REALTIME 0
#define HSA4J_CLOCK_MONOTONIC 1
#define HSA4J_EIO 5
#define HSA4J_ENOSYS 38
#define HSA4J_ETIMEDOUT 110
#define HSA4J_PRINTF_INTEGER 'I'
#define HSA4J_PRINTF_DOUBLE 'D'
#define HSA4J_PRINTF_STRING 'S'
/** Bytes of one printf's encoded format and arguments (in the calling thread's local memory). */
#ifndef HSA4J_PRINTF_MAX
#define HSA4J_PRINTF_MAX 512
#endif

/**
 * What a kernel needs to call, written by the host (CudaRpc.writeContext) from the port set's header:
 * 80 bytes. Copy it into a local at the kernel's start (hsa4j_rpc_ctx c = *ctx;) and pass &c, so a
 * call reads it from registers instead of host memory over PCIe.
 */
struct hsa4j_rpc_ctx {
    unsigned long long set;        // @0  SVM address of the port set (RpcLayout's set base)
    unsigned long long dispatch;   // @8  CALLER_DISPATCH of the calls (0: none; abort refuses by it)
    unsigned long long packet;     // @16 CALLER_PACKET of the calls
    unsigned int agent;            // @24 CALLER_AGENT: the CUDA agent's SVM index (its access rights)
    unsigned int version;          // @28 the set's layout version: must be HSA4J_RPC_VERSION_VALUE
    long long spin_limit;          // @32 polls of one wait before it gives up with HSA4J_RPC_E_SPIN
    unsigned long long ports;      // @40 SVM address of port 0
    unsigned long long stride;     // @48 bytes from one port to the next
    unsigned int device_first;     // @56 index of the first device port
    unsigned int device_ports;     // @60 number of device ports
    unsigned int lanes;            // @64 lane buffers of a port (at least 32)
    unsigned int reserved;         // @68
    unsigned long long locks;      // @72 device address of the device ports' shadows (HSA4J_RPC_SHADOW_BYTES each)
};

namespace hsa4j_rpc_detail {

typedef unsigned long long u64;
typedef unsigned int u32;

static __device__ __forceinline__ u32 ld_acquire_u32(u64 a) {
    u32 v;
    asm volatile("ld.acquire.sys.b32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
    return v;
}

static __device__ __forceinline__ u64 ld_acquire_u64(u64 a) {
    u64 v;
    asm volatile("ld.acquire.sys.b64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
    return v;
}

static __device__ __forceinline__ void st_release_u32(u64 a, u32 v) {
    asm volatile("st.release.sys.b32 [%0], %1;" :: "l"(a), "r"(v) : "memory");
}

/** Fetch-or with acquire at gpu scope (a shadow lock in device memory): the holder sees what the one before wrote. */
static __device__ __forceinline__ u32 or_acquire_gpu_u32(u64 a, u32 bits) {
    u32 old;
    asm volatile("atom.acquire.gpu.or.b32 %0, [%1], %2;" : "=r"(old) : "l"(a), "r"(bits) : "memory");
    return old;
}

/** Release store at gpu scope (a shadow lock): unlocks for the next holder on this GPU. */
static __device__ __forceinline__ void st_release_gpu_u32(u64 a, u32 v) {
    asm volatile("st.release.gpu.b32 [%0], %1;" :: "l"(a), "r"(v) : "memory");
}

// relaxed at system scope (volatile is ld/st.relaxed.sys in the PTX memory model): never a stale L1 line
static __device__ __forceinline__ u32 ld_u32(u64 a) { return *(volatile u32*) a; }
static __device__ __forceinline__ u64 ld_u64(u64 a) { return *(volatile u64*) a; }
static __device__ __forceinline__ void st_u32(u64 a, u32 v) { *(volatile u32*) a = v; }
static __device__ __forceinline__ void st_u64(u64 a, u64 v) { *(volatile u64*) a = v; }

static __device__ __forceinline__ void fence_sys() {
    asm volatile("fence.acq_rel.sys;" ::: "memory");
}

static __device__ __forceinline__ u32 lane_id() {
    u32 l;
    asm("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}

static __device__ __forceinline__ u32 lanes_below() {
    u32 m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

/** One poll's back-off: none for the first 64 polls, then __nanosleep doubling to 1 us. */
static __device__ __forceinline__ void backoff(long long polls, u32* ns) {
    if (polls > 64) {
        __nanosleep(*ns);
        if (*ns < 1024) {
            *ns <<= 1;
        }
    }
}

/** The call of one warp on one port, as the leader and the lanes see it. */
struct call {
    const hsa4j_rpc_ctx* ctx;
    u64 set;
    u64 port;        // address of the port's header
    u64 shadow;      // address of the port's shadow in device memory (leader's copy)
    u64 sh_mask;     // the shadow's words, read once when the port is locked (leader's copy)
    u64 sh_dispatch;
    u64 sh_packet;
    u32 sh_valid;
    u32 sh_opcode;
    u32 sh_kind;
    u32 sh_agent;
    u32 mask;        // calling lanes (lane mask of the OPEN packet)
    u32 leader;      // lowest calling lane
    u32 lane;
    u32 lanes;       // lane buffers of a port
    u32 flag;        // the client flag after the last post (leader's copy)
    u32 status;      // the status word of the server's last packet (leader's copy)
};

/**
 * Waits (leader) for the server flag to equal c->flag, with one acquire load of the 8 bytes that
 * hold SERVER_FLAG and STATUS (the server stores the status before it flips the flag with a
 * release, so the load that sees the flip sees the status: one PCIe read, not two). 0 with
 * c->status set, or HSA4J_RPC_E_SPIN / _CLOSED.
 */
static __device__ int await_turn(call* c) {
    long long polls = 0;
    u32 ns = 32;
    for (;;) {
        u64 both = ld_acquire_u64(c->port + HSA4J_RPC_SERVER_FLAG);
        if ((u32) both == c->flag) {
            c->status = (u32) (both >> 32);
            return 0;
        }
        if (++polls > c->ctx->spin_limit) {
            return HSA4J_RPC_E_SPIN;
        }
        if ((polls & 255) == 0 && ld_acquire_u32(c->set + HSA4J_RPC_SET_STATE) == HSA4J_RPC_STATE_CLOSED) {
            return HSA4J_RPC_E_CLOSED;
        }
        backoff(polls, &ns);
    }
}

/**
 * Reads the locked port's shadow into the leader's registers: independent loads from L2 after the
 * lock's acquire, so one L2 latency for all of them.
 */
static __device__ __forceinline__ void read_shadow(call* c) {
    c->sh_valid = ld_u32(c->shadow + HSA4J_RPC_SHADOW_VALID);
    c->sh_opcode = ld_u32(c->shadow + HSA4J_RPC_SHADOW_OPCODE);
    c->sh_kind = ld_u32(c->shadow + HSA4J_RPC_SHADOW_KIND);
    c->sh_agent = ld_u32(c->shadow + HSA4J_RPC_SHADOW_AGENT);
    c->sh_mask = ld_u64(c->shadow + HSA4J_RPC_SHADOW_LANE_MASK);
    c->sh_dispatch = ld_u64(c->shadow + HSA4J_RPC_SHADOW_DISPATCH);
    c->sh_packet = ld_u64(c->shadow + HSA4J_RPC_SHADOW_PACKET);
}

/** Stores a 32-bit packet word (leader) unless the shadow says the port holds it already; keeps the shadow. */
static __device__ __forceinline__ void put_u32(const call* c, u32 word, u32 shadow, u32* held, u32 v) {
    if (c->sh_valid == 0 || *held != v) {
        st_u32(c->port + word, v);
        st_u32(c->shadow + shadow, v);
        *held = v;
    }
}

/** Stores a 64-bit packet word (leader) unless the shadow says the port holds it already; keeps the shadow. */
static __device__ __forceinline__ void put_u64(const call* c, u32 word, u32 shadow, u64* held, u64 v) {
    if (c->sh_valid == 0 || *held != v) {
        st_u64(c->port + word, v);
        st_u64(c->shadow + shadow, v);
        *held = v;
    }
}

/** Hands the turn to the server (leader) with a packet of `kind`: the kind, then the flag flipped with a release store. */
static __device__ void post(call* c, u32 kind) {
    put_u32(c, HSA4J_RPC_KIND, HSA4J_RPC_SHADOW_KIND, &c->sh_kind, kind);
    c->flag ^= 1u;
    st_release_u32(c->port + HSA4J_RPC_CLIENT_FLAG, c->flag);
}

/** Checks the context (leader): 0, or HSA4J_RPC_E_LAYOUT. */
static __device__ int check_ctx(const hsa4j_rpc_ctx* ctx) {
    if (ctx->set == 0 || ctx->version != HSA4J_RPC_VERSION_VALUE || ctx->device_ports == 0 || ctx->lanes < 32
            || ctx->lanes > HSA4J_RPC_MAX_LANES || ctx->ports == 0 || ctx->spin_limit < 1 || ctx->locks == 0) {
        return HSA4J_RPC_E_LAYOUT;
    }
    return 0;
}

/**
 * Locks a device port (leader) starting at one chosen by the warp, waits for the client's turn and
 * cancels a call a caller left half-way (its wait gave up). 0 with c->port set, or a negative code.
 */
static __device__ int acquire(call* c) {
    const hsa4j_rpc_ctx* ctx = c->ctx;
    int bad = check_ctx(ctx);
    if (bad != 0) {
        return bad;
    }
    u32 count = ctx->device_ports;
    u64 first = ctx->ports + (u64) ctx->device_first * ctx->stride;
    u32 warp = ((blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x)
            * ((blockDim.x * blockDim.y * blockDim.z + 31) / 32)
            + ((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) / 32;
    u32 start = warp % count;
    long long polls = 0;
    u32 ns = 32;
    for (;;) {
        for (u32 i = 0; i < count; i++) {
            u32 p = start + i < count ? start + i : start + i - count;
            u64 port = first + (u64) p * ctx->stride;
            u64 shadow = ctx->locks + (u64) p * HSA4J_RPC_SHADOW_BYTES;
            // the warp's own port is tried at once (one atomic, the common case); the others are read
            // first, so a warp looking for a free port does not pile atomics onto taken ones
            if (i != 0 && (ld_u32(shadow + HSA4J_RPC_SHADOW_LOCK) & 1u) != 0) {
                continue;
            }
            u32 old = or_acquire_gpu_u32(shadow + HSA4J_RPC_SHADOW_LOCK, 1u);
            if ((old & 1u) == 0) {
                c->port = port;
                c->shadow = shadow;
                read_shadow(c);
                c->flag = (old >> 1) & 1u; // the client flag its last holder left: no read of CLIENT_FLAG
                if ((old & 4u) != 0) {
                    return 0; // its last call ended with a final packet in the client's turn: nothing to wait for
                }
                // a fire-and-forget call before may still be served: wait for the client's turn
                int s = await_turn(c);
                // a call left half-way (its caller's wait gave up): cancel it until the server's packet is final
                for (int round = 0; s == 0 && round < 16 && (c->status & HSA4J_RPC_FINAL_BIT) == 0; round++) {
                    post(c, HSA4J_RPC_KIND_CANCEL);
                    s = await_turn(c);
                }
                if (s == 0 && (c->status & HSA4J_RPC_FINAL_BIT) == 0) {
                    s = HSA4J_RPC_E_SPIN;
                }
                if (s != 0) {
                    st_release_gpu_u32(shadow + HSA4J_RPC_SHADOW_LOCK, c->flag << 1);
                }
                return s;
            }
        }
        // every port looked at counts as a poll, so the limit bounds the time however many ports there are
        polls += count;
        if (polls > ctx->spin_limit) {
            return HSA4J_RPC_E_SPIN;
        }
        if (ld_acquire_u32(ctx->set + HSA4J_RPC_SET_STATE) == HSA4J_RPC_STATE_CLOSED) {
            return HSA4J_RPC_E_CLOSED;
        }
        backoff(polls, &ns);
    }
}

/** Starts a call of the active lanes: the leader takes a port; every lane gets the same outcome. 0 or a negative code. */
static __device__ int begin(call* c, const hsa4j_rpc_ctx* ctx) {
    c->ctx = ctx;
    c->set = ctx->set;
    c->lanes = ctx->lanes;
    c->mask = __activemask();
    c->lane = lane_id();
    c->leader = __ffs(c->mask) - 1;
    c->port = 0;
    c->shadow = 0;
    c->flag = 0;
    c->status = 0;
    int s = 0;
    if (c->lane == c->leader) {
        s = acquire(c);
    }
    s = __shfl_sync(c->mask, s, c->leader);
    c->port = __shfl_sync(c->mask, c->port, c->leader);
    c->flag = __shfl_sync(c->mask, c->flag, c->leader);
    return s;
}

static __device__ __forceinline__ u64 lane_buffer(const call* c, u32 lane) {
    return c->port + HSA4J_RPC_PORT_HEADER_BYTES + (u64) lane * HSA4J_RPC_LANE_BYTES;
}

/**
 * Every lane has written what the server reads: each lane fences (system scope) and the warp
 * syncs, so the leader's release store that follows orders all lanes' writes (its own writes it
 * orders itself: a lone caller skips the fence).
 */
static __device__ __forceinline__ void lanes_written(const call* c) {
    if (c->mask != (1u << c->leader)) {
        fence_sys();
    }
    __syncwarp(c->mask);
}

/**
 * Sends the OPEN packet (leader; lanes' arguments already written): the header words that differ
 * from the port's shadow, then the flip. The shadow is valid from here on (every word written or equal).
 */
static __device__ void open_packet(call* c, u32 opcode) {
    if (c->lane == c->leader) {
        put_u32(c, HSA4J_RPC_OPCODE, HSA4J_RPC_SHADOW_OPCODE, &c->sh_opcode, opcode);
        put_u64(c, HSA4J_RPC_LANE_MASK, HSA4J_RPC_SHADOW_LANE_MASK, &c->sh_mask, (u64) c->mask);
        put_u64(c, HSA4J_RPC_CALLER_DISPATCH, HSA4J_RPC_SHADOW_DISPATCH, &c->sh_dispatch, c->ctx->dispatch);
        put_u64(c, HSA4J_RPC_CALLER_PACKET, HSA4J_RPC_SHADOW_PACKET, &c->sh_packet, c->ctx->packet);
        put_u32(c, HSA4J_RPC_CALLER_AGENT, HSA4J_RPC_SHADOW_AGENT, &c->sh_agent, c->ctx->agent);
        post(c, HSA4J_RPC_KIND_OPEN);
        if (c->sh_valid == 0) {
            st_u32(c->shadow + HSA4J_RPC_SHADOW_VALID, 1u);
            c->sh_valid = 1;
        }
    }
    c->flag = __shfl_sync(c->mask, c->flag, c->leader);
}

/**
 * Waits for the server's next packet (leader) and shares its status word; every other lane then
 * acquires the flag itself, so its reads of the lane buffers (and of memory the service wrote, a
 * pread's bytes) see the server's writes. Returns the status word, or a negative code (HSA4J_RPC_E_*).
 */
static __device__ long long await_packet(call* c) {
    long long word = 0;
    if (c->lane == c->leader) {
        int s = await_turn(c);
        word = s != 0 ? (long long) s : (long long) c->status;
    }
    word = __shfl_sync(c->mask, word, c->leader);
    if (word >= 0 && c->lane != c->leader) {
        ld_acquire_u32(c->port + HSA4J_RPC_SERVER_FLAG);
    }
    return word;
}

/**
 * Ends the call: syncs the lanes (all done with the lane buffers), then the leader unlocks the port
 * with a release store of the lock word: its client flag in bit 1 and, in bit 2, whether the call
 * ended with the server's final packet and nothing posted after it (the next taker need not wait).
 */
static __device__ void end(call* c, bool clean) {
    __syncwarp(c->mask);
    if (c->lane == c->leader) {
        st_release_gpu_u32(c->shadow + HSA4J_RPC_SHADOW_LOCK, (c->flag << 1) | (clean ? 4u : 0u));
    }
    __syncwarp(c->mask);
}

/** Writes chunk `k` of this lane's payload into its region of the lane buffers (see RpcCall.writeChunk). */
static __device__ void write_chunk(u64 region, u32 chunk, u64 k, const unsigned char* data, u64 len) {
    u64 from, to, dst;
    if (k == 0) {
        st_u64(region, len);
        from = 0;
        to = len < chunk - 8 ? len : chunk - 8;
        dst = region + 8;
    } else {
        from = (chunk - 8) + (k - 1) * chunk;
        to = len < from + chunk ? len : from + chunk;
        dst = region;
    }
    for (u64 i = from; i < to; i += 8) {
        u64 w = 0;
        for (u32 b = 0; b < 8 && i + b < to; b++) {
            w |= (u64) data[i + b] << (8 * b);
        }
        st_u64(dst + (i - from), w);
    }
}

/**
 * One call of the active lanes: this lane's first `in` arguments go from `inout`, and after an OK
 * its first `out` results come back into it (a no-op moves none: every word is a PCIe transfer).
 * With `with_payload` each lane also sends `len` bytes at `payload` with send_n after the OPEN
 * packet. Returns the status: 0 OK, > 0 an RpcStatus code, < 0 HSA4J_RPC_E_*.
 */
static __device__ int invoke(const hsa4j_rpc_ctx* ctx, u32 opcode, u64 inout[8], int in, int out, const void* payload,
                             u64 len, bool with_payload) {
    call c;
    int s = begin(&c, ctx);
    if (s != 0) {
        return s;
    }
    u64 buf = lane_buffer(&c, c.lane);
    for (int i = 0; i < in && i < 8; i++) {
        st_u64(buf + 8 * i, inout[i]);
    }
    lanes_written(&c);
    open_packet(&c, opcode);
    int status = 0;
    bool done = false;
    bool clean = false; // the server's final packet came and nothing was posted after it
    if (with_payload) {
        u32 active = __popc(c.mask);
        u32 chunk = (c.lanes / active) * HSA4J_RPC_LANE_BYTES;
        u32 rank = __popc(c.mask & lanes_below());
        u64 region = c.port + HSA4J_RPC_PORT_HEADER_BYTES + (u64) rank * chunk;
        u64 mine = len > HSA4J_RPC_MAX_PAYLOAD ? 0 : len;
        u64 need = (mine + HSA4J_RPC_CHUNK_LENGTH_BYTES + chunk - 1) / chunk;
        u32 packets = __reduce_max_sync(c.mask, (u32) (need < 1 ? 1 : need));
        for (u32 k = 0; k < packets; k++) {
            long long word = await_packet(&c);
            if (word < 0) {
                status = (int) word;
                done = true;
                break;
            }
            if ((word & HSA4J_RPC_FINAL_BIT) != 0) {
                // the service ended early: its status, or PROTOCOL_ERROR when it says OK
                u32 code = (u32) word & ~HSA4J_RPC_FINAL_BIT;
                status = code == HSA4J_RPC_STATUS_OK ? HSA4J_RPC_STATUS_PROTOCOL_ERROR : (int) code;
                done = true;
                clean = true;
                break;
            }
            write_chunk(region, chunk, k, (const unsigned char*) payload, mine);
            lanes_written(&c);
            if (c.lane == c.leader) {
                post(&c, HSA4J_RPC_KIND_DATA);
            }
            c.flag = __shfl_sync(c.mask, c.flag, c.leader);
        }
    }
    if (!done) {
        long long word = await_packet(&c);
        if (word < 0) {
            status = (int) word;
        } else if ((word & HSA4J_RPC_FINAL_BIT) == 0) {
            // the service wants more than this client sends: cancel (the next taker of the port finishes it)
            if (c.lane == c.leader) {
                post(&c, HSA4J_RPC_KIND_CANCEL);
            }
            status = HSA4J_RPC_STATUS_PROTOCOL_ERROR;
        } else {
            clean = true;
            status = (int) ((u32) word & ~HSA4J_RPC_FINAL_BIT);
            if (status == HSA4J_RPC_STATUS_OK) {
                for (int i = 0; i < out && i < 8; i++) {
                    inout[i] = ld_u64(buf + 8 * i);
                }
            }
        }
    }
    if (len > HSA4J_RPC_MAX_PAYLOAD && status == 0) {
        status = HSA4J_RPC_E_PAYLOAD;
    }
    end(&c, clean);
    return status;
}

static __device__ __forceinline__ long long syscall_result(int status, const u64 inout[8]) {
    if (status == HSA4J_RPC_STATUS_OK) {
        return (long long) inout[0];
    }
    return status == HSA4J_RPC_STATUS_UNKNOWN_OPCODE ? -HSA4J_ENOSYS
            : status == HSA4J_RPC_STATUS_TIMEOUT ? -HSA4J_ETIMEDOUT : -HSA4J_EIO;
}

static __device__ __forceinline__ u64 c_strlen(const char* s) {
    u64 n = 0;
    while (s[n] != 0) {
        n++;
    }
    return n;
}

// ---- printf's wire format (PrintfArgs): u32 format length | format | u32 count | tagged arguments ----
struct printf_buf {
    unsigned char b[HSA4J_PRINTF_MAX];
    u32 n;
    u32 count;
    bool overflow;
};

static __device__ __forceinline__ void put_byte(printf_buf* p, unsigned char v) {
    if (p->n < HSA4J_PRINTF_MAX) {
        p->b[p->n++] = v;
    } else {
        p->overflow = true;
    }
}

static __device__ __forceinline__ void put_u32(printf_buf* p, u32 v) {
    for (int i = 0; i < 4; i++) {
        put_byte(p, (unsigned char) (v >> (8 * i)));
    }
}

static __device__ __forceinline__ void put_u64(printf_buf* p, u64 v) {
    for (int i = 0; i < 8; i++) {
        put_byte(p, (unsigned char) (v >> (8 * i)));
    }
}

static __device__ __forceinline__ void put_string(printf_buf* p, const char* s) {
    u64 n = s == 0 ? 0 : c_strlen(s);
    put_u32(p, (u32) n);
    for (u64 i = 0; i < n; i++) {
        put_byte(p, (unsigned char) s[i]);
    }
}

static __device__ __forceinline__ void put_integer(printf_buf* p, long long v) {
    put_byte(p, HSA4J_PRINTF_INTEGER);
    put_u64(p, (u64) v);
    p->count++;
}

static __device__ __forceinline__ void put_arg(printf_buf* p, int v) { put_integer(p, v); }
static __device__ __forceinline__ void put_arg(printf_buf* p, unsigned int v) { put_integer(p, (long long) v); }
static __device__ __forceinline__ void put_arg(printf_buf* p, long v) { put_integer(p, v); }
static __device__ __forceinline__ void put_arg(printf_buf* p, unsigned long v) { put_integer(p, (long long) v); }
static __device__ __forceinline__ void put_arg(printf_buf* p, long long v) { put_integer(p, v); }
static __device__ __forceinline__ void put_arg(printf_buf* p, unsigned long long v) { put_integer(p, (long long) v); }
static __device__ __forceinline__ void put_arg(printf_buf* p, char v) { put_integer(p, v); }
static __device__ __forceinline__ void put_arg(printf_buf* p, signed char v) { put_integer(p, v); }
static __device__ __forceinline__ void put_arg(printf_buf* p, unsigned char v) { put_integer(p, v); }
static __device__ __forceinline__ void put_arg(printf_buf* p, short v) { put_integer(p, v); }
static __device__ __forceinline__ void put_arg(printf_buf* p, unsigned short v) { put_integer(p, v); }
static __device__ __forceinline__ void put_arg(printf_buf* p, bool v) { put_integer(p, v ? 1 : 0); }

static __device__ __forceinline__ void put_arg(printf_buf* p, double v) {
    put_byte(p, HSA4J_PRINTF_DOUBLE);
    put_u64(p, (u64) __double_as_longlong(v));
    p->count++;
}

static __device__ __forceinline__ void put_arg(printf_buf* p, float v) { put_arg(p, (double) v); }

static __device__ __forceinline__ void put_arg(printf_buf* p, const char* s) {
    put_byte(p, HSA4J_PRINTF_STRING);
    put_string(p, s);
    p->count++;
}

static __device__ __forceinline__ void put_arg(printf_buf* p, char* s) { put_arg(p, (const char*) s); }

static __device__ __forceinline__ void put_args(printf_buf*) {
}

template <typename T, typename... R>
static __device__ __forceinline__ void put_args(printf_buf* p, T first, R... rest) {
    put_arg(p, first);
    put_args(p, rest...);
}

} // namespace hsa4j_rpc_detail

// ---- the calls (each is warp-collective over the lanes that make it; every lane gets its own result) ----

/** A call of `opcode` with this lane's eight arguments in `inout`, results back in it. Status: 0 OK, > 0 RpcStatus, < 0 HSA4J_RPC_E_*. */
static __device__ int hsa4j_rpc_call(const hsa4j_rpc_ctx* ctx, unsigned int opcode, unsigned long long inout[8]) {
    return hsa4j_rpc_detail::invoke(ctx, opcode, inout, 8, 8, 0, 0, false);
}

/** Like hsa4j_rpc_call, then send_n of `len` bytes at `payload` from this lane. */
static __device__ int hsa4j_rpc_call_send(const hsa4j_rpc_ctx* ctx, unsigned int opcode, unsigned long long inout[8],
                                          const void* payload, unsigned long long len) {
    return hsa4j_rpc_detail::invoke(ctx, opcode, inout, 8, 8, payload, len, true);
}

/** The core no-op (the round-trip probe): its status. Moves no argument or result word. */
static __device__ int hsa4j_nop(const hsa4j_rpc_ctx* ctx) {
    unsigned long long io[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    return hsa4j_rpc_detail::invoke(ctx, HSA4J_OP_NOP, io, 0, 0, 0, 0, false);
}

/** getpid(): the host process id, or -errno. */
static __device__ long long hsa4j_getpid(const hsa4j_rpc_ctx* ctx) {
    unsigned long long io[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int s = hsa4j_rpc_detail::invoke(ctx, HSA4J_OP_SYS_GETPID, io, 0, 1, 0, 0, false);
    return hsa4j_rpc_detail::syscall_result(s, io);
}

/** clock_gettime(clock) in nanoseconds, or -errno. */
static __device__ long long hsa4j_clock_gettime_ns(const hsa4j_rpc_ctx* ctx, int clock) {
    unsigned long long io[8] = {(unsigned long long) clock, 0, 0, 0, 0, 0, 0, 0};
    int s = hsa4j_rpc_detail::invoke(ctx, HSA4J_OP_SYS_CLOCK_GETTIME, io, 2, 3, 0, 0, false);
    long long r = hsa4j_rpc_detail::syscall_result(s, io);
    return r < 0 ? r : (long long) io[1] * 1000000000ll + (long long) io[2];
}

/** open(path, flags, mode): a new fd, or -errno; the path goes with send_n. */
static __device__ long long hsa4j_open(const hsa4j_rpc_ctx* ctx, const char* path, int flags, int mode) {
    unsigned long long io[8] = {(unsigned long long) flags, (unsigned long long) mode, 0, 0, 0, 0, 0, 0};
    int s = hsa4j_rpc_detail::invoke(ctx, HSA4J_OP_SYS_OPEN, io, 2, 1, path, hsa4j_rpc_detail::c_strlen(path), true);
    return hsa4j_rpc_detail::syscall_result(s, io);
}

/** close(fd): 0, or -errno. */
static __device__ long long hsa4j_close(const hsa4j_rpc_ctx* ctx, long long fd) {
    unsigned long long io[8] = {(unsigned long long) fd, 0, 0, 0, 0, 0, 0, 0};
    int s = hsa4j_rpc_detail::invoke(ctx, HSA4J_OP_SYS_CLOSE, io, 1, 1, 0, 0, false);
    return hsa4j_rpc_detail::syscall_result(s, io);
}

/** pwrite(fd, buffer, count, offset) from SVM at `buffer`: bytes written, or -errno. */
static __device__ long long hsa4j_pwrite(const hsa4j_rpc_ctx* ctx, long long fd, const void* buffer,
                                         unsigned long long count, long long offset) {
    unsigned long long io[8] = {(unsigned long long) fd, (unsigned long long) buffer, count,
                                (unsigned long long) offset, 0, 0, 0, 0};
    int s = hsa4j_rpc_detail::invoke(ctx, HSA4J_OP_SYS_PWRITE, io, 4, 1, 0, 0, false);
    return hsa4j_rpc_detail::syscall_result(s, io);
}

/** pread(fd, buffer, count, offset) into SVM at `buffer`: bytes read, or -errno; the bytes are visible to this thread on return. */
static __device__ long long hsa4j_pread(const hsa4j_rpc_ctx* ctx, long long fd, void* buffer,
                                        unsigned long long count, long long offset) {
    unsigned long long io[8] = {(unsigned long long) fd, (unsigned long long) buffer, count,
                                (unsigned long long) offset, 0, 0, 0, 0};
    int s = hsa4j_rpc_detail::invoke(ctx, HSA4J_OP_SYS_PREAD, io, 4, 1, 0, 0, false);
    return hsa4j_rpc_detail::syscall_result(s, io);
}

/** Host malloc over RPC: SVM memory valid on the host and in every kernel, or null. */
static __device__ void* hsa4j_malloc(const hsa4j_rpc_ctx* ctx, unsigned long long bytes) {
    unsigned long long io[8] = {bytes, 0, 0, 0, 0, 0, 0, 0};
    int s = hsa4j_rpc_detail::invoke(ctx, HSA4J_OP_MALLOC, io, 1, 1, 0, 0, false);
    return s == HSA4J_RPC_STATUS_OK ? (void*) io[0] : (void*) 0;
}

/** Host calloc over RPC (zeroed), or null. */
static __device__ void* hsa4j_calloc(const hsa4j_rpc_ctx* ctx, unsigned long long bytes) {
    unsigned long long io[8] = {bytes, 0, 0, 0, 0, 0, 0, 0};
    int s = hsa4j_rpc_detail::invoke(ctx, HSA4J_OP_CALLOC, io, 1, 1, 0, 0, false);
    return s == HSA4J_RPC_STATUS_OK ? (void*) io[0] : (void*) 0;
}

/** Host free over RPC: HeapStatus (0 OK, < 0 double free, foreign or interior pointer; -6 when the call failed). */
static __device__ int hsa4j_free(const hsa4j_rpc_ctx* ctx, void* p) {
    unsigned long long io[8] = {(unsigned long long) p, 0, 0, 0, 0, 0, 0, 0};
    int s = hsa4j_rpc_detail::invoke(ctx, HSA4J_OP_FREE, io, 1, 1, 0, 0, false);
    return s == HSA4J_RPC_STATUS_OK ? (int) (long long) io[0] : -6;
}

/**
 * printf(format, args...) formatted on the host (C formats, PrintfService): one unbroken sink write
 * per call; waits until it is written. Bytes written, or -1 (also when the encoded call passes
 * HSA4J_PRINTF_MAX bytes). Arguments: integers, bool, char, float, double, C strings.
 */
template <typename... A>
static __device__ int hsa4j_printf(const hsa4j_rpc_ctx* ctx, const char* format, A... args) {
    hsa4j_rpc_detail::printf_buf p;
    p.n = 0;
    p.count = 0;
    p.overflow = false;
    hsa4j_rpc_detail::put_string(&p, format);
    unsigned int at = p.n;
    hsa4j_rpc_detail::put_u32(&p, 0);
    hsa4j_rpc_detail::put_args(&p, args...);
    bool overflow = p.overflow;
    if (overflow) {
        // every calling lane takes part in the warp's call: an overflowing one prints why instead
        p.n = 0;
        p.count = 0;
        p.overflow = false;
        hsa4j_rpc_detail::put_string(&p, "hsa4j_printf: format and arguments over HSA4J_PRINTF_MAX bytes\n");
        at = p.n;
        hsa4j_rpc_detail::put_u32(&p, 0);
    }
    for (unsigned int i = 0; i < 4; i++) {
        p.b[at + i] = (unsigned char) (p.count >> (8 * i));
    }
    unsigned long long io[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int s = hsa4j_rpc_detail::invoke(ctx, HSA4J_OP_PRINTF, io, 0, 1, p.b, p.n, true);
    return s == HSA4J_RPC_STATUS_OK && !overflow ? (int) (long long) io[0] : -1;
}

#endif
