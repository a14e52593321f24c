package org.hsa4j.runtime;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.AgentFeature;
import org.hsa4j.agent.AgentProperties;
import org.hsa4j.agent.DeviceType;
import org.hsa4j.agent.spi.QueueFactory;
import org.hsa4j.kernel.Executable;
import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.FpAtomicDiagnostics;
import org.hsa4j.memory.FpAtomics;
import org.hsa4j.memory.GlobalFlag;
import org.hsa4j.memory.MemAdvice;
import org.hsa4j.memory.MemoryKind;
import org.hsa4j.memory.MemoryManager;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.MigrationStats;
import org.hsa4j.memory.PoolMemory;
import org.hsa4j.memory.Region;
import org.hsa4j.memory.SegmentKind;
import org.hsa4j.memory.Svm;
import org.hsa4j.memory.SvmAccess;
import org.hsa4j.memory.coherence.CacheGeometry;
import org.hsa4j.memory.coherence.CoherenceModel;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueDescriptor;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.spi.AgentFactory;
import org.hsa4j.signal.AsyncHandlerService;
import org.hsa4j.signal.AsyncSignalHandler;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.SignalGroup;
import org.hsa4j.signal.SignalManager;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.hsa4j.trace.KernelStatistics;
import org.hsa4j.trace.QueueStatistics;
import org.hsa4j.trace.Tracer;

