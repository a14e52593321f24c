package org.hsa4j.runtime;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.AgentCounters;
import org.hsa4j.kernel.WorkgroupExecutor;
import org.hsa4j.memory.FpAtomics;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.MigrationStats;
import org.hsa4j.memory.PageDescriptor;
import org.hsa4j.trace.KernelStatistics;
import org.hsa4j.trace.QueueStatistics;

/**
 * Describes a runtime's system the way rocminfo does: system attributes, then each agent with its
 * caches, ISA and pools, then page migration and footprint. The description is built once as a
 * tree of named {@link Node}s and rendered either as rocminfo-style text ({@link #write}) or as
 * JSON ({@link #writeJson}), so both forms always hold the same facts.
 */
public final class SystemReport {
    private static final char[] AXIS = {'x', 'y', 'z'};

    /** A named fact: a value, or child facts. */
    private record Node(String key, String value, List<Node> children) {
        static Node leaf(String key, String value) {
            return new Node(key, value, List.of());
        }

        static Node group(String key, List<Node> children) {
            return new Node(key, null, children);
        }
    }

    private SystemReport() {
    }

    /** Writes the rocminfo-style text report for {@code rt} to {@code out}. */
    public static void write(HsaRuntime rt, PrintStream out) {
        for (Node section : describe(rt)) {
            String rule = "=".repeat(section.key().length());
            out.println(rule);
            out.println(section.key());
            out.println(rule);
            for (Node n : section.children()) {
                if (n.key().startsWith("Agent ")) {
                    out.println("*******");
                    out.println(n.key());
                    out.println("*******");
                    rows(out, 1, n.children());
                } else {
                    rows(out, 0, List.of(n));
                }
            }
            out.println();
        }
        out.println("*** Done ***");
    }

    /** Writes the same report as one JSON object ({@code ./hsa4j info --json}). */
    public static void writeJson(HsaRuntime rt, PrintStream out) {
        StringBuilder json = new StringBuilder();
        object(json, describe(rt), 0);
        out.println(json);
    }

    private static List<Node> describe(HsaRuntime rt) {
        SystemInfo info = rt.systemInfo();
        RuntimeConfig c = rt.config();
        List<Node> system = new ArrayList<>();
        system.add(Node.leaf("Runtime Version", info.versionMajor() + "." + info.versionMinor()));
        system.add(Node.leaf("System Timestamp Freq.", info.timestampFrequency() / 1_000_000.0 + "MHz"));
        system.add(Node.leaf("Sig. Max Wait Duration", info.signalMaxWait() + " (0x" + Long.toHexString(info.signalMaxWait())
                + ") (timestamp count)"));
        system.add(Node.leaf("Machine Model", info.machineModel()));
        system.add(Node.leaf("System Endianness", info.endianness()));
        system.add(Node.leaf("XNACK enabled", c.xnack() ? "YES" : "NO"));
        system.add(Node.leaf("Memory model", c.fidelity() ? "FIDELITY" : "NORMAL"));
        system.add(Node.leaf("FP atomics", c.fpAtomics().name()));
        if (c.fpAtomics() == FpAtomics.UNSAFE_DIAGNOSE) {
            system.add(Node.leaf("Unsafe FP atomics reported", Long.toString(rt.fpAtomicDiagnostics().count())));
        }
        system.add(Node.leaf("Workgroup barriers", WorkgroupExecutor.barriersAvailable() ? WorkgroupExecutor.barrierStrategy()
                : "UNAVAILABLE: " + WorkgroupExecutor.barriersUnavailableReason()));
        system.add(Node.leaf("JVM", System.getProperty("java.vm.name") + " " + Runtime.version()));

        List<Node> agents = new ArrayList<>();
        for (Agent a : rt.agents()) {
            agents.add(Node.group("Agent " + (a.index() + 1), agent(a, c)));
        }

        List<Node> migration = new ArrayList<>();
        migration.add(Node.leaf("Page size", kib(PageDescriptor.PAGE_SIZE)));
        migration.add(migration("All agents", rt.migrationStats()));
        for (Agent a : rt.agents()) {
            migration.add(migration(a.name(), rt.migrationStats(a)));
        }

        List<Node> footprint = List.of(
                Node.leaf("Off-heap reserved", kib(rt.memory().reservedBytes())),
                Node.leaf("Live allocations", Integer.toString(rt.memory().addressSpace().liveAllocations())),
                Node.leaf("Live signals", Integer.toString(rt.signals().liveSignals())),
                Node.leaf("Runtime threads", Long.toString(rt.agents().stream()
                        .mapToLong(a -> Arrays.stream(a.computeUnitThreads()).count()).sum())));
        List<Node> sections = new ArrayList<>(List.of(Node.group("HSA System Attributes", system),
                Node.group("HSA Agents", agents), Node.group("Page Migration", migration),
                Node.group("Footprint", footprint)));
        if (rt.tracer().recording()) {
            sections.add(statistics(rt));
        }
        return sections;
    }

