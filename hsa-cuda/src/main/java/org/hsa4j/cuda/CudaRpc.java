package org.hsa4j.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaStatus;

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
    /** Bytes of a context. */
    public static final long CTX_BYTES = 72;
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

    private CudaRpc() {
    }

    /**
     * Writes a calling context at SVM address {@code address} ({@link #CTX_BYTES} bytes) through
     * {@code svm}: the port set at {@code set} (its device ports, lanes and layout copied from its
     * header), the calling agent {@code agent}'s index, no dispatch identity, and {@code spinLimit}
     * polls per wait.
     *
     * @throws HsaException INVALID_ARGUMENT when {@code set} is not a port set of this layout version,
     *                      has no device ports or fewer than 32 lanes, or the spin limit is below 1
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
                dir.toFile().deleteOnExit();
                dir.resolve(HEADER_NAME).toFile().deleteOnExit();
                includeDir = dir;
            } catch (IOException e) {
                throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "cannot write " + HEADER_NAME
                        + " for NVRTC's include path: " + e, e);
            }
        }
        return includeDir;
    }
}
