package org.hsa4j.agent;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.hsa4j.agent.spi.QueueBackend;
import org.hsa4j.agent.spi.QueueFactory;
import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.kernel.CodeObjectAgent;
import org.hsa4j.kernel.CodeObjectLoader;
import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.MemoryKind;
import org.hsa4j.memory.MemoryManager;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.Svm;
import org.hsa4j.memory.SvmAccess;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueAgent;
import org.hsa4j.queue.QueueDescriptor;
import org.hsa4j.queue.QueueErrorCallback;
import org.hsa4j.queue.QueueType;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalDescriptor;
import org.hsa4j.signal.SignalManager;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.hsa4j.trace.Tracer;

/**
 * An HSA agent ({@code hsa_agent_t}): its attributes, its memory pools, its view of SVM, its
 * queues and the compute units (worker threads) that consume them through a
 * {@link PacketProcessor}. A GPU agent runs kernel dispatch packets; the CPU agent runs agent
 * dispatch packets through registered {@link AgentDispatchHandler}s. Both run barrier packets.
 *
 * <p>A <i>provided</i> agent ({@code AgentFactory.provided}) is a device the runtime does not emulate (a real
 * GPU from an {@link org.hsa4j.runtime.AgentProvider}): it has the same attributes and SVM view, but
 * its compute units are never started and its queues come from its {@link QueueBackend}, chosen
 * once when it is made, as is the {@link CodeObjectLoader} that loads its code objects.
 */
public final class Agent implements QueueAgent, CodeObjectAgent {
    private static final AtomicLong QUEUE_IDS = new AtomicLong();

    private final int index;
    private final AgentProperties properties;
    private final MemoryManager memory;
    private final SignalManager signals;
    private final MemoryPool queuePool;
    private final List<MemoryPool> pools;
    private final Svm svm;
    private final PacketProcessor processor;
    /** Serves this agent's queues: its compute units ({@link OwnQueues}) or a provider's backend. */
    private final QueueBackend queues;
    /** Loads this agent's code objects: compiled Java for the runtime's own agents, a provider's device code. */
    private final CodeObjectLoader codeObjects;
    private final Map<Integer, AgentDispatchHandler> handlers = new ConcurrentHashMap<>();
    /** What its packets report to (the runtime's tracer, chosen once). */
    private final Tracer tracer;
    private volatile boolean closed;
    /** How long inactivating or destroying a queue waits for its aborted dispatches to unwind. */
    static final long ABORT_WAIT_NANOS = 5_000_000_000L;

    /** Built by the runtime while it makes the topology. */
    Agent(int index, AgentProperties properties, MemoryManager memory, SignalManager signals,
                 MemoryPool queuePool, List<MemoryPool> pools, LongSupplier clock) {
        this(index, properties, memory, signals, queuePool, pools, clock, null);
    }

    /**
     * A provided agent: a device whose queues {@code backend} serves (module hsa-cuda's GPUs). Its
     * compute units are never started; {@link #shutdown} shuts the backend down. Made through
     * {@code runtime.spi.AgentFactory}.
     */
    static Agent provided(int index, AgentProperties properties, MemoryManager memory, SignalManager signals,
                                 MemoryPool queuePool, List<MemoryPool> pools, LongSupplier clock,
                                 QueueBackend backend) {
        HsaException.requireNonNull(backend, "backend");
        return new Agent(index, properties, memory, signals, queuePool, pools, clock, null, backend,
                CodeObjectLoader.none(properties.name()), Tracer.off(clock));
    }

    /**
     * A provided agent whose queues {@code backend} serves and whose code objects {@code loader}
     * loads into executables ({@code Executable.loadAgentCodeObject}). Made through
     * {@code runtime.spi.AgentFactory}.
     */
    static Agent provided(int index, AgentProperties properties, MemoryManager memory, SignalManager signals,
                                 MemoryPool queuePool, List<MemoryPool> pools, LongSupplier clock,
                                 QueueBackend backend, CodeObjectLoader loader) {
        HsaException.requireNonNull(backend, "backend");
        HsaException.requireNonNull(loader, "loader");
        return new Agent(index, properties, memory, signals, queuePool, pools, clock, null, backend, loader,
                Tracer.off(clock));
    }

