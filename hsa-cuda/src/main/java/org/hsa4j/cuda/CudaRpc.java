package org.hsa4j.cuda;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.hsa4j.memory.Svm;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Host services from CUDA kernels (issue 19 part 2): the shipped client header
 * {@code hsa4j_rpc.cuh}, the calling context a kernel gets, and NVRTC compilation with the header on
 * the include path. The protocol and why each port word is safe on a GPU without host-native
 * atomics are in the header's opening comment; the ports are the services module's device ports
 * ({@code ServicesConfig.devicePorts}), which this module does not depend on: a context names the
 * port set by its SVM address.
 */
public final class CudaRpc {
    /** The client header, a class-path resource beside hsa4j's kernels. */
    public static final String HEADER = "org/hsa4j/cuda/kernels/hsa4j_rpc.cuh";
    /** File name kernels include: {@code #include "hsa4j_rpc.cuh"}. */
    public static final String HEADER_NAME = "hsa4j_rpc.cuh";
    /** The GPU heap for CUDA kernels (its metadata in device memory, refilled over RPC), beside the client header. */
    public static final String HEAP_HEADER = "org/hsa4j/cuda/kernels/hsa4j_gheap.cuh";
    /** File name kernels include: {@code #include "hsa4j_gheap.cuh"}. */
    public static final String HEAP_HEADER_NAME = "hsa4j_gheap.cuh";
    /** Bytes of a GPU heap's metadata ({@code HSA4J_GHEAP_BYTES}: 192-byte header, 1024 chunk descriptors of 576 bytes). */
    public static final long HEAP_BYTES = 192 + 1024 * 576;
    /** The kernels that call host services, built to PTX with nvcc from {@code hsa4j_rpc_kernels.cu}. */
    public static final String KERNELS_PTX = "org/hsa4j/cuda/kernels/hsa4j_rpc_kernels.ptx";
    /** Their CUDA C source. */
    public static final String KERNELS_CU = "org/hsa4j/cuda/kernels/hsa4j_rpc_kernels.cu";

    /** {@code hsa4j_rpc_ctx}: u64 SVM address of the port set. */
    public static final long CTX_SET = 0;
    /** u64 identity of the calling dispatch (CALLER_DISPATCH; 0 for none). */
    public static final long CTX_DISPATCH = 8;
    /** u64 packet id of the calling dispatch (CALLER_PACKET). */
    public static final long CTX_PACKET = 16;
    /** u32 index of the calling agent in SVM access masks (CALLER_AGENT). */
    public static final long CTX_AGENT = 24;
    /** u32 the set's layout version (RpcLayout.VERSION_VALUE): the kernel checks it against the header's. */
    public static final long CTX_VERSION = 28;
    /** i64 polls of one wait before the kernel's call gives up with {@code HSA4J_RPC_E_SPIN}. */
    public static final long CTX_SPIN_LIMIT = 32;
    /** u64 SVM address of port 0. */
    public static final long CTX_PORTS = 40;
    /** u64 bytes from one port to the next. */
    public static final long CTX_STRIDE = 48;
    /** u32 index of the first device port. */
    public static final long CTX_DEVICE_FIRST = 56;
    /** u32 number of device ports. */
    public static final long CTX_DEVICE_PORTS = 60;
    /** u32 lane buffers of a port. */
    public static final long CTX_LANES = 64;
    /** u64 device address of the device ports' shadows ({@link #SHADOW_BYTES} each, see the header's "device shadow"). */
    public static final long CTX_LOCKS = 72;
    /** Bytes of a context. */
    public static final long CTX_BYTES = 80;

