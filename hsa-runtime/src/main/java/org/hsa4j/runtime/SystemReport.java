package org.hsa4j.runtime;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.stream.Collectors;

import org.hsa4j.agent.Agent;
import org.hsa4j.kernel.WorkgroupExecutor;
import org.hsa4j.memory.FpAtomics;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.MigrationStats;
import org.hsa4j.memory.PageDescriptor;

/** Prints a runtime's system the way rocminfo does: system attributes, then each agent and its pools. */
public final class SystemReport {
    private SystemReport() {
    }

    /** Writes the report for {@code rt} to {@code out}. */
    public static void write(HsaRuntime rt, PrintStream out) {
        SystemInfo info = rt.systemInfo();
        RuntimeConfig c = rt.config();
        out.println("=====================");
        out.println("HSA System Attributes");
        out.println("=====================");
        row(out, 0, "Runtime Version", info.versionMajor() + "." + info.versionMinor());
        row(out, 0, "System Timestamp Freq.", info.timestampFrequency() / 1_000_000.0 + "MHz");
        row(out, 0, "Sig. Max Wait Duration", info.signalMaxWait() + " (0x" + Long.toHexString(info.signalMaxWait()) + ") (timestamp count)");
        row(out, 0, "Machine Model", info.machineModel());
        row(out, 0, "System Endianness", info.endianness());
        row(out, 0, "XNACK enabled", c.xnack() ? "YES" : "NO");
        row(out, 0, "Memory model", c.fidelity() ? "FIDELITY" : "NORMAL");
        row(out, 0, "FP atomics", c.fpAtomics().name());
        if (c.fpAtomics() == FpAtomics.UNSAFE_DIAGNOSE) {
            row(out, 0, "Unsafe FP atomics reported", Long.toString(rt.fpAtomicDiagnostics().count()));
        }
        row(out, 0, "Workgroup barriers", WorkgroupExecutor.barriersAvailable() ? "continuations"
                : "UNAVAILABLE: " + WorkgroupExecutor.barriersUnavailableReason());
        row(out, 0, "JVM", System.getProperty("java.vm.name") + " " + Runtime.version());
        out.println();
        out.println("==========");
        out.println("HSA Agents");
        out.println("==========");
        for (Agent a : rt.agents()) {
            out.println("*******");
            out.println("Agent " + (a.index() + 1));
            out.println("*******");
            row(out, 1, "Name", a.name());
            row(out, 1, "Vendor Name", a.vendor());
            row(out, 1, "Feature", a.features().stream().map(Enum::name).collect(Collectors.joining(", ")));
            row(out, 1, "Profile", a.profile() + "_PROFILE");
            row(out, 1, "Device Type", a.deviceType().name());
            row(out, 1, "Node", Integer.toString(a.index()));
            row(out, 1, "Compute Unit", Integer.toString(a.computeUnits()));
            row(out, 1, "Wavefront Size", a.wavefrontSize() + "(0x" + Integer.toHexString(a.wavefrontSize()) + ")");
            row(out, 1, "Queue Min Size", Integer.toString(a.queueMinSize()));
            row(out, 1, "Queue Max Size", Integer.toString(a.queueMaxSize()));
            row(out, 1, "Queue Type", "MULTI, SINGLE");
            row(out, 1, "Queues Max", Integer.toString(a.queuesMax()));
            row(out, 1, "Workgroup Max Size", a.workgroupMaxSize() + "(0x" + Integer.toHexString(a.workgroupMaxSize()) + ")");
            row(out, 1, "Workgroup Max Size per Dimension", "");
            int[] wg = a.workgroupMaxDim();
            char[] axis = {'x', 'y', 'z'};
            for (int d = 0; d < 3; d++) {
                row(out, 2, String.valueOf(axis[d]), Integer.toString(wg[d]));
            }
            row(out, 1, "Grid Max Size", Long.toString(a.gridMaxSize()));
            row(out, 1, "Grid Max Size per Dimension", "");
            long[] grid = a.gridMaxDim();
            for (int d = 0; d < 3; d++) {
                row(out, 2, String.valueOf(axis[d]), Long.toString(grid[d]));
            }
            row(out, 1, "Max fbarriers/Workgrp", "0");
            row(out, 1, "Pool Info", "");
            int n = 1;
            for (MemoryPool p : a.memoryPools()) {
                row(out, 2, "Pool " + n++, "");
                row(out, 3, "Segment", p.segment() + (p.flags().isEmpty() ? "" : "; FLAGS: "
                        + p.flags().stream().map(Enum::name).collect(Collectors.joining(", "))));
                row(out, 3, "Name", p.name());
                row(out, 3, "Size", kib(p.size()));
                row(out, 3, "Allocatable", p.runtimeAllocAllowed() ? "TRUE" : "FALSE");
                row(out, 3, "Alloc Granule", kib(p.granule()));
                row(out, 3, "Alloc Alignment", kib(p.alignment()));
                row(out, 3, "Alloc Max", kib(p.allocMax()));
                row(out, 3, "Accessible by all", p.accessibleByAll() ? "TRUE" : "FALSE");
                row(out, 3, "In use", kib(p.used()));
            }
        }
        out.println();
        out.println("==============");
        out.println("Page Migration");
        out.println("==============");
        row(out, 0, "Page size", kib(PageDescriptor.PAGE_SIZE));
        migration(out, 0, "All agents", rt.migrationStats());
        for (Agent a : rt.agents()) {
            migration(out, 1, a.name(), rt.migrationStats(a));
        }
        out.println();
        out.println("=========");
        out.println("Footprint");
        out.println("=========");
        row(out, 0, "Off-heap reserved", kib(rt.memory().reservedBytes()));
        row(out, 0, "Live allocations", Integer.toString(rt.memory().addressSpace().liveAllocations()));
        row(out, 0, "Live signals", Integer.toString(rt.signals().liveSignals()));
        row(out, 0, "Runtime threads", Long.toString(rt.agents().stream()
                .mapToLong(a -> Arrays.stream(a.computeUnitThreads()).count()).sum()));
        out.println("*** Done ***");
    }

    private static void migration(PrintStream out, int indent, String who, MigrationStats m) {
        row(out, indent, who, String.format("fault migrations %d, prefetch migrations %d, remote accesses %d, "
                + "read-mostly copies %d, faults %d", m.faultMigrations(), m.prefetchMigrations(), m.remoteAccesses(),
                m.readMostlyDuplications(), m.faults()));
    }

    private static String kib(long bytes) {
        return bytes < 1024 || bytes % 1024 != 0 && bytes < 1 << 20 ? bytes + "B" : (bytes / 1024) + "KB";
    }

    private static void row(PrintStream out, int indent, String key, String value) {
        String pad = "  ".repeat(indent + 1);
        out.printf("%s%-32s%s%n", pad, key + ":", value);
    }
}