/**
 * The runtime ({@code hsa_init} .. {@code hsa_shut_down}): the topology of agents, shared
 * virtual memory with its pools, signals, executables, and ROCR/HIP-style memory entry points.
 *
 * <p>Agent 0 is the CPU agent (the host: it consumes agent dispatch packets); agents 1..n are GPU
 * agents whose compute units are worker threads. {@link #init()} then asks each installed
 * {@link AgentProvider} (hsa-cuda's NVIDIA GPUs, when that module is on the class path) for agents of
 * its own, listed after those. Each runtime is independent; closing it stops
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
    /** Every agent, CPU first; written only while the runtime is built (providers see the own agents). */
    private List<Agent> agents;
    private final List<String> providerNotes;
    private final MemoryPool systemFine;
    private final MemoryPool kernargPool;
    /** The memory of {@link #memoryRegister}, and its pool (made on first use, under its lock). */
    private final RegisteredMemory registered = new RegisteredMemory();
    private MemoryPool registeredPool;
    /** The fine-grained system pool of real addresses, made on first use; guarded by this. */
    private MemoryPool realSystemFine;
    private final List<MemoryPool> deviceCoarse = new ArrayList<>();
    /** How memory is accessed, chosen once: {@link SvmAccess#DIRECT}, or fidelity mode's caches. */
    private final SvmAccess coherence;
    /** What dispatches, barriers, blocking waits and service calls report to: chosen once from the configuration. */
    private final Tracer tracer;
    private volatile boolean closed;

    private HsaRuntime(RuntimeConfig config, List<AgentProvider> providers) {
        this.config = config;
        this.tracer = tracer(config);
        coherence = config.fidelity() ? new CoherenceModel(CacheGeometry.defaults(), cachedUnits(config)) : SvmAccess.DIRECT;
        this.memory = new MemoryManager(config.fpAtomics(), config.xnack(), coherence);
        int gpus = config.gpuAgents();
        systemFine = memory.createPool("system fine-grained", SegmentKind.GLOBAL, EnumSet.of(GlobalFlag.FINE_GRAINED), 0,
                config.systemMemorySize(), config.systemMemorySize(), true, true);
        kernargPool = memory.createPool("kernarg", SegmentKind.GLOBAL,
                EnumSet.of(GlobalFlag.KERNARG, GlobalFlag.FINE_GRAINED), 0, config.kernargPoolSize(),
                config.kernargPoolSize(), true, true);
        MemoryPool systemCoarse = memory.createPool("system coarse-grained", SegmentKind.GLOBAL,
                EnumSet.of(GlobalFlag.COARSE_GRAINED), 0, config.systemMemorySize(), config.systemMemorySize(), false, true);
        signals = new SignalManager(memory, systemFine, Signal.RECHECK_NANOS, coherence, config.idleStrategy(), tracer);
        List<Agent> made = new ArrayList<>();
        int cpuUnits = config.cpuComputeUnits();
        AgentProperties cpu = new AgentProperties("cpu0", DeviceType.CPU, EnumSet.of(AgentFeature.AGENT_DISPATCH),
                cpuUnits, 1, new int[] {1, 1, 1}, 1, new long[] {1, 1, 1}, 1, config.queueMinSize(),
                config.queueMaxSize(), config.queuesMax(), 0, 0);
        made.add(AgentFactory.create(0, cpu, memory, signals, systemFine, List.of(systemFine, kernargPool, systemCoarse),
                this::timestamp, coherence, tracer));
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
            made.add(AgentFactory.create(g, props, memory, signals, systemFine, List.of(coarse, fine, group, priv),
                    this::timestamp, coherence, tracer));
        }
        agents = List.copyOf(made);
        for (Agent a : agents) {
            a.start(config.kernelTimeLimitMillis() * 1_000_000);
        }
        providerNotes = openProvided(providers, made);
    }

    /** The tracer {@code config} asks for: recording with a trace file or statistics, else off. */
    private Tracer tracer(RuntimeConfig config) {
        if (config.trace() == null && !config.statistics()) {
            return Tracer.off(this::timestamp);
        }
        try {
            return Tracer.recording(config.trace(), this::timestamp);
        } catch (IOException | RuntimeException e) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "trace file " + config.trace() + " (HSA4J_TRACE) cannot be "
                    + "written: " + e, e);
        }
    }

    /** Adds the agents of {@code providers} after {@code made}; on a provider's error closes the runtime and rethrows. */
    private List<String> openProvided(List<AgentProvider> providers, List<Agent> made) {
        List<String> notes = new ArrayList<>();
        try {
            for (AgentProvider p : providers) {
                AgentProvider.Found found = p.open(this, made.size());
                for (Agent a : found.agents()) {
                    if (a.index() != made.size() || !a.isProvided()) {
                        throw new HsaException(HsaStatus.INVALID_AGENT, "agent provider " + p.name() + " made "
                                + a.name() + " with index " + a.index() + " (not a provided agent at index "
                                + made.size() + ")");
                    }
                    made.add(a);
                    agents = List.copyOf(made);
                }
                notes.add(p.name() + ": " + found.note());
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        return List.copyOf(notes);
    }

    /**
     * The agent providers installed on the class path ({@code META-INF/services/org.hsa4j.runtime.AgentProvider});
     * one that cannot be loaded is left out.
     */
    public static List<AgentProvider> installedProviders() {
        List<AgentProvider> found = new ArrayList<>();
        try {
            for (AgentProvider p : ServiceLoader.load(AgentProvider.class, HsaRuntime.class.getClassLoader())) {
                found.add(p);
            }
        } catch (ServiceConfigurationError e) {
            // a provider whose class cannot be loaded gives no agents; the runtime's own still work
        }
        return found;
    }

    /** Compute units that get fidelity mode's caches, by agent index: every GPU agent's, none of the CPU agent's. */
    private static int[] cachedUnits(RuntimeConfig config) {
        int[] units = new int[config.gpuAgents() + 1];
        Arrays.fill(units, 1, units.length, config.computeUnits());
        return units;
    }

    /**
     * {@code hsa_init} with the defaults overlaid with the environment ({@link RuntimeConfig#fromEnvironment()}),
     * and the agents of every {@linkplain #installedProviders() installed provider} after the runtime's own.
     *
     * @throws HsaException when a provider cannot give a device its configuration demands (e.g. {@code HSA4J_CUDA=required})
     */
    public static HsaRuntime init() {
        return new HsaRuntime(RuntimeConfig.fromEnvironment(), installedProviders());
    }

    /** {@code hsa_init} with an explicit configuration: exactly the agents it describes, no provided ones. */
    public static HsaRuntime init(RuntimeConfig config) {
        return new HsaRuntime(HsaException.requireNonNull(config, "config"), List.of());
    }

    /** {@code hsa_init} with an explicit configuration and the agents of {@code providers} after its own. */
    public static HsaRuntime init(RuntimeConfig config, List<AgentProvider> providers) {
        return new HsaRuntime(HsaException.requireNonNull(config, "config"),
                List.copyOf(HsaException.requireNonNull(providers, "providers")));
    }

    /** One line per provider consulted by {@link #init()}: what it found, or why it found nothing. */
    public List<String> providerNotes() {
        return providerNotes;
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

    /** The tracer this runtime's packets, waits and (services') calls report to; layers hook into it, applications need not. */
    public Tracer tracer() {
        return tracer;
    }

    /**
     * Per-queue statistics (dispatch and barrier packets, failures, launch-to-completion times) of
     * every queue that ran a packet, by queue id; empty unless the runtime records
     * ({@link RuntimeConfig#statistics()} or a trace file).
     */
    public List<QueueStatistics> queueStatistics() {
        return tracer.queueStatistics();
    }

    /** Per-kernel statistics (dispatches, failures, workgroups, times) by kernel name; empty unless the runtime records. */
    public List<KernelStatistics> kernelStatistics() {
        return tracer.kernelStatistics();
    }

    /** {@code hsa_iterate_agents}: every agent, CPU first, then the runtime's GPU agents, then provided ones. */
    public List<Agent> agents() {
        return agents;
    }

    /** The CPU agent (the host). */
    public Agent cpuAgent() {
        return agents.get(0);
    }

    /** The runtime's own GPU agents (compute-unit pools that run Java kernels); provided agents are not among them. */
    public List<Agent> gpuAgents() {
        return agents.subList(1, 1 + config.gpuAgents());
    }

    /** The provided agents ({@link AgentProvider}), after the runtime's own in {@link #agents()}. */
    public List<Agent> providedAgents() {
        return agents.subList(1 + config.gpuAgents(), agents.size());
    }

    /**
     * The first GPU agent.
     *
     * @throws HsaException INVALID_AGENT when the topology has none
     */
    public Agent gpuAgent() {
        if (config.gpuAgents() < 1) {
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

    /**
     * The host's fine-grained system pool of real addresses: each allocation's SVM address is its
     * native address, so it means the same bytes to every agent that maps the memory (a CUDA agent
     * registers it), pointers stored inside it included. Made on first use (it reserves address
     * space); {@link #systemPool()} stays the default and keeps tagged addresses.
     *
     * @throws HsaException OUT_OF_RESOURCES where real addresses are unavailable (not Linux, mmap refused)
     */
    public synchronized MemoryPool realSystemPool() {
        if (realSystemFine == null) {
            realSystemFine = memory.createRealPool("system fine-grained (real addresses)",
                    EnumSet.of(GlobalFlag.FINE_GRAINED), 0, config.systemMemorySize(), config.systemMemorySize(), true);
        }
        return realSystemFine;
    }

    /** The kernarg pool. */
    public MemoryPool kernargPool() {
        return kernargPool;
    }

    /** True in the memory-model fidelity mode ({@link RuntimeConfig#fidelity()}). */
    public boolean fidelityEnabled() {
        return coherence.coherent();
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
        if (gpu.isProvided()) {
            throw new HsaException(HsaStatus.INVALID_AGENT, gpu.name() + " is a provided agent: its device memory "
                    + "comes from its provider (e.g. CudaAgent.allocateDevice)");
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
     * {@code hsa_memory_register}: makes native memory the application mapped itself addressable
     * by every agent: its own address becomes an SVM address (checked by {@code rt.svm()}, usable in
     * kernargs and in CPU-agent kernels) until {@link #memoryDeregister}. The application keeps
     * owning the memory and must deregister it before freeing it (as HSA requires). Returns the address.
     *
     * @throws HsaException INVALID_ARGUMENT for a heap or empty segment, or one overlapping
     *                      memory that is already addressable
     */
    public long memoryRegister(MemorySegment memory) {
        HsaException.requireNonNull(memory, "memory");
        checkOpen();
        if (!memory.isNative() || memory.byteSize() == 0) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "only non-empty native memory can be registered, not "
                    + memory);
        }
        long address = memory.address();
        long last = address + memory.byteSize() - 1;
        if (this.memory.find(address) != null || this.memory.find(last) != null) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format(
                    "0x%x..0x%x overlaps memory that is already addressable", address, last));
        }
        synchronized (registered) {
            if (registeredPool == null) {
                registeredPool = this.memory.createExternalPool("registered host memory",
                        EnumSet.of(GlobalFlag.FINE_GRAINED), 0, Long.MAX_VALUE, Long.MAX_VALUE, true, registered);
            }
            registered.next = address;
            try {
                return this.memory.allocate(registeredPool, memory.byteSize(), MemoryPool.ALIGNMENT, MemoryKind.HOST,
                        -1L, 0, null).base();
            } finally {
                registered.next = 0;
            }
        }
    }

    /**
     * {@code hsa_memory_deregister}: ends a {@link #memoryRegister}; the address faults for every
     * agent from now on, once the checked accesses in flight have finished. The memory is the
     * application's again.
     *
     * @throws HsaException INVALID_ARGUMENT when {@code address} is not the start of a registration
     */
    public void memoryDeregister(long address) {
        checkOpen();
        synchronized (registered) {
            Allocation a = this.memory.find(address);
            if (registeredPool == null || a == null || a.pool() != registeredPool) {
                throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format(
                        "0x%x is not registered memory (hsa_memory_register)", address));
            }
        }
        coherence.drainHost();
        this.memory.free(address, registeredPool);
    }

    /** Registered memory as a pool's memory: "allocating" hands out the address being registered, freeing leaves it. */
    private static final class RegisteredMemory implements PoolMemory {
        long next;

        @Override
        public long allocate(long bytes) {
            return next;
        }

        @Override
        public void free(long address) {
            // the application owns the memory
        }

        @Override
        public boolean hostAccessible() {
            return true;
        }
    }

    /**
     * {@code hsa_agent_iterate_regions}: the agent's memory as HSA 1.0 regions, one per pool of
     * {@link Agent#memoryPools()}, in the same order.
     */
    public List<Region> regions(Agent agent) {
        HsaException.requireNonNull(agent, "agent");
        checkOpen();
        return agent.memoryPools().stream().map(Region::new).toList();
    }

    /**
     * {@code hsa_memory_allocate}: {@code bytes} from the region's pool.
     *
     * @throws HsaException INVALID_ALLOCATION when the region does not allow runtime allocation
     */
    public long memoryAllocate(Region region, long bytes) {
        HsaException.requireNonNull(region, "region");
        checkOpen();
        if (!region.runtimeAllocAllowed()) {
            throw new HsaException(HsaStatus.INVALID_ALLOCATION, "region " + region.pool().name()
                    + " does not allow runtime allocation");
        }
        return region.pool().allocate(bytes);
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

    /**
     * {@code hsa_agent_iterate_isas}: the ISAs the agent runs. A worker-pool agent has one, named as
     * in {@code ./hsa4j info} ({@code hsa4j-jvm-java25--wave64}, with {@code :xnack+}/{@code :xnack-} on GPU agents).
     */
    public List<Isa> isas(Agent agent) {
        HsaException.requireNonNull(agent, "agent");
        checkOpen();
        return List.of(new Isa(AgentFacts.isaName(agent, config.xnack()), List.of(agent.profile().name()),
                agent.wavefrontSize(), agent.workgroupMaxDim(), agent.workgroupMaxSize(), agent.gridMaxDim(),
                agent.gridMaxSize(), 0));
    }

    /**
     * {@code hsa_isa_from_name}: the ISA of one of this runtime's agents with that name.
     *
     * @throws HsaException INVALID_ISA_NAME when no agent runs an ISA of that name
     */
    public Isa isaFromName(String name) {
        HsaException.requireNonNull(name, "name");
        for (Agent a : agents) {
            for (Isa isa : isas(a)) {
                if (isa.name().equals(name)) {
                    return isa;
                }
            }
        }
        throw new HsaException(HsaStatus.INVALID_ISA_NAME, "no agent runs an ISA named " + name);
    }

    /**
     * {@code hsa_agent_iterate_caches}: the caches the agent's work-items see, closest first: the
     * host's (from sysfs) for worker-pool agents, the model's L1 and L2 for GPU agents in fidelity mode.
     */
    public List<AgentCache> caches(Agent agent) {
        HsaException.requireNonNull(agent, "agent");
        checkOpen();
        return AgentFacts.caches(agent, config.fidelity()).stream()
                .map(c -> new AgentCache("L" + c.level() + " " + c.type(), c.level(), c.bytes())).toList();
    }

    /**
     * {@code hsa_system_major_extension_supported}: true when {@code extension} is implemented at
     * major version {@code major} (minor versions are backward compatible, so any {@code minor} up
     * to the implemented one, here always 0).
     */
    public boolean systemExtensionSupported(Extension extension, int major, int minor) {
        HsaException.requireNonNull(extension, "extension");
        return extension.supportedMajor() != 0 && major == extension.supportedMajor() && minor == 0;
    }

    /** The extensions this runtime implements, {@code HSA_SYSTEM_INFO_EXTENSIONS}. */
    public List<Extension> extensions() {
        return Arrays.stream(Extension.values()).filter(e -> e.supportedMajor() != 0).toList();
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

    /**
     * {@code hsa_soft_queue_create}: a queue that no agent consumes. Producers use it as any queue
     * (reserve, write, publish, ring {@code doorbell}); the application's own consumer reads
     * packets at the read index, sets each slot back to INVALID and advances the read index with
     * {@code storeReadIndexScrelease}. The queue's {@link Queue#agent()} is null; destroying it
     * frees its memory but leaves {@code doorbell}, which the application owns.
     *
     * @param region   fine-grained memory for the descriptor and ring
     * @param size     packets, a power of two
     * @param features {@code QueueDescriptor.FEATURE_KERNEL_DISPATCH} and/or {@code FEATURE_AGENT_DISPATCH}
     * @throws HsaException INVALID_ARGUMENT for a bad size, features or a coarse-grained region,
     *                      INVALID_SIGNAL for a destroyed doorbell
     */
    public Queue createSoftQueue(Region region, int size, QueueType type, int features, Signal doorbell) {
        HsaException.requireNonNull(region, "region");
        HsaException.requireNonNull(type, "type");
        HsaException.requireNonNull(doorbell, "doorbell");
        checkOpen();
        if (size < 1 || Integer.bitCount(size) != 1 || size > cpuAgent().queueMaxSize()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "soft queue size " + size + " must be a power of two in 1.."
                    + cpuAgent().queueMaxSize());
        }
        int known = QueueDescriptor.FEATURE_KERNEL_DISPATCH | QueueDescriptor.FEATURE_AGENT_DISPATCH;
        if (features == 0 || (features & ~known) != 0) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "soft queue features 0x" + Integer.toHexString(features)
                    + " must be a non-empty set of FEATURE_KERNEL_DISPATCH and FEATURE_AGENT_DISPATCH");
        }
        if (!region.globalFlags().contains(GlobalFlag.FINE_GRAINED) || region.segment() != SegmentKind.GLOBAL) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "a soft queue needs a fine-grained global region, not "
                    + region.pool().name());
        }
        if (doorbell.isDestroyed()) {
            throw new HsaException(HsaStatus.INVALID_SIGNAL, "the soft queue's doorbell signal is destroyed");
        }
        MemoryPool pool = region.pool();
        Allocation descriptor = memory.allocate(pool, QueueDescriptor.BYTES, QueueDescriptor.ALIGNMENT,
                MemoryKind.INTERNAL, -1L, pool.ownerAgent(), null);
        Allocation ring;
        try {
            ring = memory.allocate(pool, (long) size * AqlPacket.SIZE, Math.max(AqlPacket.ALIGNMENT, 4096),
                    MemoryKind.INTERNAL, -1L, pool.ownerAgent(), null);
        } catch (HsaException e) {
            memory.release(descriptor);
            throw e;
        }
        return QueueFactory.soft(cpuAgent(), descriptor, ring, size, Agent.nextQueueId(), type, features, doorbell, q -> {
            QueueFactory.markDestroyed(q);
            for (Allocation a : QueueFactory.allocations(q)) {
                memory.release(a);
            }
        });
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
        coherence.drainHost();
        tracer.close();
        memory.close();
    }

}