    /** A device port's shadow in device memory: u32 lock word (held, client flag, ended clean). */
    public static final long SHADOW_LOCK = 0;
    /** u32 1 once the shadow's packet words equal the port's. */
    public static final long SHADOW_VALID = 4;
    /** u32 the port's OPCODE as last written. */
    public static final long SHADOW_OPCODE = 8;
    /** u32 the port's KIND as last written. */
    public static final long SHADOW_KIND = 12;
    /** u64 the port's LANE_MASK as last written. */
    public static final long SHADOW_LANE_MASK = 16;
    /** u64 the port's CALLER_DISPATCH as last written. */
    public static final long SHADOW_DISPATCH = 24;
    /** u64 the port's CALLER_PACKET as last written. */
    public static final long SHADOW_PACKET = 32;
    /** u32 the port's CALLER_AGENT as last written. */
    public static final long SHADOW_AGENT = 40;
    /** Bytes of one shadow: a line of its own, so warps locking neighbouring ports do not share one. */
    public static final long SHADOW_BYTES = 64;
    /**
     * Where the host marks the set its shadow table belongs to: a random word at this offset of the
     * first device port's LOCK line, host memory no client touches (GPU clients lock the shadow, host
     * clients lock only host ports). A new set at a freed set's address is zeroed, so it gets a table
     * of its own instead of the old one's stale lock words.
     */
    static final long TABLE_TOKEN = 128 + 8; // RpcLayout.LOCK + 8
    /** Default spin limit: polls back off to 1 us, so a host that never answers ends a wait within tens of seconds. */
    public static final long DEFAULT_SPIN_LIMIT = 20_000_000L;

    // the set header's fields the context copies (RpcLayout's offsets: CudaRpcHeaderTest checks the header against it)
    private static final long SET_MAGIC = 0;
    private static final long SET_VERSION = 4;
    private static final long SET_LANES = 12;
    private static final long SET_PORTS_OFFSET = 40;
    private static final long SET_PORT_STRIDE = 48;
    private static final long SET_DEVICE_FIRST = 56;
    private static final long SET_DEVICE_PORTS = 60;
    private static final int MAGIC_VALUE = 0x52504334;
    /** The layout version hsa4j_rpc.cuh speaks ({@code HSA4J_RPC_VERSION_VALUE}). */
    public static final int VERSION = 6;

    /** {@code HSA4J_RPC_E_SPIN}: a wait passed its spin limit. */
    public static final int E_SPIN = -1001;
    /** {@code HSA4J_RPC_E_CLOSED}: the services closed while the call waited. */
    public static final int E_CLOSED = -1002;
    /** {@code HSA4J_RPC_E_LAYOUT}: the port set is not one the header knows, has no device ports or fewer than 32 lanes. */
    public static final int E_LAYOUT = -1003;
    /** {@code HSA4J_RPC_E_PAYLOAD}: a payload past the client's limit. */
    public static final int E_PAYLOAD = -1004;

    private static Path includeDir;
    /** The shadow table of each port set (by SVM address) that a context was written for. */
    private static final Map<Long, ShadowTable> TABLES = new HashMap<>();

    /** One port set's device-port shadows on one CUDA agent, and the token marking that set. */
    private record ShadowTable(CudaAgent agent, CudaBuffer buffer, long token) {
    }

    private CudaRpc() {
    }

    /**
     * A calling context for {@code agent}'s kernels on the port set at {@code set}, in the agent's
     * SVM pool, with {@link #DEFAULT_SPIN_LIMIT}: its SVM address (see {@link #writeContext}).
     *
     * @throws HsaException as {@link #writeContext}
     */
    public static long newContext(CudaAgent agent, long set) {
        long address = agent.svmPool().allocate(CTX_BYTES);
        writeContext(agent.runtime().svm(), address, set, agent, DEFAULT_SPIN_LIMIT);
        return address;
    }

