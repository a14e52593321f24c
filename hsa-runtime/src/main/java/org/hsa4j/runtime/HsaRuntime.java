package org.hsa4j.runtime;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.AgentFeature;
import org.hsa4j.agent.AgentProperties;
import org.hsa4j.agent.DeviceType;
import org.hsa4j.kernel.Executable;
import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.CacheGeometry;
import org.hsa4j.memory.CoherenceModel;
import org.hsa4j.memory.FpAtomicDiagnostics;
import org.hsa4j.memory.FpAtomics;
import org.hsa4j.memory.GlobalFlag;
import org.hsa4j.memory.MemAdvice;
import org.hsa4j.memory.MemoryKind;
import org.hsa4j.memory.MemoryManager;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.MigrationStats;
import org.hsa4j.memory.SegmentKind;
import org.hsa4j.memory.Svm;
import org.hsa4j.signal.AsyncHandlerService;
import org.hsa4j.signal.AsyncSignalHandler;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.SignalGroup;
import org.hsa4j.signal.SignalManager;

/**
 * The runtime ({@code hsa_init} .. {@code hsa_shut_down}): the topology of agents, shared
 * virtual memory with its pools, signals, executables, and ROCR/HIP-style memory entry points.
 *
 * <p>Agent 0 is the CPU agent (the host: it consumes agent dispatch packets); agents 1..n are GPU
 * agents whose compute units are worker threads. Each runtime is independent; closing it stops
 * its threads, fails every signal still awaited (so no wait outlives it) and frees its memory.
 *
 * <pre>{@code
 * try (HsaRuntime rt = HsaRuntime.init()) {
 *     Agent gpu = rt.gpuAgent();
 *     Queue q = gpu.createQueue(256, QueueType.SINGLE, null);
 *     ...
 * }
 * }</pre>
 */
public final class HsaRuntime implements AutoCloseable {
    /** Ticks per second of {@link #timestamp()}. */
    public static final long TIMESTAMP_FREQUENCY = 1_000_000_000L;

    private final RuntimeConfig config;
    private final long origin = System.nanoTime();
    private final MemoryManager memory;
    private final SignalManager signals;
    private final AsyncHandlerService asyncHandlers = new AsyncHandlerService();
    private final List<Agent> agents;
    private final MemoryPool systemFine;
    private final MemoryPool kernargPool;
    private final List<MemoryPool> deviceCoarse = new ArrayList<>();
    /** Fidelity mode's caches, or null when the mode is off. */
    private final CoherenceModel coherence;
    private volatile boolean closed;

    private HsaRuntime(RuntimeConfig config) {
        this.config = config;
        this.memory = new MemoryManager(config.fpAtomics(), config.xnack());
        int gpus = config.gpuAgents();
        systemFine = memory.createPool("system fine-grained", SegmentKind.GLOBAL, EnumSet.of(GlobalFlag.FINE_GRAINED), 0,
                config.systemMemorySize(), config.systemMemorySize(), true, true);
        kernargPool = memory.createPool("kernarg", SegmentKind.GLOBAL,
                EnumSet.of(GlobalFlag.KERNARG, GlobalFlag.FINE_GRAINED), 0, config.kernargPoolSize(),
                config.kernargPoolSize(), true, true);
        MemoryPool systemCoarse = memory.createPool("system coarse-grained", SegmentKind.GLOBAL,
                EnumSet.of(GlobalFlag.COARSE_GRAINED), 0, config.systemMemorySize(), config.systemMemorySize(), false, true);
        coherence = config.fidelity() ? new CoherenceModel(CacheGeometry.defaults(), cachedUnits(config)) : null;
        signals = new SignalManager(memory, systemFine, Signal.RECHECK_NANOS, coherence, config.idleStrategy());
        List<Agent> made = new ArrayList<>();
        int cpuUnits = config.cpuComputeUnits();
        AgentProperties cpu = new AgentProperties("cpu0", DeviceType.CPU, EnumSet.of(AgentFeature.AGENT_DISPATCH),
                cpuUnits, 1, new int[] {1, 1, 1}, 1, new long[] {1, 1, 1}, 1, config.queueMinSize(),
                config.queueMaxSize(), config.queuesMax(), 0, 0);
        made.add(new Agent(0, cpu, memory, signals, systemFine, List.of(systemFine, kernargPool, systemCoarse),
                this::timestamp, coherence));
        for (int g = 1; g <= gpus; g++) {
            String name = "gpu" + (g - 1);
            MemoryPool coarse = memory.createPool(name + " coarse-grained (device)", SegmentKind.GLOBAL,
                    EnumSet.of(GlobalFlag.COARSE_GRAINED), g, config.deviceMemorySize(), config.deviceMemorySize(),
                    false, true);
            MemoryPool fine = memory.createPool(name + " fine-grained", SegmentKind.GLOBAL,
                    EnumSet.of(GlobalFlag.FINE_GRAINED), g, config.deviceMemorySize(), config.deviceMemorySize(),
                    true, true);
            MemoryPool group = memory.createPool(name + " group", SegmentKind.GROUP, Set.of(), g,
                    config.groupSegmentMax(), config.groupSegmentMax(), false, false);
            MemoryPool priv = memory.createPool(name + " private", SegmentKind.PRIVATE, Set.of(), g,
                    config.privateSegmentMax(), config.privateSegmentMax(), false, false);
            deviceCoarse.add(coarse);
            int max = config.workgroupMaxSize();
            AgentProperties props = new AgentProperties(name, DeviceType.GPU, EnumSet.of(AgentFeature.KERNEL_DISPATCH),
                    config.computeUnits(), config.wavefrontSize(), new int[] {Math.min(max, 65535), Math.min(max, 65535),
                    Math.min(max, 65535)}, max, new long[] {0xFFFF_FFFFL, 0xFFFF_FFFFL, 0xFFFF_FFFFL}, 0xFFFF_FFFFL,
                    config.queueMinSize(), config.queueMaxSize(), config.queuesMax(), config.groupSegmentMax(),
                    config.privateSegmentMax());
            made.add(new Agent(g, props, memory, signals, systemFine, List.of(coarse, fine, group, priv),
                    this::timestamp, coherence));
        }
        agents = List.copyOf(made);
        for (Agent a : agents) {
            a.start(config.kernelTimeLimitMillis() * 1_000_000);
        }
    }

