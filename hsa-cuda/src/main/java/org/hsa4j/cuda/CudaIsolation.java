package org.hsa4j.cuda;

import java.util.Locale;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** {@code HSA4J_CUDA_ISOLATION}: where a CUDA agent runs its host-side queues' kernels. */
public enum CudaIsolation {
    /**
     * In this process's CUDA context until a kernel faults (the default: the fastest path), then in a
     * device server: a fault poisons this process's CUDA for good.
     */
    IN_PROCESS,
    /**
     * In a device server from the start (a child JVM on the same SVM): a fault kills the server, never
     * this process's context, so the next queue simply gets a new server. Code objects still load in
     * this process (for their attributes; no kernel runs here); the agent's device, pinned and managed
     * buffers are not available (a server cannot reach them): kernels use SVM.
     */
    PROCESS;

    /** The environment variable. */
    public static final String ENV = "HSA4J_CUDA_ISOLATION";

    /** The isolation {@code HSA4J_CUDA_ISOLATION} asks for (IN_PROCESS when unset). */
    public static CudaIsolation fromEnvironment() {
        return parse(System.getenv(ENV));
    }

    /**
     * Parses {@code inprocess|process} (case-insensitive); null or blank is IN_PROCESS.
     *
     * @throws HsaException INVALID_ARGUMENT for any other value
     */
    public static CudaIsolation parse(String value) {
        if (value == null || value.isBlank()) {
            return IN_PROCESS;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "inprocess", "in-process", "in_process", "none", "off" -> IN_PROCESS;
            case "process", "server", "child" -> PROCESS;
            default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT, ENV + "=" + value
                    + " is not one of inprocess, process");
        };
    }
}