    /**
     * Writes a calling context at SVM address {@code address} ({@link #CTX_BYTES} bytes) through
     * {@code svm}: the port set at {@code set} (its device ports, lanes and layout copied from its
     * header), the calling agent {@code agent}'s index, no dispatch identity, and {@code spinLimit}
     * polls per wait.
     *
     * The first context for a set allocates its device ports' shadows in {@code agent}'s device
     * memory (zeroed; freed with the agent or when a new set takes the address); later contexts for
     * the set share them, so every kernel calling through the set locks the same words.
     *
     * @throws HsaException INVALID_ARGUMENT when {@code set} is not a port set of this layout version,
     *                      has no device ports or fewer than 32 lanes, the spin limit is below 1, or
     *                      another CUDA agent's kernels call through the set (the shadow locks are
     *                      one GPU's device memory)
     */
    public static void writeContext(Svm svm, long address, long set, CudaAgent agent, long spinLimit) {
        if (spinLimit < 1) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "spin limit must be >= 1, was " + spinLimit);
        }
        int magic = svm.getInt(set + SET_MAGIC);
        int version = svm.getInt(set + SET_VERSION);
        int devicePorts = svm.getInt(set + SET_DEVICE_PORTS);
        int lanes = svm.getInt(set + SET_LANES);
        if (magic != MAGIC_VALUE || version != VERSION) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format("0x%x is not an RPC port set of layout version %d "
                    + "(magic 0x%x, version %d)", set, VERSION, magic, version));
        }
        if (devicePorts < 1 || lanes < 32) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "the port set has " + devicePorts + " device ports and "
                    + lanes + " lanes: CUDA kernels need device ports (ServicesConfig.devicePorts) and at least 32 lanes");
        }
        svm.setLong(address + CTX_SET, set);
        svm.setLong(address + CTX_DISPATCH, 0);
        svm.setLong(address + CTX_PACKET, 0);
        svm.setInt(address + CTX_AGENT, agent.hsaAgent().svm().agentIndex());
        svm.setInt(address + CTX_VERSION, version);
        svm.setLong(address + CTX_SPIN_LIMIT, spinLimit);
        svm.setLong(address + CTX_PORTS, set + svm.getLong(set + SET_PORTS_OFFSET));
        svm.setLong(address + CTX_STRIDE, svm.getLong(set + SET_PORT_STRIDE));
        svm.setInt(address + CTX_DEVICE_FIRST, svm.getInt(set + SET_DEVICE_FIRST));
        svm.setInt(address + CTX_DEVICE_PORTS, devicePorts);
        svm.setInt(address + CTX_LANES, lanes);
        svm.setInt(address + CTX_LANES + 4, 0);
        long firstPort = set + svm.getLong(set + SET_PORTS_OFFSET) + svm.getInt(set + SET_DEVICE_FIRST) * svm.getLong(set + SET_PORT_STRIDE);
        svm.setLong(address + CTX_LOCKS, shadowTable(svm, set, firstPort, svm.getLong(set + SET_PORT_STRIDE), devicePorts, agent).address());
    }

    /**
     * The shadow table of the set at {@code set}: the one made for it, or a fresh one marked by a new
     * token, each port's lock word unlocked with the port's client flag as it stands (the packet
     * words not valid), so a fresh table (a new set, or one whose table a context reset lost) goes on
     * from the port's state.
     */
    private static CudaBuffer shadowTable(Svm svm, long set, long firstPort, long stride, int devicePorts, CudaAgent agent) {
        long tokenAt = firstPort + TABLE_TOKEN;
        synchronized (TABLES) {
            TABLES.values().removeIf(old -> !old.buffer().isValid()); // tables of closed agents
            ShadowTable t = TABLES.get(set);
            if (t != null && t.buffer().isValid() && svm.getLong(tokenAt) == t.token()) {
                if (t.agent() != agent) {
                    throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format("the device ports of the set at 0x%x serve "
                            + "%s already: one CUDA agent per port set (its port locks are in that GPU's memory)", set, t.agent().name()));
                }
                return t.buffer();
            }
            if (t != null) {
                t.buffer().close(); // a set freed before: its kernels ended (the header's rules)
            }
            long bytes = devicePorts * SHADOW_BYTES;
            CudaBuffer buffer = agent.allocateDevice(bytes);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment init = arena.allocate(bytes);
                for (int p = 0; p < devicePorts; p++) {
                    int clientFlag = svm.getInt(firstPort + p * stride) & 1; // CLIENT_FLAG at offset 0
                    init.set(ValueLayout.JAVA_INT, p * SHADOW_BYTES + SHADOW_LOCK, clientFlag << 1);
                }
                buffer.copyFromHost(init, 0);
            }
            long token;
            do {
                token = ThreadLocalRandom.current().nextLong();
            } while (token == 0);
            svm.setLong(tokenAt, token);
            TABLES.put(set, new ShadowTable(agent, buffer, token));
            return buffer;
        }
    }

    /** What a kernel's call ended with, for messages: the RpcStatus code's name or this client's error. */
    public static String describe(long status) {
        return switch ((int) status) {
            case 0 -> "OK";
            case E_SPIN -> "HSA4J_RPC_E_SPIN (a wait passed its spin limit: the host did not answer)";
            case E_CLOSED -> "HSA4J_RPC_E_CLOSED (the services closed)";
            case E_LAYOUT -> "HSA4J_RPC_E_LAYOUT (a context of another layout version, without device ports, or < 32 lanes)";
            case E_PAYLOAD -> "HSA4J_RPC_E_PAYLOAD";
            default -> status > 0 && status <= 10 ? "RpcStatus code " + status : "unknown status " + status;
        };
    }

    /** The header's text. */
    public static String header() {
        return resourceText(HEADER);
    }

    /** The GPU heap header's text. */
    public static String heapHeader() {
        return resourceText(HEAP_HEADER);
    }

    /**
     * A GPU heap for {@code agent}'s kernels ({@code hsa4j_gheap.cuh}): {@link #HEAP_BYTES} of zeroed
     * device memory holding its metadata, passed to {@code hsa4j_gheap_malloc/free} as {@code heap}.
     * Its chunks come from the host's malloc over RPC and go back when the services close; close the
     * buffer (or the agent) after the kernels using it ended.
     */
    public static CudaBuffer createHeap(CudaAgent agent) {
        CudaBuffer heap = agent.allocateDevice(HEAP_BYTES);
        try (Arena arena = Arena.ofConfined()) {
            heap.copyFromHost(arena.allocate(HEAP_BYTES), 0);
        }
        return heap;
    }

    /** The text of the class-path resource {@code name}. */
    static String resourceText(String name) {
        try (InputStream in = CudaRpc.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "no resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "cannot read resource " + name + ": " + e, e);
        }
    }

    /** The kernels of {@link #KERNELS_PTX}, loaded into {@code agent}. */
    public static CudaModule loadKernels(CudaAgent agent) {
        return agent.load(CudaCodeObject.fromResource(KERNELS_PTX));
    }

    /**
     * Compiles CUDA C {@code source} that includes {@code "hsa4j_rpc.cuh"} with NVRTC for
     * {@code agent} and loads it: the header is written once per JVM into a temporary directory
     * passed as {@code --include-path}.
     *
     * @throws HsaException INVALID_CODE_OBJECT with the compiler log when it does not compile or NVRTC is absent
     */
    public static CudaModule compile(CudaAgent agent, String source, String name, String... options) {
        List<String> opts = new ArrayList<>(List.of(options));
        opts.add("--include-path=" + includeDir());
        return agent.compile(source, name, opts.toArray(String[]::new));
    }

    /** The directory holding a copy of the header for NVRTC's include path. */
    static synchronized Path includeDir() {
        if (includeDir == null) {
            try {
                Path dir = Files.createTempDirectory("hsa4j-rpc-include");
                Files.writeString(dir.resolve(HEADER_NAME), header());
                Files.writeString(dir.resolve(HEAP_HEADER_NAME), heapHeader());
                dir.toFile().deleteOnExit();
                dir.resolve(HEADER_NAME).toFile().deleteOnExit();
                dir.resolve(HEAP_HEADER_NAME).toFile().deleteOnExit();
                includeDir = dir;
            } catch (IOException e) {
                throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "cannot write " + HEADER_NAME
                        + " for NVRTC's include path: " + e, e);
            }
        }
        return includeDir;
    }
}
