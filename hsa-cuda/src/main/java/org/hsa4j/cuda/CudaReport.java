package org.hsa4j.cuda;

import java.io.PrintStream;

/** The rocminfo-like text of {@code ./hsa4j info} for CUDA devices. */
public final class CudaReport {
    private CudaReport() {
    }

    /** Writes the CUDA section: the driver and NVRTC status, then one block per device. */
    public static void write(CudaPlatform p, PrintStream out) {
        out.println("*******");
        out.println("CUDA agents (" + CudaMode.ENV + "=" + p.mode().name().toLowerCase(java.util.Locale.ROOT) + ")");
        out.println("*******");
        if (!p.available()) {
            out.println("  no CUDA: " + p.reason());
            return;
        }
        int v = p.driverVersion();
        out.printf("  %-36s %d.%d%n", "Driver CUDA version:", v / 1000, (v % 1000) / 10);
        out.printf("  %-36s %s%n", "NVRTC:", p.nvrtc() != null ? p.nvrtc().version() : "absent (" + p.nvrtcReason() + ")");
        for (CudaDeviceInfo d : p.devices()) {
            writeDevice(d, out);
        }
    }

    /** Writes one device's block. */
    public static void writeDevice(CudaDeviceInfo d, PrintStream out) {
        out.println("  Agent cuda:" + d.ordinal());
        row(out, "Name:", d.name());
        row(out, "Uuid:", d.uuid());
        row(out, "Vendor Name:", "NVIDIA");
        row(out, "Device Type:", "GPU");
        row(out, "Architecture:", d.architecture() + " (compute capability " + d.ccMajor() + "." + d.ccMinor() + ")");
        row(out, "Compute Unit (SMs):", d.multiprocessors());
        row(out, "Wavefront Size (warp):", d.warpSize());
        row(out, "Workgroup Max Size:", d.maxThreadsPerBlock());
        int[] b = d.blockMax();
        row(out, "Workgroup Max Size per Dimension:", "x " + b[0] + ", y " + b[1] + ", z " + b[2]);
        long[] g = d.gridMax();
        row(out, "Grid Max Blocks per Dimension:", "x " + g[0] + ", y " + g[1] + ", z " + g[2]);
        row(out, "Group Segment (shared) per Block:", kib(d.sharedPerBlock()) + " (opt-in " + kib(d.sharedPerBlockOptin()) + ")");
        row(out, "Max Threads per SM:", d.maxThreadsPerMultiprocessor());
        row(out, "L2 Cache:", kib(d.l2Bytes()));
        row(out, "Memory:", String.format("%.1f GiB", d.totalMemory() / (double) (1L << 30)));
        row(out, "Max Clock Freq. (MHz):", d.clockKhz() / 1000);
        row(out, "Memory Clock (MHz):", d.memoryClockKhz() / 1000 + " (" + d.memoryBusWidth() + "-bit bus)");
        row(out, "PCI Bus:", d.pciBus());
        row(out, "Host-native Atomics:", yesNo(d.hostNativeAtomics()));
        row(out, "Pageable Memory Access (XNACK):", yesNo(d.pageableMemoryAccess()));
        row(out, "Concurrent Managed Access:", yesNo(d.concurrentManagedAccess()));
        row(out, "Host Pointer for Registered Mem:", yesNo(d.hostPointerForRegisteredMem()));
        row(out, "Managed Memory:", yesNo(d.managedMemory()));
        row(out, "Unified Addressing:", yesNo(d.unifiedAddressing()));
        row(out, "Can Map Host Memory:", yesNo(d.canMapHostMemory()));
    }

    private static void row(PrintStream out, String label, Object value) {
        out.printf("    %-36s %s%n", label, value);
    }

    private static String kib(long bytes) {
        return bytes / 1024 + " KiB";
    }

    private static String yesNo(boolean b) {
        return b ? "yes" : "no";
    }
}