    /** Built by the runtime while it makes the topology; {@code access} is its memory access strategy (null: {@link SvmAccess#DIRECT}). */
    Agent(int index, AgentProperties properties, MemoryManager memory, SignalManager signals,
                 MemoryPool queuePool, List<MemoryPool> pools, LongSupplier clock, SvmAccess access) {
        this(index, properties, memory, signals, queuePool, pools, clock, access, null, CodeObjectLoader.jvm(),
                Tracer.off(clock));
    }

    /** Built by the runtime (through {@code runtime.spi.AgentFactory}): as above, reporting its packets to {@code tracer}. */
    Agent(int index, AgentProperties properties, MemoryManager memory, SignalManager signals,
                 MemoryPool queuePool, List<MemoryPool> pools, LongSupplier clock, SvmAccess access,
                 Tracer tracer) {
        this(index, properties, memory, signals, queuePool, pools, clock, access, null, CodeObjectLoader.jvm(), tracer);
    }

    private Agent(int index, AgentProperties properties, MemoryManager memory, SignalManager signals,
                  MemoryPool queuePool, List<MemoryPool> pools, LongSupplier clock, SvmAccess access,
                  QueueBackend backend, CodeObjectLoader codeObjects, Tracer tracer) {
        this.index = index;
        this.tracer = tracer;
        this.properties = properties;
        this.memory = memory;
        this.signals = signals;
        this.queuePool = queuePool;
        this.pools = List.copyOf(pools);
        this.svm = new Svm(memory.addressSpace(), index, properties.name(), access, memory.fpAtomicPolicy());
        this.processor = new PacketProcessor(this, memory, signals, svm, clock);
        this.queues = backend != null ? backend : new OwnQueues();
        this.codeObjects = codeObjects;
    }

    /** How this agent loads code objects ({@code hsa_executable_load_agent_code_object}): chosen when it was made. */
    @Override
    public CodeObjectLoader codeObjectLoader() {
        return codeObjects;
    }

    /** The runtime's own agents' queues: consumed by this agent's compute units. */
    private final class OwnQueues implements QueueBackend {
        @Override
        public Queue createQueue(int size, QueueType type, QueueErrorCallback errorCallback) {
            return createOwnQueue(size, type, errorCallback);
        }

        @Override
        public int queueCount() {
            return processor.queueCount();
        }

        @Override
        public void shutdown(HsaException reason, long timeoutNanos) {
            processor.shutdown(reason, timeoutNanos);
        }
    }

    /** True for a provided agent ({@code AgentFactory.provided}): a device the runtime does not emulate. */
    public boolean isProvided() {
        return !(queues instanceof OwnQueues);
    }

    /** The backend of a provided agent when it is a {@code type} (e.g. hsa-cuda's CudaAgent), else empty. */
    public <T> Optional<T> backend(Class<T> type) {
        return type.isInstance(queues) ? Optional.of(type.cast(queues)) : Optional.empty();
    }

    /** The tracer this agent's packets report to (the runtime's). */
    public Tracer tracer() {
        return tracer;
    }

    /** Starts the compute units; called once by the runtime. */
    public void start() {
        start(0);
    }

    /** Starts the compute units, aborting a dispatch that runs longer than {@code kernelTimeLimitNanos} (0: no limit). */
    public void start(long kernelTimeLimitNanos) {
        if (isProvided()) {
            return;   // its backend serves its queues
        }
        processor.start(properties.computeUnits(), properties.groupSegmentMax(), "hsa4j-" + properties.name(),
                kernelTimeLimitNanos);
    }

    /** The runtime's idle strategy, which this agent's units and queues derive their waits from. */
    public IdleStrategy idleStrategy() {
        return signals.idleStrategy();
    }

    /** A snapshot of this agent's scaling counters: packets, wake-ups, role hand-offs, CAS retries, parks. */
    public AgentCounters counters() {
        return processor.counters();
    }

    /** This agent's packet processor (tests of the package). */
    PacketProcessor processor() {
        return processor;
    }

    /** Index of this agent: its bit in access masks. */
    @Override
    public int index() {
        return index;
    }