    /** Compute units that get fidelity mode's caches, by agent index: every GPU agent's, none of the CPU agent's. */
    private static int[] cachedUnits(RuntimeConfig config) {
        int[] units = new int[config.gpuAgents() + 1];
        Arrays.fill(units, 1, units.length, config.computeUnits());
        return units;
    }

    /** {@code hsa_init} with the defaults overlaid with the environment ({@link RuntimeConfig#fromEnvironment()}). */
    public static HsaRuntime init() {
        return new HsaRuntime(RuntimeConfig.fromEnvironment());
    }

    /** {@code hsa_init} with an explicit configuration. */
    public static HsaRuntime init(RuntimeConfig config) {
        return new HsaRuntime(HsaException.requireNonNull(config, "config"));
    }

    /** The configuration this runtime started with. */
    public RuntimeConfig config() {
        return config;
    }

    // ---- system and agents ----------------------------------------------------------------------

    /** {@code hsa_system_get_info}. */
    public SystemInfo systemInfo() {
        checkOpen();
        return new SystemInfo(1, 2, timestamp(), TIMESTAMP_FREQUENCY, Long.MAX_VALUE, "LARGE", "LITTLE");
    }

    /** The system timestamp: nanoseconds since the runtime started. */
    public long timestamp() {
        return System.nanoTime() - origin;
    }

    /** {@code hsa_iterate_agents}: every agent, CPU first. */
    public List<Agent> agents() {
        return agents;
    }

    /** The CPU agent (the host). */
    public Agent cpuAgent() {
        return agents.get(0);
    }

    /** The GPU agents. */
    public List<Agent> gpuAgents() {
        return agents.subList(1, agents.size());
    }

    /**
     * The first GPU agent.
     *
     * @throws HsaException INVALID_AGENT when the topology has none
     */
    public Agent gpuAgent() {
        if (agents.size() < 2) {
            throw new HsaException(HsaStatus.INVALID_AGENT, "this runtime has no GPU agent");
        }
        return agents.get(1);
    }

    // ---- memory ---------------------------------------------------------------------------------

    /** The host's view of SVM (the CPU agent's). */
    public Svm svm() {
        return cpuAgent().svm();
    }

    /** The memory manager: address space and pools. */
    public MemoryManager memory() {
        return memory;
    }

    /** The host's fine-grained system pool. */
    public MemoryPool systemPool() {
        return systemFine;
    }

    /** The kernarg pool. */
    public MemoryPool kernargPool() {
        return kernargPool;
    }

    /** True in the memory-model fidelity mode ({@link RuntimeConfig#fidelity()}). */
    public boolean fidelityEnabled() {
        return coherence != null;
    }

    /** True when GPUs may touch plain system memory. */
    public boolean xnackEnabled() {
        return config.xnack();
    }

    /** Floating-point atomic adds that unsafe atomics would lose, as reported under {@link FpAtomics#UNSAFE_DIAGNOSE}. */
    public FpAtomicDiagnostics fpAtomicDiagnostics() {
        return memory.fpAtomicDiagnostics();
    }

