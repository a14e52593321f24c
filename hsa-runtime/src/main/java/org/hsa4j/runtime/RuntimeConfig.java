package org.hsa4j.runtime;

import java.lang.management.ManagementFactory;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntConsumer;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.memory.FpAtomics;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The topology and limits a runtime starts with. Build one in code with {@link #builder()}, or
 * take the defaults overlaid with environment variables with {@link #fromEnvironment()}:
 *
 * <table>
 * <caption>Environment variables</caption>
 * <tr><td>HSA4J_GPU_AGENTS</td><td>number of GPU agents (default 1)</td></tr>
 * <tr><td>HSA4J_COMPUTE_UNITS</td><td>compute units (worker threads) per GPU agent (default: available processors)</td></tr>
 * <tr><td>HSA4J_CPU_COMPUTE_UNITS</td><td>compute units of the CPU agent (default 1)</td></tr>
 * <tr><td>HSA4J_WAVEFRONT_SIZE</td><td>work-items per wavefront (default 64)</td></tr>
 * <tr><td>HSA4J_QUEUE_MIN_SIZE / HSA4J_QUEUE_MAX_SIZE</td><td>queue size limits in packets (16 / 131072)</td></tr>
 * <tr><td>HSA4J_QUEUES_MAX</td><td>queues per agent (default 128)</td></tr>
 * <tr><td>HSA4J_WORKGROUP_MAX_SIZE</td><td>work-items per workgroup (default 1024)</td></tr>
 * <tr><td>HSA4J_GROUP_SEGMENT_MAX</td><td>group segment bytes per workgroup (default 65536)</td></tr>
 * <tr><td>HSA4J_DEVICE_MEMORY</td><td>bytes of each GPU's coarse-grained pool (default 8 GiB)</td></tr>
 * <tr><td>ROCR_VISIBLE_DEVICES</td><td>comma-separated GPU agent indices to expose, as ROCR reads them (default: all)</td></tr>
 * <tr><td>HSA_XNACK or HSA4J_XNACK</td><td>1 lets GPUs touch plain system memory (default 0)</td></tr>
 * <tr><td>HSA4J_FP_ATOMICS</td><td>cas, unsafe or diagnose: how FP atomic adds behave (default cas)</td></tr>
 * <tr><td>HSA4J_FIDELITY</td><td>1 turns on the memory-model fidelity (checking) mode (default 0)</td></tr>
 * <tr><td>HSA_ENABLE_INTERRUPT</td><td>0 makes waits busy-wait (spin, then yield) instead of parking after a short spin (default 1)</td></tr>
 * <tr><td>HSA4J_KERNEL_TIME_LIMIT_MS</td><td>aborts a dispatch running longer, with EXCEPTION (default 0: no limit)</td></tr>
 * <tr><td>HSA4J_TRACE</td><td>a file: writes a Chrome trace-event / Perfetto JSON timeline there (and keeps statistics)</td></tr>
 * <tr><td>HSA4J_STATS</td><td>1 keeps per-queue and per-kernel statistics without a trace file (default 0)</td></tr>
 * </table>
 *
 * @param gpuAgents          number of GPU agents
 * @param computeUnits       compute units per GPU agent
 * @param cpuComputeUnits    compute units of the CPU agent
 * @param wavefrontSize      work-items per wavefront
 * @param queueMinSize       smallest queue in packets
 * @param queueMaxSize       largest queue in packets
 * @param queuesMax          queues per agent
 * @param workgroupMaxSize   work-items per workgroup
 * @param groupSegmentMax    group segment bytes per workgroup
 * @param privateSegmentMax  private segment bytes per work-item
 * @param systemMemorySize   bytes of the host's fine-grained pool
 * @param deviceMemorySize   bytes of each GPU's coarse-grained pool
 * @param kernargPoolSize    bytes of the kernarg pool
 * @param xnack              true when GPUs may touch plain system memory (pages migrate on fault)
 * @param fpAtomics          how floating-point atomic adds behave (CAS loop, unsafe, unsafe with diagnostics)
 * @param fidelity           true for the memory-model fidelity mode: GPU compute units see memory through
 *                           write-back caches, so a missing fence or a too-narrow scope reads stale data
 * @param kernelTimeLimitMillis a dispatch running longer than this many milliseconds is aborted with
 *                           EXCEPTION, like a GPU's hang watchdog (0: no limit)
 * @param interruptWaits     true (default): waits park after a short spin and yield, like ROCm's
 *                           interrupt-driven signal waits; false ({@code HSA_ENABLE_INTERRUPT=0}): waits
 *                           spin and yield until their condition or deadline (see {@code IdleStrategy})
 * @param trace              the file the runtime writes its Chrome trace-event JSON timeline to on close, or null
 *                           (see {@code org.hsa4j.trace.Tracer})
 * @param statistics         true to keep per-queue and per-kernel statistics ({@code Queue.statistics()},
 *                           {@code HsaRuntime.kernelStatistics()}); always on with a trace file
 */
public record RuntimeConfig(int gpuAgents, int computeUnits, int cpuComputeUnits, int wavefrontSize,
                            int queueMinSize, int queueMaxSize, int queuesMax, int workgroupMaxSize,
                            int groupSegmentMax, int privateSegmentMax, long systemMemorySize,
                            long deviceMemorySize, long kernargPoolSize, boolean xnack,
                            FpAtomics fpAtomics, boolean fidelity, long kernelTimeLimitMillis,
                            boolean interruptWaits, Path trace, boolean statistics) {

    /** Most GPU agents: agent indices (CPU agent 0 included) must fit in 64-bit access masks. */
    public static final int MAX_GPU_AGENTS = 62;
    /** Most compute units (worker threads) of one agent. */
    public static final int MAX_COMPUTE_UNITS = 1024;
    /** Largest wavefront size. */
    public static final int MAX_WAVEFRONT_SIZE = 1024;
    /** Largest queue size in packets. */
    public static final int MAX_QUEUE_SIZE = 1 << 24;
    /** Largest workgroup in work-items: workgroup sizes are u16 fields of the dispatch packet. */
    public static final int MAX_WORKGROUP_SIZE = 65535;
    /** Largest group segment per workgroup in bytes. */
    public static final int MAX_GROUP_SEGMENT = 64 << 20;
    /** Largest private segment per work-item in bytes. */
    public static final int MAX_PRIVATE_SEGMENT = 1 << 20;
    /** Longest kernel time limit in milliseconds (a year). */
    public static final long MAX_KERNEL_TIME_LIMIT_MILLIS = 365L * 24 * 3600 * 1000;

    public RuntimeConfig {
        check(gpuAgents >= 0 && gpuAgents <= MAX_GPU_AGENTS, "gpuAgents must be 0.." + MAX_GPU_AGENTS + ", was " + gpuAgents);
        check(computeUnits >= 1 && computeUnits <= MAX_COMPUTE_UNITS,
                "computeUnits must be 1.." + MAX_COMPUTE_UNITS + ", was " + computeUnits);
        check(cpuComputeUnits >= 1 && cpuComputeUnits <= MAX_COMPUTE_UNITS,
                "cpuComputeUnits must be 1.." + MAX_COMPUTE_UNITS + ", was " + cpuComputeUnits);
        check(powerOfTwo(wavefrontSize) && wavefrontSize <= MAX_WAVEFRONT_SIZE,
                "wavefrontSize must be a power of two up to " + MAX_WAVEFRONT_SIZE + ", was " + wavefrontSize);
        check(powerOfTwo(queueMinSize) && powerOfTwo(queueMaxSize) && queueMinSize <= queueMaxSize
                && queueMaxSize <= MAX_QUEUE_SIZE, "queue sizes must be powers of two with min <= max <= 2^24, were "
                + queueMinSize + ".." + queueMaxSize);
        check(queuesMax >= 1, "queuesMax must be at least 1, was " + queuesMax);
        check(workgroupMaxSize >= 1 && workgroupMaxSize <= MAX_WORKGROUP_SIZE,
                "workgroupMaxSize must be 1.." + MAX_WORKGROUP_SIZE + ", was " + workgroupMaxSize);
        check(groupSegmentMax >= 0 && groupSegmentMax <= MAX_GROUP_SEGMENT,
                "groupSegmentMax must be 0..64 MiB, was " + groupSegmentMax);
        check(privateSegmentMax >= 0 && privateSegmentMax <= MAX_PRIVATE_SEGMENT,
                "privateSegmentMax must be 0..1 MiB, was " + privateSegmentMax);
        check(systemMemorySize > 0 && deviceMemorySize > 0 && kernargPoolSize > 0, "pool sizes must be positive");
        check(fpAtomics != null, "fpAtomics must be one of " + Arrays.toString(FpAtomics.values()));
        check(kernelTimeLimitMillis >= 0 && kernelTimeLimitMillis <= MAX_KERNEL_TIME_LIMIT_MILLIS,
                "kernelTimeLimitMillis must be 0 (no limit) to " + MAX_KERNEL_TIME_LIMIT_MILLIS + ", was "
                        + kernelTimeLimitMillis);
    }

    private static boolean powerOfTwo(long v) {
        return v > 0 && Long.bitCount(v) == 1;
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, message);
        }
    }

    /**
     * The idle strategy of this configuration: bounds from the available processors, with as
     * many spinners as there are agents (one processor-role holder each) plus one host thread.
     */
    public IdleStrategy idleStrategy() {
        return IdleStrategy.forThisMachine(gpuAgents + 2, interruptWaits);
    }

    /** The defaults: one CPU agent, one GPU agent with a compute unit per available processor. */
    public static RuntimeConfig defaults() {
        return builder().build();
    }

    /** The defaults overlaid with the process environment. */
    public static RuntimeConfig fromEnvironment() {
        return fromEnvironment(System.getenv());
    }

    /**
     * The defaults overlaid with {@code env}. Each variable is checked on its own, so an error
     * names the variable and shows its value.
     *
     * @throws HsaException INVALID_ARGUMENT naming the variable when a value is not a number or out of range
     */
    public static RuntimeConfig fromEnvironment(Map<String, String> env) {
        Builder b = builder();
        intVar(env, "HSA4J_GPU_AGENTS", 0, MAX_GPU_AGENTS, false, b::gpuAgents);
        String visible = env.get("ROCR_VISIBLE_DEVICES");
        if (visible != null) {
            b.gpuAgents(visibleGpuAgents(visible, b.gpuAgents));
        }
        intVar(env, "HSA4J_COMPUTE_UNITS", 1, MAX_COMPUTE_UNITS, false, b::computeUnits);
        intVar(env, "HSA4J_CPU_COMPUTE_UNITS", 1, MAX_COMPUTE_UNITS, false, b::cpuComputeUnits);
        intVar(env, "HSA4J_WAVEFRONT_SIZE", 1, MAX_WAVEFRONT_SIZE, true, b::wavefrontSize);
        intVar(env, "HSA4J_QUEUE_MIN_SIZE", 1, MAX_QUEUE_SIZE, true, b::queueMinSize);
        intVar(env, "HSA4J_QUEUE_MAX_SIZE", 1, MAX_QUEUE_SIZE, true, b::queueMaxSize);
        intVar(env, "HSA4J_QUEUES_MAX", 1, Integer.MAX_VALUE, false, b::queuesMax);
        intVar(env, "HSA4J_WORKGROUP_MAX_SIZE", 1, MAX_WORKGROUP_SIZE, false, b::workgroupMaxSize);
        intVar(env, "HSA4J_GROUP_SEGMENT_MAX", 0, MAX_GROUP_SEGMENT, false, b::groupSegmentMax);
        String device = env.get("HSA4J_DEVICE_MEMORY");
        if (device != null) {
            b.deviceMemorySize(parse("HSA4J_DEVICE_MEMORY", device, 1, Long.MAX_VALUE, false));
        }
        String xnackName = env.containsKey("HSA4J_XNACK") ? "HSA4J_XNACK" : "HSA_XNACK";
        String xnack = env.get(xnackName);
        if (xnack != null) {
            b.xnack(parse(xnackName, xnack, 0, 1, false) == 1);
        }
        String fpAtomics = env.get("HSA4J_FP_ATOMICS");
        if (fpAtomics != null) {
            b.fpAtomics(parseFpAtomics(fpAtomics));
        }
        String fidelity = env.get("HSA4J_FIDELITY");
        if (fidelity != null) {
            b.fidelity(parse("HSA4J_FIDELITY", fidelity, 0, 1, false) == 1);
        }
        String timeLimit = env.get("HSA4J_KERNEL_TIME_LIMIT_MS");
        if (timeLimit != null) {
            b.kernelTimeLimitMillis(parse("HSA4J_KERNEL_TIME_LIMIT_MS", timeLimit, 0, MAX_KERNEL_TIME_LIMIT_MILLIS, false));
        }
        String trace = env.get("HSA4J_TRACE");
        if (trace != null && !trace.isBlank()) {
            try {
                b.trace(Path.of(trace));
            } catch (InvalidPathException e) {
                throw new HsaException(HsaStatus.INVALID_ARGUMENT, "environment: HSA4J_TRACE is not a file name: '"
                        + trace + "'");
            }
        }
        String stats = env.get("HSA4J_STATS");
        if (stats != null) {
            b.statistics(parse("HSA4J_STATS", stats, 0, 1, false) == 1);
        }
        String interrupt = env.get(IdleStrategy.INTERRUPT_VARIABLE);
        if (interrupt != null) {
            b.interruptWaits(parse(IdleStrategy.INTERRUPT_VARIABLE, interrupt, 0, 1, false) == 1);
        }
        if (b.queueMinSize > b.queueMaxSize) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "environment: HSA4J_QUEUE_MIN_SIZE ("
                    + b.queueMinSize + ") must not exceed HSA4J_QUEUE_MAX_SIZE (" + b.queueMaxSize + ")");
        }
        try {
            return b.build();
        } catch (HsaException e) {
            throw new HsaException(e.status(), "environment: " + e.getMessage(), e);
        }
    }

    /**
     * How many of {@code configured} GPU agents {@code ROCR_VISIBLE_DEVICES} leaves visible: its
     * comma-separated indices, read as ROCR reads them, up to the first that is not a distinct index
     * below {@code configured} (ROCR ignores the rest of the list from there). The worker-pool GPUs
     * are alike, so the count is all that changes; the visible ones are numbered from 0 again.
     */
    static int visibleGpuAgents(String list, int configured) {
        if (list.isBlank()) {
            return 0;
        }
        BitSet seen = new BitSet();
        for (String entry : list.split(",", -1)) {
            int index;
            try {
                index = Integer.parseInt(entry.trim());
            } catch (NumberFormatException e) {
                break;
            }
            if (index < 0 || index >= configured || seen.get(index)) {
                break;
            }
            seen.set(index);
        }
        return seen.cardinality();
    }

    private static FpAtomics parseFpAtomics(String v) {
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "cas" -> FpAtomics.CAS_LOOP;
            case "unsafe" -> FpAtomics.UNSAFE;
            case "diagnose" -> FpAtomics.UNSAFE_DIAGNOSE;
            default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT,
                    "HSA4J_FP_ATOMICS must be cas, unsafe or diagnose, was '" + v + "'");
        };
    }

    private static void intVar(Map<String, String> env, String name, int min, int max, boolean powerOfTwo,
                               IntConsumer setter) {
        String v = env.get(name);
        if (v != null) {
            setter.accept((int) parse(name, v, min, max, powerOfTwo));
        }
    }

    private static long parse(String name, String v, long min, long max, boolean powerOfTwo) {
        long parsed;
        try {
            parsed = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, name + " must be a whole number, was '" + v + "'");
        }
        if (parsed < min || parsed > max || (powerOfTwo && !powerOfTwo(parsed))) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, name + " must be " + (powerOfTwo ? "a power of two in " : "")
                    + min + ".." + max + ", was '" + v + "'");
        }
        return parsed;
    }

    /** A builder starting from the defaults (the environment is not read: see {@link #builderFromEnvironment()}). */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder starting from the defaults overlaid with the process environment
     * ({@link #fromEnvironment()}): what tests use that set a few fields in code yet must still obey
     * {@code HSA4J_FIDELITY=1} and the other switches, as jcstress tests run with
     * {@code HSA4J_FIDELITY=1 ./hsa4j stress --examples} do.
     *
     * @throws HsaException INVALID_ARGUMENT naming the variable when a value is not a number or out of range
     */
    public static Builder builderFromEnvironment() {
        return builderFromEnvironment(System.getenv());
    }

    /** As {@link #builderFromEnvironment()}, reading {@code env}. */
    public static Builder builderFromEnvironment(Map<String, String> env) {
        return fromEnvironment(env).toBuilder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.gpuAgents = gpuAgents;
        b.computeUnits = computeUnits;
        b.cpuComputeUnits = cpuComputeUnits;
        b.wavefrontSize = wavefrontSize;
        b.queueMinSize = queueMinSize;
        b.queueMaxSize = queueMaxSize;
        b.queuesMax = queuesMax;
        b.workgroupMaxSize = workgroupMaxSize;
        b.groupSegmentMax = groupSegmentMax;
        b.privateSegmentMax = privateSegmentMax;
        b.systemMemorySize = systemMemorySize;
        b.deviceMemorySize = deviceMemorySize;
        b.kernargPoolSize = kernargPoolSize;
        b.xnack = xnack;
        b.fpAtomics = fpAtomics;
        b.fidelity = fidelity;
        b.kernelTimeLimitMillis = kernelTimeLimitMillis;
        b.interruptWaits = interruptWaits;
        b.trace = trace;
        b.statistics = statistics;
        return b;
    }

    /** Builds a {@link RuntimeConfig}; every setter returns the builder. */
    public static final class Builder {
        private int gpuAgents = 1;
        private int computeUnits = Runtime.getRuntime().availableProcessors();
        private int cpuComputeUnits = 1;
        private int wavefrontSize = 64;
        private int queueMinSize = 16;
        private int queueMaxSize = 131072;
        private int queuesMax = 128;
        private int workgroupMaxSize = 1024;
        private int groupSegmentMax = 65536;
        private int privateSegmentMax = 16384;
        private long systemMemorySize = physicalMemory();
        private long deviceMemorySize = 8L << 30;
        private long kernargPoolSize = 256L << 20;
        private boolean xnack;
        private FpAtomics fpAtomics = FpAtomics.CAS_LOOP;
        private boolean fidelity;
        private long kernelTimeLimitMillis;
        private boolean interruptWaits = true;
        private Path trace;
        private boolean statistics;

        private Builder() {
        }

        private static long physicalMemory() {
            if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
                return os.getTotalMemorySize();
            }
            return 16L << 30;
        }

        public Builder gpuAgents(int v) {
            gpuAgents = v;
            return this;
        }

        public Builder computeUnits(int v) {
            computeUnits = v;
            return this;
        }

        public Builder cpuComputeUnits(int v) {
            cpuComputeUnits = v;
            return this;
        }

        public Builder wavefrontSize(int v) {
            wavefrontSize = v;
            return this;
        }

        public Builder queueMinSize(int v) {
            queueMinSize = v;
            return this;
        }

        public Builder queueMaxSize(int v) {
            queueMaxSize = v;
            return this;
        }

        public Builder queuesMax(int v) {
            queuesMax = v;
            return this;
        }

        public Builder workgroupMaxSize(int v) {
            workgroupMaxSize = v;
            return this;
        }

        public Builder groupSegmentMax(int v) {
            groupSegmentMax = v;
            return this;
        }

        public Builder privateSegmentMax(int v) {
            privateSegmentMax = v;
            return this;
        }

        public Builder systemMemorySize(long v) {
            systemMemorySize = v;
            return this;
        }

        public Builder deviceMemorySize(long v) {
            deviceMemorySize = v;
            return this;
        }

        public Builder kernargPoolSize(long v) {
            kernargPoolSize = v;
            return this;
        }

        public Builder xnack(boolean v) {
            xnack = v;
            return this;
        }

        /** How floating-point atomic adds behave; default {@link FpAtomics#CAS_LOOP}. */
        public Builder fpAtomics(FpAtomics v) {
            fpAtomics = v;
            return this;
        }

        /** Turns the memory-model fidelity (checking) mode on or off (default off). */
        public Builder fidelity(boolean v) {
            fidelity = v;
            return this;
        }

        /** Aborts a dispatch that runs longer than {@code v} milliseconds with EXCEPTION; 0 (the default) sets no limit. */
        public Builder kernelTimeLimitMillis(long v) {
            kernelTimeLimitMillis = v;
            return this;
        }

        /** True (default) parks waits after a short spin; false busy-waits ({@code HSA_ENABLE_INTERRUPT=0}). */
        public Builder interruptWaits(boolean v) {
            interruptWaits = v;
            return this;
        }

        /** Writes a Chrome trace-event JSON timeline to {@code file} (null: none, the default); statistics are kept too. */
        public Builder trace(Path file) {
            trace = file;
            return this;
        }

        /** Keeps per-queue and per-kernel statistics (default off; always on with a trace file). */
        public Builder statistics(boolean v) {
            statistics = v;
            return this;
        }

        /** Validates and builds. */
        public RuntimeConfig build() {
            return new RuntimeConfig(gpuAgents, computeUnits, cpuComputeUnits, wavefrontSize, queueMinSize,
                    queueMaxSize, queuesMax, workgroupMaxSize, groupSegmentMax, privateSegmentMax,
                    systemMemorySize, deviceMemorySize, kernargPoolSize, xnack, fpAtomics, fidelity,
                    kernelTimeLimitMillis, interruptWaits, trace, statistics);
        }
    }
}