    /** The agent's attributes. */
    public AgentProperties properties() {
        return properties;
    }

    /** {@code HSA_AGENT_INFO_NAME}. */
    @Override
    public String name() {
        return properties.name();
    }

    /** {@code HSA_AGENT_INFO_VENDOR_NAME}. */
    public String vendor() {
        return "hsa4j";
    }

    /** {@code HSA_AGENT_INFO_DEVICE}. */
    public DeviceType deviceType() {
        return properties.deviceType();
    }

    /** {@code HSA_AGENT_INFO_FEATURE}. */
    public Set<AgentFeature> features() {
        return properties.features();
    }

    /** True when the agent has {@code feature}. */
    public boolean hasFeature(AgentFeature feature) {
        return properties.features().contains(feature);
    }

    /** {@code HSA_AGENT_INFO_PROFILE}: FULL, since host and agents share one address space. */
    public Profile profile() {
        return Profile.FULL;
    }

    /** {@code HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT}. */
    public int computeUnits() {
        return properties.computeUnits();
    }

    /** {@code HSA_AGENT_INFO_WAVEFRONT_SIZE}. */
    public int wavefrontSize() {
        return properties.wavefrontSize();
    }

    /** {@code HSA_AGENT_INFO_WORKGROUP_MAX_DIM}. */
    public int[] workgroupMaxDim() {
        return properties.workgroupMaxDim();
    }

    /** {@code HSA_AGENT_INFO_WORKGROUP_MAX_SIZE}. */
    public int workgroupMaxSize() {
        return properties.workgroupMaxSize();
    }

    /** {@code HSA_AGENT_INFO_GRID_MAX_DIM}. */
    public long[] gridMaxDim() {
        return properties.gridMaxDim();
    }

    /** {@code HSA_AGENT_INFO_GRID_MAX_SIZE}. */
    public long gridMaxSize() {
        return properties.gridMaxSize();
    }

    /** {@code HSA_AGENT_INFO_QUEUE_MIN_SIZE}. */
    public int queueMinSize() {
        return properties.queueMinSize();
    }

    /** {@code HSA_AGENT_INFO_QUEUE_MAX_SIZE}. */
    public int queueMaxSize() {
        return properties.queueMaxSize();
    }

    /** {@code HSA_AGENT_INFO_QUEUES_MAX}. */
    public int queuesMax() {
        return properties.queuesMax();
    }

    /** The memory pools of this agent ({@code hsa_amd_agent_iterate_memory_pools}). */
    public List<MemoryPool> memoryPools() {
        return pools;
    }

    /** This agent's view of shared virtual memory. */
    public Svm svm() {
        return svm;
    }

    /** Number of live queues. */
    public int queueCount() {
        return queues.queueCount();
    }

    /** Number of completed scans of this agent's packet processor over its queues (diagnostics, tests). */
    long completedScans() {
        return processor.scans();
    }

    /** True once the runtime shut this agent down. */
    public boolean isShutDown() {
        return closed;
    }

    /** The compute unit threads, for diagnostics and tests. */
    public Thread[] computeUnitThreads() {
        return processor.threads();
    }

    /**
     * {@code hsa_queue_create}: a queue of {@code size} packets, a power of two up to
     * {@link #queueMaxSize()}, whose packets this agent consumes. As the spec and ROCR do, a size
     * below {@link #queueMinSize()} gets a queue of the minimum size.
     *
     * @throws HsaException INVALID_ARGUMENT for a bad size or a null type, OUT_OF_RESOURCES past {@link #queuesMax()}
     */
    public Queue createQueue(int size, QueueType type, QueueErrorCallback errorCallback) {
        return queues.createQueue(size, type, errorCallback);
    }