    /** hipHostMalloc: fine-grained host memory every agent may access. */
    public long hostMalloc(long bytes) {
        return memory.allocate(systemFine, bytes, MemoryPool.ALIGNMENT, MemoryKind.HOST, -1L, 0, null).base();
    }

    /** hipMalloc: coarse-grained memory of {@code gpu}; only that agent may access it until allow_access. */
    public long deviceMalloc(Agent gpu, long bytes) {
        checkAgent(gpu);
        if (gpu.deviceType() != DeviceType.GPU) {
            throw new HsaException(HsaStatus.INVALID_AGENT, gpu.name() + " is not a GPU agent");
        }
        MemoryPool pool = deviceCoarse.get(gpu.index() - 1);
        return memory.allocate(pool, bytes, MemoryPool.ALIGNMENT, MemoryKind.DEVICE, 1L << gpu.index(), gpu.index(),
                null).base();
    }

    /** hipMallocManaged: fine-grained memory every agent may access (pages may migrate). */
    public long managedMalloc(long bytes) {
        return memory.allocate(systemFine, bytes, MemoryPool.ALIGNMENT, MemoryKind.MANAGED, -1L, 0, null).base();
    }

    /** Plain malloc: the host may access it; a GPU only with XNACK on (else the access faults). */
    public long systemMalloc(long bytes) {
        long mask = config.xnack() ? -1L : 1L;
        return memory.allocate(systemFine, bytes, MemoryPool.ALIGNMENT, MemoryKind.SYSTEM, mask, 0, null).base();
    }

    /** Allocates from {@code pool} ({@code hsa_amd_memory_pool_allocate}). */
    public long allocate(MemoryPool pool, long bytes) {
        return pool.allocate(bytes);
    }

    /**
     * Frees memory from any of the allocation entry points (hipFree, free, pool free); freeing 0
     * (the null address) does nothing.
     *
     * @throws HsaException INVALID_ALLOCATION on a double free, a foreign or interior address, or runtime memory
     */
    public void free(long address) {
        if (address == 0) {
            return; // free(NULL), hipFree(nullptr) and hsa_memory_free(NULL) do nothing and succeed
        }
        memory.free(address, null);
    }

    /** {@code hsa_amd_agents_allow_access}: lets {@code agents} access the allocation at {@code address}. */
    public void allowAccess(long address, Agent... agents) {
        HsaException.requireNonNull(agents, "agents");
        checkOpen();
        Allocation a = liveStart(address);
        long bits = 0;
        for (Agent agent : agents) {
            bits |= 1L << checkAgent(agent).index();
        }
        memory.grantAccess(a, bits);
    }

    /**
     * {@code hsa_memory_assign_agent}: makes {@code agent} the owner of a coarse-grained allocation,
     * with access; as the spec says, the previous owner can no longer access it, and on fine-grained
     * memory this does nothing.
     */
    public void assignAgent(long address, Agent agent) {
        checkAgent(agent);
        checkOpen();
        Allocation a = liveStart(address);
        if (!a.fineGrained()) {
            memory.transferOwnership(a, agent.index());
        }
    }