    /** The runtime's per-queue and per-kernel statistics (kept with HSA4J_STATS=1 or HSA4J_TRACE), as rocprof's --stats. */
    private static Node statistics(HsaRuntime rt) {
        List<Node> n = new ArrayList<>();
        n.add(Node.leaf("Trace file", rt.tracer().file().map(Path::toString).orElse("none")));
        for (QueueStatistics q : rt.queueStatistics()) {
            n.add(Node.group("Queue " + q.queueId() + " (" + q.agent() + ")", List.of(
                    Node.leaf("Dispatches", Long.toString(q.dispatches())),
                    Node.leaf("Barrier packets", Long.toString(q.barriers())),
                    Node.leaf("Failures", Long.toString(q.failures())),
                    times(q.totalNanos(), q.minNanos(), q.meanNanos(), q.maxNanos()))));
        }
        for (KernelStatistics k : rt.kernelStatistics()) {
            n.add(Node.group("Kernel " + k.kernel(), List.of(
                    Node.leaf("Dispatches", Long.toString(k.dispatches())),
                    Node.leaf("Workgroups", Long.toString(k.workgroups())),
                    Node.leaf("Failures", Long.toString(k.failures())),
                    times(k.totalNanos(), k.minNanos(), k.meanNanos(), k.maxNanos()))));
        }
        return Node.group("Statistics", n);
    }

    private static Node times(long total, long min, long mean, long max) {
        return Node.leaf("Launch to completion (us) total/min/mean/max", String.format(Locale.ROOT,
                "%.1f/%.1f/%.1f/%.1f", total / 1e3, min / 1e3, mean / 1e3, max / 1e3));
    }

