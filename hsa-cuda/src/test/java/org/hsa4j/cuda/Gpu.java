package org.hsa4j.cuda;

import org.junit.jupiter.api.Assumptions;

/** The one CUDA platform of the test JVM, and the assumption every GPU test starts with. */
public final class Gpu {
    /** Prefix of every skip message; {@link CudaSkipReport} counts the tests it skipped. */
    static final String NO_DEVICE = "no CUDA device: ";
    /** Prefix of the skip message of tests that need NVRTC beside the device. */
    static final String NO_NVRTC = "no NVRTC: ";

    private static final CudaPlatform PLATFORM = discover();

    private Gpu() {
    }

    private static CudaPlatform discover() {
        try {
            return CudaPlatform.discover(CudaMode.AUTO, org.hsa4j.cuda.driver.CudaDriver.LIBRARY,
                    org.hsa4j.cuda.driver.Nvrtc.LIBRARY);
        } catch (RuntimeException e) {
            return CudaPlatform.discover(CudaMode.OFF, null, null);
        }
    }

    /** The platform (empty without a device). */
    public static CudaPlatform platform() {
        return PLATFORM;
    }

    /** Skips the caller unless a CUDA device exists, saying why. */
    public static void assumeDevice() {
        Assumptions.assumeTrue(PLATFORM.available(), () -> NO_DEVICE + PLATFORM.reason());
    }

    /** Skips the caller unless a CUDA device and NVRTC exist; counted apart from the device skips. */
    static void assumeNvrtc() {
        assumeDevice();
        Assumptions.assumeTrue(PLATFORM.nvrtc() != null, () -> NO_NVRTC + PLATFORM.nvrtcReason());
    }
}
