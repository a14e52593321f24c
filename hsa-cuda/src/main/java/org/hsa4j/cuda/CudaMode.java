package org.hsa4j.cuda;

import java.util.Locale;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** {@code HSA4J_CUDA}: whether hsa4j looks for NVIDIA GPUs. */
public enum CudaMode {
    /** Use CUDA devices when libcuda and a device are present; otherwise run without them (the default). */
    AUTO,
    /** Never load libcuda. */
    OFF,
    /** A missing driver or device is an error that names why. */
    REQUIRED;

    /** The environment variable. */
    public static final String ENV = "HSA4J_CUDA";

    /** The mode {@code HSA4J_CUDA} asks for (AUTO when unset). */
    public static CudaMode fromEnvironment() {
        return parse(System.getenv(ENV));
    }

    /**
     * Parses {@code auto|off|required} (case-insensitive); null or blank is AUTO.
     *
     * @throws HsaException INVALID_ARGUMENT for any other value
     */
    public static CudaMode parse(String value) {
        if (value == null || value.isBlank()) {
            return AUTO;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "auto" -> AUTO;
            case "off", "0", "false", "no" -> OFF;
            case "required", "on", "1", "true", "yes" -> REQUIRED;
            default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT, ENV + "=" + value
                    + " is not one of auto, off, required");
        };
    }
}