    private static List<Node> agent(Agent a, RuntimeConfig c) {
        List<Node> n = new ArrayList<>();
        n.add(Node.leaf("Name", a.name()));
        n.add(Node.leaf("Uuid", AgentFacts.uuid(a)));
        n.add(Node.leaf("Marketing Name", AgentFacts.marketingName(a)));
        n.add(Node.leaf("Vendor Name", a.vendor()));
        n.add(Node.leaf("Feature", a.features().stream().map(Enum::name).collect(Collectors.joining(", "))));
        n.add(Node.leaf("Profile", a.profile() + "_PROFILE"));
        n.add(Node.leaf("Device Type", a.deviceType().name()));
        n.add(Node.leaf("Node", Integer.toString(a.index())));
        n.add(Node.leaf("Cacheline Size", AgentFacts.cachelineSize() + "(0x" + Integer.toHexString(AgentFacts.cachelineSize()) + ")"));
        List<Node> caches = new ArrayList<>();
        for (AgentFacts.Cache cache : AgentFacts.caches(a, c.fidelity())) {
            caches.add(Node.leaf("L" + cache.level() + " " + cache.type(), kib(cache.bytes())));
        }
        n.add(Node.group("Cache Info", caches));
        n.add(Node.leaf("Compute Unit", Integer.toString(a.computeUnits())));
        n.add(Node.leaf("Wavefront Size", a.wavefrontSize() + "(0x" + Integer.toHexString(a.wavefrontSize()) + ")"));
        n.add(Node.leaf("Queue Min Size", Integer.toString(a.queueMinSize())));
        n.add(Node.leaf("Queue Max Size", Integer.toString(a.queueMaxSize())));
        n.add(Node.leaf("Queue Type", "MULTI, SINGLE"));
        n.add(Node.leaf("Queues Max", Integer.toString(a.queuesMax())));
        n.add(Node.leaf("Workgroup Max Size", a.workgroupMaxSize() + "(0x" + Integer.toHexString(a.workgroupMaxSize()) + ")"));
        int[] wg = a.workgroupMaxDim();
        long[] grid = a.gridMaxDim();
        List<Node> wgDims = new ArrayList<>();
        List<Node> gridDims = new ArrayList<>();
        for (int d = 0; d < 3; d++) {
            wgDims.add(Node.leaf(String.valueOf(AXIS[d]), Integer.toString(wg[d])));
            gridDims.add(Node.leaf(String.valueOf(AXIS[d]), Long.toString(grid[d])));
        }
        n.add(Node.group("Workgroup Max Size per Dimension", wgDims));
        n.add(Node.leaf("Grid Max Size", Long.toString(a.gridMaxSize())));
        n.add(Node.group("Grid Max Size per Dimension", gridDims));
        n.add(Node.leaf("Max fbarriers/Workgrp", "0"));
        List<Node> pools = new ArrayList<>();
        int i = 1;
        for (MemoryPool p : a.memoryPools()) {
            pools.add(Node.group("Pool " + i++, List.of(
                    Node.leaf("Segment", p.segment() + (p.flags().isEmpty() ? "" : "; FLAGS: "
                            + p.flags().stream().map(Enum::name).collect(Collectors.joining(", ")))),
                    Node.leaf("Name", p.name()),
                    Node.leaf("Size", kib(p.size())),
                    Node.leaf("Allocatable", p.runtimeAllocAllowed() ? "TRUE" : "FALSE"),
                    Node.leaf("Alloc Granule", kib(p.granule())),
                    Node.leaf("Alloc Alignment", kib(p.alignment())),
                    Node.leaf("Alloc Max", kib(p.allocMax())),
                    Node.leaf("Accessible by all", p.accessibleByAll() ? "TRUE" : "FALSE"),
                    Node.leaf("In use", kib(p.used())))));
        }
        n.add(Node.group("Pool Info", pools));
        n.add(Node.group("ISA Info", List.of(Node.group("ISA 1", List.of(
                Node.leaf("Name", AgentFacts.isaName(a, c.xnack())),
                Node.leaf("Machine Models", "HSA_MACHINE_MODEL_LARGE"),
                Node.leaf("Profiles", a.profile() + "_PROFILE"),
                Node.leaf("Workgroup Max Size", Integer.toString(a.workgroupMaxSize())),
                Node.leaf("Grid Max Size", Long.toString(a.gridMaxSize())))))));
        AgentCounters k = a.counters();
        n.add(Node.group("Scaling Counters", List.of(
                Node.leaf("Idle Strategy", a.idleStrategy().toString()),
                Node.leaf("Packets", Long.toString(k.packets())),
                Node.leaf("Wake-ups", k.wakeUps() + perPacket(k.wakeUpsPerPacket(), k)),
                Node.leaf("Role Hand-offs", k.roleHandoffs() + perPacket(k.roleHandoffsPerPacket(), k)),
                Node.leaf("CAS Retries", k.casRetries() + perPacket(k.casRetriesPerPacket(), k)),
                Node.leaf("Parks", k.parks() + perPacket(k.parksPerPacket(), k)))));
        return n;
    }

    private static String perPacket(double v, AgentCounters k) {
        return k.packets() == 0 ? "" : String.format(Locale.ROOT, " (%.3f per packet)", v);
    }

    private static Node migration(String who, MigrationStats m) {
        return Node.leaf(who, String.format("fault migrations %d, prefetch migrations %d, remote accesses %d, "
                + "read-mostly copies %d, faults %d", m.faultMigrations(), m.prefetchMigrations(), m.remoteAccesses(),
                m.readMostlyDuplications(), m.faults()));
    }

    private static void rows(PrintStream out, int indent, List<Node> nodes) {
        for (Node n : nodes) {
            out.printf("%s%-32s%s%n", "  ".repeat(indent + 1), n.key() + ":", n.value() == null ? "" : n.value());
            rows(out, indent + 1, n.children());
        }
    }

    private static void object(StringBuilder json, List<Node> nodes, int depth) {
        json.append('{');
        String pad = "\n" + "  ".repeat(depth + 1);
        for (int i = 0; i < nodes.size(); i++) {
            Node n = nodes.get(i);
            json.append(i == 0 ? "" : ",").append(pad);
            string(json, n.key());
            json.append(": ");
            if (n.value() != null) {
                string(json, n.value());
            } else {
                object(json, n.children(), depth + 1);
            }
        }
        json.append(nodes.isEmpty() ? "" : "\n" + "  ".repeat(depth)).append('}');
    }

    private static void string(StringBuilder json, String s) {
        json.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\t' -> json.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        json.append(String.format("\\u%04x", (int) ch));
                    } else {
                        json.append(ch);
                    }
                }
            }
        }
        json.append('"');
    }

    private static String kib(long bytes) {
        return bytes < 1024 || bytes % 1024 != 0 && bytes < 1 << 20 ? bytes + "B" : (bytes / 1024) + "KB";
    }
}