    private Queue createOwnQueue(int size, QueueType type, QueueErrorCallback errorCallback) {
        HsaException.requireNonNull(type, "type");
        checkOpen();
        if (size < 1 || size > properties.queueMaxSize() || Integer.bitCount(size) != 1) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "queue size " + size + " must be a power of two in 1.."
                    + properties.queueMaxSize());
        }
        size = Math.max(size, properties.queueMinSize());
        int features = (hasFeature(AgentFeature.KERNEL_DISPATCH) ? QueueDescriptor.FEATURE_KERNEL_DISPATCH : 0)
                | (hasFeature(AgentFeature.AGENT_DISPATCH) ? QueueDescriptor.FEATURE_AGENT_DISPATCH : 0);
        synchronized (this) {
            if (processor.queueCount() >= properties.queuesMax()) {
                throw new HsaException(HsaStatus.OUT_OF_RESOURCES, name() + " already has its maximum of "
                        + properties.queuesMax() + " queues");
            }
            Allocation descriptor = memory.allocate(queuePool, QueueDescriptor.BYTES, QueueDescriptor.ALIGNMENT,
                    MemoryKind.INTERNAL, -1L, index, null);
            Allocation ring;
            try {
                ring = memory.allocate(queuePool, (long) size * AqlPacket.SIZE, Math.max(AqlPacket.ALIGNMENT, 4096),
                        MemoryKind.INTERNAL, -1L, index, null);
            } catch (HsaException e) {
                memory.release(descriptor);
                throw e;
            }
            Signal doorbell = signals.create(-1, SignalDescriptor.KIND_DOORBELL);
            Queue queue = QueueFactory.create(this, descriptor, ring, size, nextQueueId(), type, features,
                    doorbell, errorCallback, this::destroyQueue, this::inactivated);
            processor.attach(queue);
            return queue;
        }
    }

    /** Aborts the running dispatches of a queue that was just inactivated, waiting for them a bounded time. */
    private void inactivated(Queue queue) {
        processor.abortQueue(queue, new HsaException(HsaStatus.INVALID_QUEUE, "queue " + queue.id()
                + " was inactivated while the packet ran"), ABORT_WAIT_NANOS);
    }

    private void destroyQueue(Queue queue) {
        checkOpen();
        HsaException destroyed = new HsaException(HsaStatus.INVALID_QUEUE, "queue " + queue.id() + " was destroyed");
        processor.abortQueue(queue, destroyed, ABORT_WAIT_NANOS);
        processor.detach(queue, destroyed);
        QueueFactory.markDestroyed(queue);
        for (Allocation a : QueueFactory.allocations(queue)) {
            memory.release(a);
        }
        queue.doorbell().destroy();
    }

    /** A system-wide unique queue id ({@code HSA_QUEUE_INFO_ID}); soft queues take theirs here too. */
    public static long nextQueueId() {
        return QUEUE_IDS.incrementAndGet();
    }

    /** A signal of this agent's runtime, as {@code HsaRuntime.createSignal} makes one; for the launch call's pool. */
    public Signal createSignal(long initialValue) {
        checkOpen();
        return signals.create(initialValue);
    }

    /** A fine-grained pool every agent reaches, where the launch call keeps its kernel arguments. */
    public MemoryPool kernargPool() {
        return queuePool;
    }

    /** Registers the handler for agent dispatch packets of function {@code type} (0-65535). */
    public void registerAgentDispatchHandler(int type, AgentDispatchHandler handler) {
        HsaException.requireNonNull(handler, "handler");
        if (!hasFeature(AgentFeature.AGENT_DISPATCH)) {
            throw new HsaException(HsaStatus.INVALID_AGENT, name() + " does not support agent dispatch");
        }
        if (type < 0 || type > 0xFFFF) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "agent dispatch type must be 0..65535, was " + type);
        }
        handlers.put(type, handler);
    }

    /** Removes the handler for {@code type}. */
    public void unregisterAgentDispatchHandler(int type) {
        handlers.remove(type);
    }

    AgentDispatchHandler handler(int type) {
        return handlers.get(type);
    }

    /** Wakes the packet processor: something may be ready to launch. */
    public void notifyWork() {
        processor.notifyWork();
    }

    /** Stops the compute units within {@code timeoutNanos}; queued and launched work fails with {@code reason}. */
    public void shutdown(HsaException reason, long timeoutNanos) {
        closed = true;
        queues.shutdown(reason, timeoutNanos);
    }

    private void checkOpen() {
        if (closed) {
            throw new HsaException(HsaStatus.NOT_INITIALIZED, "the runtime has been shut down");
        }
    }

    @Override
    public String toString() {
        return name();
    }
}
