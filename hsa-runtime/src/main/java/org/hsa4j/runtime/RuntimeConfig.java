package org.hsa4j.runtime;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.function.Consumer;

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
 * <tr><td>HSA_XNACK or HSA4J_XNACK</td><td>1 lets GPUs touch plain system memory (default 0)</td></tr>
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
 */
public record RuntimeConfig(int gpuAgents, int computeUnits, int cpuComputeUnits, int wavefrontSize,
                            int queueMinSize, int queueMaxSize, int queuesMax, int workgroupMaxSize,
                            int groupSegmentMax, int privateSegmentMax, long systemMemorySize,
                            long deviceMemorySize, long kernargPoolSize, boolean xnack) {

    public RuntimeConfig {
        check(gpuAgents >= 0 && gpuAgents <= 62, "gpuAgents must be 0..62, was " + gpuAgents);
        check(computeUnits >= 1 && computeUnits <= 1024, "computeUnits must be 1..1024, was " + computeUnits);
        check(cpuComputeUnits >= 1 && cpuComputeUnits <= 1024, "cpuComputeUnits must be 1..1024, was " + cpuComputeUnits);
        check(powerOfTwo(wavefrontSize) && wavefrontSize <= 1024, "wavefrontSize must be a power of two up to 1024, was " + wavefrontSize);
        check(powerOfTwo(queueMinSize) && powerOfTwo(queueMaxSize) && queueMinSize <= queueMaxSize
                && queueMaxSize <= (1 << 24), "queue sizes must be powers of two with min <= max <= 2^24, were "
                + queueMinSize + ".." + queueMaxSize);
        check(queuesMax >= 1, "queuesMax must be at least 1, was " + queuesMax);
        check(workgroupMaxSize >= 1 && workgroupMaxSize <= 65535, "workgroupMaxSize must be 1..65535, was " + workgroupMaxSize);
        check(groupSegmentMax >= 0 && groupSegmentMax <= (64 << 20), "groupSegmentMax must be 0..64 MiB, was " + groupSegmentMax);
        check(privateSegmentMax >= 0 && privateSegmentMax <= (1 << 20), "privateSegmentMax must be 0..1 MiB, was " + privateSegmentMax);
        check(systemMemorySize > 0 && deviceMemorySize > 0 && kernargPoolSize > 0, "pool sizes must be positive");
    }

    private static boolean powerOfTwo(int v) {
        return v > 0 && Integer.bitCount(v) == 1;
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, message);
        }
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
     * The defaults overlaid with {@code env}.
     *
     * @throws HsaException INVALID_ARGUMENT naming the variable when a value is not a number or out of range
     */
    public static RuntimeConfig fromEnvironment(Map<String, String> env) {
        Builder b = builder();
        intVar(env, "HSA4J_GPU_AGENTS", b::gpuAgents);
        intVar(env, "HSA4J_COMPUTE_UNITS", b::computeUnits);
        intVar(env, "HSA4J_CPU_COMPUTE_UNITS", b::cpuComputeUnits);
        intVar(env, "HSA4J_WAVEFRONT_SIZE", b::wavefrontSize);
        intVar(env, "HSA4J_QUEUE_MIN_SIZE", b::queueMinSize);
        intVar(env, "HSA4J_QUEUE_MAX_SIZE", b::queueMaxSize);
        intVar(env, "HSA4J_QUEUES_MAX", b::queuesMax);
        intVar(env, "HSA4J_WORKGROUP_MAX_SIZE", b::workgroupMaxSize);
        intVar(env, "HSA4J_GROUP_SEGMENT_MAX", b::groupSegmentMax);
        String device = env.get("HSA4J_DEVICE_MEMORY");
        if (device != null) {
            b.deviceMemorySize(parse("HSA4J_DEVICE_MEMORY", device));
        }
        String xnack = env.getOrDefault("HSA4J_XNACK", env.get("HSA_XNACK"));
        if (xnack != null) {
            if (!xnack.equals("0") && !xnack.equals("1")) {
                throw new HsaException(HsaStatus.INVALID_ARGUMENT, "HSA_XNACK/HSA4J_XNACK must be 0 or 1, was '" + xnack + "'");
            }
            b.xnack(xnack.equals("1"));
        }
        try {
            return b.build();
        } catch (HsaException e) {
            throw new HsaException(e.status(), "environment: " + e.getMessage(), e);
        }
    }

    private static void intVar(Map<String, String> env, String name, Consumer<Integer> setter) {
        String v = env.get(name);
        if (v != null) {
            long parsed = parse(name, v);
            if (parsed > Integer.MAX_VALUE || parsed < Integer.MIN_VALUE) {
                throw new HsaException(HsaStatus.INVALID_ARGUMENT, name + " is out of range: " + v);
            }
            setter.accept((int) parsed);
        }
    }

    private static long parse(String name, String v) {
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, name + " must be a whole number, was '" + v + "'");
        }
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
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

        /** Validates and builds. */
        public RuntimeConfig build() {
            return new RuntimeConfig(gpuAgents, computeUnits, cpuComputeUnits, wavefrontSize, queueMinSize,
                    queueMaxSize, queuesMax, workgroupMaxSize, groupSegmentMax, privateSegmentMax,
                    systemMemorySize, deviceMemorySize, kernargPoolSize, xnack);
        }
    }
}
