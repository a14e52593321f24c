package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.hsa4j.cuda.driver.CuResult;
import org.hsa4j.cuda.driver.CudaDriver;
import org.hsa4j.cuda.driver.Nvrtc;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Discovery (part 1 of issue 18): loads libcuda per {@link CudaMode}, initializes it and reads every
 * device's attributes. With no driver or no device the platform is empty and {@link #reason()} says
 * why; only {@link CudaMode#REQUIRED} turns that into an error. NVRTC is looked for beside it and is
 * optional ({@link #nvrtcReason()}).
 */
public final class CudaPlatform {
    // CUdevice_attribute values (cuda.h, CUDA 13)
    static final int MAX_THREADS_PER_BLOCK = 1;
    static final int MAX_BLOCK_DIM_X = 2;
    static final int MAX_GRID_DIM_X = 5;
    static final int MAX_SHARED_MEMORY_PER_BLOCK = 8;
    static final int WARP_SIZE = 10;
    static final int CLOCK_RATE = 13;
    static final int MULTIPROCESSOR_COUNT = 16;
    static final int CAN_MAP_HOST_MEMORY = 19;
    static final int PCI_BUS_ID = 33;
    static final int MEMORY_CLOCK_RATE = 36;
    static final int GLOBAL_MEMORY_BUS_WIDTH = 37;
    static final int L2_CACHE_SIZE = 38;
    static final int MAX_THREADS_PER_MULTIPROCESSOR = 39;
    static final int UNIFIED_ADDRESSING = 41;
    static final int COMPUTE_CAPABILITY_MAJOR = 75;
    static final int COMPUTE_CAPABILITY_MINOR = 76;
    static final int MANAGED_MEMORY = 83;
    static final int HOST_NATIVE_ATOMIC_SUPPORTED = 86;
    static final int PAGEABLE_MEMORY_ACCESS = 88;
    static final int CONCURRENT_MANAGED_ACCESS = 89;
    static final int CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 91;
    static final int MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;

    private final CudaMode mode;
    private final CudaDriver driver;
    private final int driverVersion;
    private final List<CudaDeviceInfo> devices;
    private final String reason;
    private final Nvrtc nvrtc;
    private final String nvrtcReason;

    private CudaPlatform(CudaMode mode, CudaDriver driver, int driverVersion, List<CudaDeviceInfo> devices,
                         String reason, Nvrtc nvrtc, String nvrtcReason) {
        this.mode = mode;
        this.driver = driver;
        this.driverVersion = driverVersion;
        this.devices = List.copyOf(devices);
        this.reason = reason;
        this.nvrtc = nvrtc;
        this.nvrtcReason = nvrtcReason;
    }

    /** A platform of {@code devices} with no driver bound (tests of what uses a platform). */
    static CudaPlatform of(CudaMode mode, List<CudaDeviceInfo> devices) {
        return new CudaPlatform(mode, null, 0, devices, devices.isEmpty() ? "no device" : null, null, "no NVRTC");
    }

    /** Discovers with {@code HSA4J_CUDA} and the standard library names. */
    public static CudaPlatform discover() {
        return discover(CudaMode.fromEnvironment(), CudaDriver.LIBRARY, Nvrtc.LIBRARY);
    }

    /**
     * Discovers with {@code mode}, loading the driver from {@code library} and NVRTC from {@code nvrtcLibrary}.
     *
     * @throws HsaException INVALID_AGENT when {@code mode} is REQUIRED and there is no usable device (the message says why)
     */
    public static CudaPlatform discover(CudaMode mode, String library, String nvrtcLibrary) {
        if (mode == CudaMode.OFF) {
            return new CudaPlatform(mode, null, 0, List.of(), CudaMode.ENV + "=off", null, "CUDA is off");
        }
        CudaDriver.Load load = CudaDriver.load(library);
        CudaPlatform p;
        if (!load.available()) {
            p = new CudaPlatform(mode, null, 0, List.of(), load.reason(), null, "no CUDA driver");
        } else {
            p = probe(mode, load.driver(), nvrtcLibrary);
        }
        if (mode == CudaMode.REQUIRED && p.devices.isEmpty()) {
            throw new HsaException(HsaStatus.INVALID_AGENT, CudaMode.ENV + "=required but there is no CUDA device: "
                    + p.reason);
        }
        return p;
    }

    private static CudaPlatform probe(CudaMode mode, CudaDriver d, String nvrtcLibrary) {
        int rc = d.cuInit(0);
        if (rc != CuResult.SUCCESS) {
            return new CudaPlatform(mode, d, 0, List.of(), "cuInit failed: " + d.errorName(rc) + " (" + rc + ")",
                    null, "no CUDA device");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            d.check(d.cuDriverGetVersion(out), "cuDriverGetVersion");
            int version = out.get(JAVA_INT, 0);
            d.check(d.cuDeviceGetCount(out), "cuDeviceGetCount");
            int count = out.get(JAVA_INT, 0);
            List<CudaDeviceInfo> found = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                found.add(describe(d, a, i));
            }
            Nvrtc.Load nv = Nvrtc.load(nvrtcLibrary);
            return new CudaPlatform(mode, d, version, found, count == 0 ? "the driver reports no device" : null,
                    nv.nvrtc(), nv.reason());
        } catch (HsaException e) {
            return new CudaPlatform(mode, d, 0, List.of(), e.getMessage(), null, "no CUDA device");
        }
    }

    private static CudaDeviceInfo describe(CudaDriver d, Arena a, int ordinal) {
        MemorySegment out = a.allocate(JAVA_INT);
        d.check(d.cuDeviceGet(out, ordinal), "cuDeviceGet");
        int dev = out.get(JAVA_INT, 0);
        MemorySegment name = a.allocate(256);
        d.check(d.cuDeviceGetName(name, 256, dev), "cuDeviceGetName");
        MemorySegment uuid = a.allocate(16);
        d.check(d.cuDeviceGetUuid(uuid, dev), "cuDeviceGetUuid_v2");
        MemorySegment total = a.allocate(JAVA_LONG);
        d.check(d.cuDeviceTotalMem(total, dev), "cuDeviceTotalMem_v2");
        AttributeReader at = attribute -> {
            d.check(d.cuDeviceGetAttribute(out, attribute, dev), "cuDeviceGetAttribute(" + attribute + ")");
            return out.get(JAVA_INT, 0);
        };
        int[] block = {at.read(MAX_BLOCK_DIM_X), at.read(MAX_BLOCK_DIM_X + 1), at.read(MAX_BLOCK_DIM_X + 2)};
        long[] grid = {at.read(MAX_GRID_DIM_X), at.read(MAX_GRID_DIM_X + 1), at.read(MAX_GRID_DIM_X + 2)};
        return new CudaDeviceInfo(ordinal, name.getString(0), formatUuid(uuid.toArray(JAVA_BYTE)),
                at.read(COMPUTE_CAPABILITY_MAJOR), at.read(COMPUTE_CAPABILITY_MINOR), at.read(MULTIPROCESSOR_COUNT),
                at.read(WARP_SIZE), at.read(MAX_THREADS_PER_BLOCK), block, grid, at.read(MAX_SHARED_MEMORY_PER_BLOCK),
                at.read(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), at.read(L2_CACHE_SIZE), total.get(JAVA_LONG, 0),
                at.read(CLOCK_RATE), at.read(MEMORY_CLOCK_RATE), at.read(GLOBAL_MEMORY_BUS_WIDTH), at.read(PCI_BUS_ID),
                at.read(MAX_THREADS_PER_MULTIPROCESSOR), at.read(HOST_NATIVE_ATOMIC_SUPPORTED) != 0,
                at.read(PAGEABLE_MEMORY_ACCESS) != 0, at.read(CONCURRENT_MANAGED_ACCESS) != 0,
                at.read(CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM) != 0, at.read(MANAGED_MEMORY) != 0,
                at.read(UNIFIED_ADDRESSING) != 0, at.read(CAN_MAP_HOST_MEMORY) != 0);
    }

    @FunctionalInterface
    private interface AttributeReader {
        int read(int attribute);
    }

    /** A 16-byte CUDA UUID as nvidia-smi prints it: {@code GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}. */
    static String formatUuid(byte[] b) {
        StringBuilder s = new StringBuilder("GPU-");
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) {
                s.append('-');
            }
            s.append(String.format("%02x", b[i] & 0xFF));
        }
        return s.toString();
    }

    /** The mode discovery ran with. */
    public CudaMode mode() {
        return mode;
    }

    /** True when at least one device is usable. */
    public boolean available() {
        return !devices.isEmpty();
    }

    /** Why there is no device ("no CUDA: ..."), or null when there is one. */
    public String reason() {
        return reason;
    }

    /** The devices, by ordinal. */
    public List<CudaDeviceInfo> devices() {
        return devices;
    }

    /** The bound driver (null without one). */
    public CudaDriver driver() {
        return driver;
    }

    /** The driver's CUDA version as {@code cuDriverGetVersion} gives it (13000 for 13.0), 0 when unknown. */
    public int driverVersion() {
        return driverVersion;
    }

    /** NVRTC, or null when absent ({@link #nvrtcReason()}). */
    public Nvrtc nvrtc() {
        return nvrtc;
    }

    /** Why NVRTC is absent, or null. */
    public String nvrtcReason() {
        return nvrtc == null ? nvrtcReason : null;
    }
}