    /** {@code hsa_memory_copy}: copies between any two live allocations (as a DMA engine would). */
    public void memoryCopy(long dst, long src, long bytes) {
        checkOpen();
        Allocation s = memory.find(src);
        Allocation d = memory.find(dst);
        if (s == null || !s.contains(src, bytes)) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format("copy source 0x%x+%d is not live memory", src, bytes));
        }
        if (d == null || !d.contains(dst, bytes)) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format("copy target 0x%x+%d is not live memory", dst, bytes));
        }
        MemorySegment.copy(s.segment(), src - s.base(), d.segment(), dst - d.base(), bytes);
    }

    /**
     * {@code hipMemPrefetchAsync}: migrates the pages of {@code address .. address+bytes} of managed
     * or plain system memory to {@code agent} now (counted as prefetch migrations).
     *
     * @throws HsaException INVALID_ARGUMENT for a range outside one managed or plain system
     *                      allocation, an agent not of this runtime, or plain system memory sent to a GPU with XNACK off
     */
    public void memPrefetch(long address, long bytes, Agent agent) {
        checkOpen();
        memory.prefetch(address, bytes, agentArgument(agent, "prefetch").index());
    }

    /**
     * {@code hipMemAdvise}: gives {@code advice} for the pages of {@code address .. address+bytes} of
     * managed or plain system memory. {@code agent} is the preferred location for
     * {@link MemAdvice#SET_PREFERRED_LOCATION}; for other advice it may be null.
     *
     * @throws HsaException INVALID_ARGUMENT for a range outside one managed or plain system
     *                      allocation, a missing advice, or an agent that is missing (preferred location) or not of this runtime
     */
    public void memAdvise(long address, long bytes, MemAdvice advice, Agent agent) {
        checkOpen();
        int index = agent == null && advice != MemAdvice.SET_PREFERRED_LOCATION ? 0
                : agentArgument(agent, "advise " + advice).index();
        memory.advise(address, bytes, advice, index);
    }

    /** Page accounting counters of managed and plain system memory, summed over every agent. */
    public MigrationStats migrationStats() {
        return memory.pageAccounting().totals();
    }

    /** Page accounting counters of {@code agent}: pages it touched or received by prefetch. */
    public MigrationStats migrationStats(Agent agent) {
        return memory.pageAccounting().stats(agentArgument(agent, "migration stats").index());
    }

    private Agent agentArgument(Agent agent, String what) {
        if (agent == null || agent.index() >= agents.size() || agents.get(agent.index()) != agent) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, what + ": " + (agent == null ? "no agent given"
                    : agent.name() + " is not an agent of this runtime"));
        }
        return agent;
    }

    /** {@code hsa_amd_pointer_info}: the live allocation containing {@code address}, or null. */
    public Allocation pointerInfo(long address) {
        return memory.find(address);
    }

    /** {@code agent}, when it is one of this runtime's agents; else INVALID_AGENT. */
    private Agent checkAgent(Agent agent) {
        if (agent == null) {
            throw new HsaException(HsaStatus.INVALID_AGENT, "agent must not be null");
        }
        if (agent.index() >= agents.size() || agents.get(agent.index()) != agent) {
            throw new HsaException(HsaStatus.INVALID_AGENT, agent.name() + " is not an agent of this runtime");
        }
        return agent;
    }

    private Allocation liveStart(long address) {
        Allocation a = memory.find(address);
        if (a == null || a.base() != address) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format(
                    "0x%016x is not the start of a live allocation", address));
        }
        return a;
    }

    // ---- signals --------------------------------------------------------------------------------

    /** {@code hsa_signal_create} with no consumer restriction. */
    public Signal createSignal(long initialValue) {
        checkOpen();
        return signals.create(initialValue);
    }

    /** {@code hsa_signal_create}: {@code consumers} lists the agents that may wait (informational here). */
    public Signal createSignal(long initialValue, List<Agent> consumers) {
        if (consumers == null) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "consumers must be a list of agents (empty for any)");
        }
        for (Agent agent : consumers) {
            checkAgent(agent);
        }
        return createSignal(initialValue);
    }

    /** The live signal with {@code handle}. */
    public Signal signal(long handle) {
        checkOpen();
        return signals.fromHandle(handle);
    }

    /** The signal manager. */
    public SignalManager signals() {
        return signals;
    }

    /** {@code hsa_signal_group_create}. */
    public SignalGroup createSignalGroup(List<Signal> members) {
        checkOpen();
        return new SignalGroup(members);
    }

    /** {@code hsa_amd_signal_async_handler}: runs {@code handler} off this thread once the condition holds. */
    public void setAsyncHandler(Signal signal, SignalCondition condition, long value, AsyncSignalHandler handler) {
        checkOpen();
        asyncHandlers.register(signal, condition, value, handler);
    }

    // ---- executables ----------------------------------------------------------------------------

    /** {@code hsa_executable_create}. */
    public Executable createExecutable() {
        checkOpen();
        return new Executable(memory, systemFine);
    }

    // ---- life cycle -----------------------------------------------------------------------------

    private void checkOpen() {
        if (closed) {
            throw new HsaException(HsaStatus.NOT_INITIALIZED, "the runtime has been shut down");
        }
    }

    /** True once closed. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * {@code hsa_shut_down}: aborts running kernels (at their next SVM access, signal operation or
     * barrier; their completion signals and queue error callbacks report NOT_INITIALIZED), stops
     * every compute unit and watchdog (joining them for up to 5 s in all), fails every pending
     * completion signal and every live signal with NOT_INITIALIZED, and frees all memory. When it
     * returns no runtime thread is alive, except the unit of a kernel looping without any abort
     * point: Java cannot stop that thread, so it is abandoned (a daemon) and faults at its next
     * access of the released memory. The JVM is never affected.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        HsaException reason = new HsaException(HsaStatus.NOT_INITIALIZED, "the runtime has been shut down");
        for (Agent a : agents) {
            a.shutdown(reason, 5_000_000_000L / agents.size());
        }
        signals.failAll(reason);
        asyncHandlers.close();
        memory.close();
    }

}
