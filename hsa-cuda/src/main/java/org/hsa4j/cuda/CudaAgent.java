package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.spi.QueueBackend;
import org.hsa4j.agent.spi.QueueFactory;
import org.hsa4j.cuda.driver.CudaDriver;
import org.hsa4j.cuda.driver.Nvrtc;
import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.GlobalFlag;
import org.hsa4j.memory.MemAdvice;
import org.hsa4j.memory.MemoryKind;
import org.hsa4j.memory.MemoryManager;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.SvmShare;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueDescriptor;
import org.hsa4j.queue.QueueErrorCallback;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.spi.AgentFactory;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalDescriptor;
import org.hsa4j.signal.SignalManager;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * One NVIDIA GPU as an HSA kernel agent beside a runtime's CPU-pool agents.
 *
 * <p><b>What it shares with the runtime.</b> Queues are the runtime's own {@link Queue}s: descriptor
 * and ring in SVM, a doorbell signal from the runtime's signal manager, written by the same host
 * code as for a CPU-pool agent. Completion and dependency signals are the runtime's signals, so a
 * barrier on this agent can wait for a signal that the host, a CPU agent or another GPU completes.
 * A queue needs an {@link Agent} as its owner: this agent makes a <i>provided</i> one with the GPU's
 * attributes ({@code AgentFactory.provided}, never started: no compute unit threads) whose queues this
 * agent serves as its {@link QueueBackend}: {@link #hsaAgent()}. Its code objects load through the
 * spec's path too: {@code CodeObjectReader} -> {@code Executable.loadAgentCodeObject(hsaAgent(), reader)}
 * hands PTX, cubins and fat binaries to this agent ({@link CudaCodeObjectLoader}). So {@code hsaAgent().createQueue}
 * and {@link #createQueue} are the same call. With hsa-cuda on the class path, {@code HsaRuntime.init()}
 * lists each device's provided agent after its own ({@link CudaAgentProvider}); {@link #of} and
 * {@link #in} find the CUDA agent behind them, and closing the runtime closes it.
 *
 * <p><b>What is its own.</b> The CUDA context ({@link CudaContext}), code objects ({@link CudaModule},
 * kernel objects are handles into {@link #kernelObject}), memory ({@link CudaBuffer}: device,
 * pinned, managed at real device addresses), and one
 * {@link CudaQueueProcessor} thread per queue that launches into the queue's CUDA stream, or, for a
 * queue made with {@link #createResidentQueue}, a packet processor that lives on the GPU
 * ({@link CudaResidentProcessor}).
 *
 * <p><b>Shared virtual memory.</b> The runtime's real-address SVM ({@link #svmPool()}) is
 * registered with this device chunk by chunk ({@link CudaSvmRegistrar}), so its SVM addresses are
 * the device's addresses too: a kernarg, or a pointer stored in SVM, means the same bytes here as
 * on the host and in CPU-agent kernels.
 *
 * <p><b>Faults.</b> A kernel that faults poisons the context: its queue gets MEMORY_FAULT or
 * EXCEPTION on its error callback and the other queues that had work in the dead context go to the
 * error state too (HSA leaves them there). {@link CudaContext#recover} then tries to recreate the
 * context; CUDA documents sticky errors as unrecoverable within the process (driver 580 refuses the
 * new context with error 700), so the agent goes on in a fresh process: the next new queue starts a
 * device server ({@link CudaDeviceClient}, {@link CudaDeviceServer}: a child JVM that maps the
 * runtime's SVM memfd at the same addresses and makes a context of its own), and new queues are
 * served through it ({@link CudaServerQueueProcessor}); kernel objects looked up before the fault keep
 * working (the server loads their kept code objects, {@link CudaServerKernels}). If that server
 * faults or dies, its queues fail the same way and the next new queue starts another. What the dead
 * context held is gone and not made again: device, pinned and managed buffers, loading new code
 * objects, resident queues are refused with INVALID_AGENT saying why. Only where no server can
 * start (no memfd SVM) is the agent lost ({@link #isLost()}): later queues get FATAL saying why.
 * CPU agents serve on throughout. With {@link CudaIsolation#PROCESS} ({@code HSA4J_CUDA_ISOLATION=process})
 * host-side queues run in a server from the start, so no kernel ever runs in this process's context
 * and a fault costs only the server.
 */
public final class CudaAgent implements AutoCloseable, QueueBackend {
    /** Kernel object handles: a tag in the high bits, so a CPU agent's handle is never taken for one. */
    private static final long KERNEL_OBJECT_TAG = 0xC0DA_0000_0000_0000L;
    private static final AtomicLong QUEUE_IDS = new AtomicLong(1L << 40);
    private static final long CLOSE_NANOS = 10_000_000_000L;

    /** How often a parked host waiter of a {@link #createSignal} signal looks again: kernels' stores wake nobody. */
    public static final long DEVICE_SIGNAL_RECHECK_NANOS = 50_000;

    /** The open agents of each runtime, by device ordinal: one per device ({@link #open}). */
    private static final Map<HsaRuntime, Map<Integer, CudaAgent>> OPEN = new java.util.WeakHashMap<>();

    private final HsaRuntime runtime;
    private final CudaPlatform platform;
    private final CudaDeviceInfo info;
    private final CudaContext context;
    private final Agent hsaAgent;
    private final PacketTranslation.Limits limits;
    private final Map<Long, CudaKernel> kernels = new ConcurrentHashMap<>();
    private final AtomicLong nextKernel = new AtomicLong();
    private final Set<CudaQueueServer> processors = ConcurrentHashMap.newKeySet();
    private final Set<CudaBuffer> buffers = ConcurrentHashMap.newKeySet();
    private final List<CudaModule> modules = new ArrayList<>();
    private final AtomicLong recoveries = new AtomicLong();
    /** Registers the runtime's real-address SVM chunks with this device: see {@link #svmPool()}. */
    private final CudaSvmRegistrar svmRegistrar;
    /** The device-local and managed pools, made on first use; guarded by this. */
    private MemoryPool devicePool;
    private MemoryPool managedPool;
    /** Signals whose value words this device reaches ({@link #createSignal}); made on first use. */
    private SignalManager deviceSignals;
    /** Why the device is lost for this process, or null while it serves. */
    private volatile HsaException lost;
    /** Why the in-process context died for good (new queues run in a device server), or null. */
    private volatile HsaException inProcessDead;
    /** The device server serving new queues after the in-process context died; guarded by this. */
    private CudaDeviceClient server;
    private final AtomicLong serversStarted = new AtomicLong();
    /** Where host-side queues run their kernels: chosen once, at open ({@link CudaIsolation}). */
    private final CudaIsolation isolation;
    private volatile boolean closed;

    private CudaAgent(HsaRuntime runtime, CudaPlatform platform, CudaDeviceInfo info, int index, CudaIsolation isolation) {
        this.runtime = runtime;
        this.isolation = isolation;
        this.platform = platform;
        this.info = info;
        this.context = new CudaContext(platform.driver(), info.ordinal());
        this.limits = PacketTranslation.Limits.of(info);
        this.svmRegistrar = new CudaSvmRegistrar(context);
        this.hsaAgent = AgentFactory.provided(index, info.agentProperties(), runtime.memory(), runtime.signals(),
                runtime.systemPool(), List.of(), runtime::timestamp, this, new CudaCodeObjectLoader(this));
    }

    /**
     * The agent of device {@code ordinal} of {@code platform}, beside {@code runtime}'s agents.
     * A runtime has at most one open agent per device (they would share the device's primary
     * context, and each would register the same SVM chunks): {@link #in(HsaRuntime)} lists the ones
     * {@code HsaRuntime.init()} registered.
     *
     * @throws HsaException INVALID_AGENT when the platform has no such device, or the runtime already
     *                      has an open agent for it
     */
    public static CudaAgent open(HsaRuntime runtime, CudaPlatform platform, int ordinal) {
        return open(runtime, platform, ordinal, runtime.agents().size() + ordinal);
    }

    /** As {@link #open(HsaRuntime, CudaPlatform, int)}, with the provided agent's index (its bit in access masks). */
    static CudaAgent open(HsaRuntime runtime, CudaPlatform platform, int ordinal, int index) {
        return open(runtime, platform, ordinal, index, CudaIsolation.fromEnvironment());
    }

    /** As {@link #open(HsaRuntime, CudaPlatform, int)}, with where host-side queues run their kernels ({@code HSA4J_CUDA_ISOLATION}). */
    public static CudaAgent open(HsaRuntime runtime, CudaPlatform platform, int ordinal, CudaIsolation isolation) {
        return open(runtime, platform, ordinal, runtime.agents().size() + ordinal, isolation);
    }

    static CudaAgent open(HsaRuntime runtime, CudaPlatform platform, int ordinal, int index, CudaIsolation isolation) {
        Objects.requireNonNull(runtime, "runtime");
        Objects.requireNonNull(isolation, "isolation");
        if (ordinal < 0 || ordinal >= platform.devices().size()) {
            throw new HsaException(HsaStatus.INVALID_AGENT, "no CUDA device " + ordinal + " ("
                    + (platform.available() ? platform.devices().size() + " devices" : "no CUDA: " + platform.reason()) + ")");
        }
        synchronized (OPEN) {
            Map<Integer, CudaAgent> mine = OPEN.computeIfAbsent(runtime, r -> new java.util.HashMap<>());
            CudaAgent existing = mine.get(ordinal);
            if (existing != null) {
                throw new HsaException(HsaStatus.INVALID_AGENT, "CUDA device " + ordinal + " already has an open agent in "
                        + "this runtime (" + existing.name() + "; CudaAgent.in(runtime) lists those HsaRuntime.init() registered)");
            }
            CudaAgent agent = new CudaAgent(runtime, platform, platform.devices().get(ordinal), index, isolation);
            agent.registerSvm();
            mine.put(ordinal, agent);
            return agent;
        }
    }

    /**
     * The runtime's open agent of device {@code ordinal}: the registered one, or one opened here
     * (which the caller then closes) where {@code HSA4J_CUDA=off} kept the runtime from registering it.
     */
    public static CudaAgent inOrOpen(HsaRuntime runtime, CudaPlatform platform, int ordinal) {
        synchronized (OPEN) {
            CudaAgent existing = OPEN.getOrDefault(runtime, Map.of()).get(ordinal);
            return existing != null ? existing : open(runtime, platform, ordinal);
        }
    }

    /**
     * The CUDA agent behind {@code agent}, one of {@code HsaRuntime.agents()}.
     *
     * @throws HsaException INVALID_AGENT when {@code agent} is not a CUDA agent
     */
    public static CudaAgent of(Agent agent) {
        Objects.requireNonNull(agent, "agent");
        return agent.backend(CudaAgent.class).orElseThrow(() -> new HsaException(HsaStatus.INVALID_AGENT,
                agent.name() + " is not a CUDA agent"));
    }

    /** The CUDA agents {@code runtime} lists (registered by {@code HsaRuntime.init()}), by device ordinal. */
    public static List<CudaAgent> in(HsaRuntime runtime) {
        List<CudaAgent> found = new ArrayList<>();
        for (Agent a : runtime.providedAgents()) {
            a.backend(CudaAgent.class).ifPresent(found::add);
        }
        return found;
    }

    /** The device's attributes. */
    public CudaDeviceInfo info() {
        return info;
    }

    /** The agent name, e.g. {@code NVIDIA H100 80GB HBM3 (cuda:0)}. */
    public String name() {
        return info.agentName();
    }

    /** The runtime this agent serves beside. */
    public HsaRuntime runtime() {
        return runtime;
    }

    /** The never-started hsa-runtime agent that owns this agent's queues and carries its attributes. */
    public Agent hsaAgent() {
        return hsaAgent;
    }

    CudaContext context() {
        return context;
    }

    CudaDriver driver() {
        return context.driver();
    }

    PacketTranslation.Limits limits() {
        return limits;
    }

    /** How many times the agent recovered from a fault: a context recreated in-process, or a new device server. */
    public long recoveries() {
        return recoveries.get();
    }

    // ---- code objects ---------------------------------------------------------------------------

    /**
     * Loads a code object ({@code hsa_executable_load_agent_code_object}).
     *
     * @throws HsaException INVALID_CODE_OBJECT with the JIT error log when the driver rejects it
     */
    public CudaModule load(CudaCodeObject code) {
        checkOpen();
        checkInProcess("loading a code object");
        CudaModule m = new CudaModule(this, code);
        synchronized (modules) {
            modules.add(m);
        }
        return m;
    }

    /**
     * Compiles CUDA C {@code source} with NVRTC for this device and loads it (the finalizer's role).
     *
     * @throws HsaException INVALID_CODE_OBJECT with the compiler log when it does not compile,
     *                      or when NVRTC is absent (the message says why)
     */
    public CudaModule compile(String source, String name, String... options) {
        return load(compileToCodeObject(source, name, options));
    }

    /** Compiles CUDA C with NVRTC into a cubin for this device, without loading it. */
    public CudaCodeObject compileToCodeObject(String source, String name, String... options) {
        Nvrtc nvrtc = platform.nvrtc();
        if (nvrtc == null) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "cannot compile " + name + ": NVRTC is absent ("
                    + platform.nvrtcReason() + ")");
        }
        List<String> opts = new ArrayList<>(List.of("--gpu-architecture=" + info.architecture()));
        opts.addAll(List.of(options));
        Nvrtc.Output out = nvrtc.compile(source, name, opts);
        return CudaCodeObject.fromBytes(name, out.image());
    }

    /**
     * Unloads {@code m} and forgets it (an executable that loaded it is destroyed); never throws:
     * a closed or lost context took the module with it.
     */
    void unload(CudaModule m) {
        synchronized (modules) {
            modules.remove(m);
        }
        try {
            m.unload();
        } catch (HsaException gone) {
            // the context is closed or lost: the module went with it, and its kernels are unregistered
        }
    }

    CudaKernel register(CudaKernel k) {
        long handle = KERNEL_OBJECT_TAG | nextKernel.incrementAndGet();
        k.handle(handle);
        kernels.put(handle, k);
        return k;
    }

    void unregister(CudaKernel k) {
        kernels.remove(k.kernelObject());
    }

    /** The kernel with kernel object {@code handle}, or null. */
    public CudaKernel kernelObject(long handle) {
        return kernels.get(handle);
    }

    // ---- memory ---------------------------------------------------------------------------------

    /**
     * Registers every chunk of the runtime's real-address SVM with this device, now and as they are
     * mapped, so an SVM address from {@link #svmPool()} means the same bytes in this agent's kernels.
     */
    private void registerSvm() {
        try {
            // a device server must be able to map the SVM after a fault: ask for a shared arena (too
            // late where the runtime made its real pool before this agent: then no server can start)
            runtime.memory().shareRealSvm();
            runtime.memory().addRegistrar(svmRegistrar);
        } catch (RuntimeException e) {
            context.close();
            throw e;
        }
    }

    /**
     * The fine-grained system pool of this agent: the runtime's real-address SVM
     * ({@link HsaRuntime#realSystemPool()}), registered with this device, so one address means the
     * same bytes to the host, to CPU-agent kernels and to this agent's kernels, pointers stored
     * inside the data included. Allocations are checked by the runtime's Svm API like any other.
     */
    public MemoryPool svmPool() {
        return runtime.realSystemPool();
    }

    /**
     * {@code hsa_signal_create} for signals this agent's kernels use: the signal lives in
     * {@link #svmPool()}, so its int64 value is at the real address {@code signal.handle() +
     * SignalDescriptor.VALUE} on the host and in this device's kernels ({@code ld.acquire.sys} /
     * {@code st.release.sys}). On the host it is an ordinary signal of the runtime (any API,
     * {@code HsaRuntime.signal(handle)}, completion signal of any agent's packets).
     *
     * <p>Two limits of the hardware, not of the API: a kernel's store wakes no parked host waiter,
     * so a host wait sees it while it spins or at its next re-check ({@link #DEVICE_SIGNAL_RECHECK_NANOS}
     * for these signals; ACTIVE waits for the lowest latency); and without host-native atomics
     * (HOST_NATIVE_ATOMIC_SUPPORTED 0, as on a PCIe H100) a kernel's atomic on the value is not atomic
     * with the host's on the same signal, so let each side store, or one side alone update it.
     */
    public synchronized Signal createSignal(long initialValue) {
        checkOpen();
        return deviceSignals().create(initialValue);
    }

    /** The manager of {@link #createSignal}'s signals, made on first use. */
    private synchronized SignalManager deviceSignals() {
        if (deviceSignals == null) {
            deviceSignals = new SignalManager(runtime.memory(), svmPool(), DEVICE_SIGNAL_RECHECK_NANOS, null,
                    runtime.signals().idleStrategy());
        }
        return deviceSignals;
    }

    /**
     * The coarse-grained device-local pool ({@code cuMemAlloc_v2}): addresses resolve in the
     * runtime's address space, but only this agent's kernels reach the bytes; host access is a
     * MEMORY_APERTURE_VIOLATION and cannot be granted. Allocations vanish (their addresses fault)
     * when a fault resets the context.
     */
    public synchronized MemoryPool deviceLocalPool() {
        checkOpen();
        if (devicePool == null) {
            devicePool = runtime.memory().createExternalPool(name() + " coarse-grained (device)",
                    EnumSet.of(GlobalFlag.COARSE_GRAINED), hsaAgent.index(), info.totalMemory(), info.totalMemory(),
                    false, new CudaPoolMemory(context, info, hsaAgent.index(), false));
        }
        return devicePool;
    }

    /**
     * The managed pool ({@code cuMemAllocManaged}, attached globally): host-accessible at the same
     * address through the checked Svm API; {@link #memPrefetch} and {@link #memAdvise} (or the memory
     * manager's prefetch/advise with this agent's index) migrate and advise it. An allocation larger
     * than the card's free memory is OUT_OF_RESOURCES (more can hang the GPU).
     */
    public synchronized MemoryPool managedPool() {
        checkOpen();
        if (managedPool == null) {
            managedPool = runtime.memory().createExternalPool(name() + " managed", EnumSet.of(GlobalFlag.FINE_GRAINED),
                    hsaAgent.index(), info.totalMemory(), info.totalMemory(), true,
                    new CudaPoolMemory(context, info, hsaAgent.index(), true));
        }
        return managedPool;
    }

    /** Migrates managed memory at {@code address .. address+bytes} to this device or to the host ({@code cuMemPrefetchAsync_v2}). */
    public void memPrefetch(long address, long bytes, boolean toDevice) {
        runtime.memory().prefetch(address, bytes, toDevice ? hsaAgent.index() : 0);
    }

    /** Advises the driver on managed memory ({@code cuMemAdvise_v2}); the preferred location is this device or the host. */
    public void memAdvise(long address, long bytes, MemAdvice advice, boolean device) {
        runtime.memory().advise(address, bytes, advice, device ? hsaAgent.index() : 0);
    }

    /** Makes every allocation of the device-local and managed pools fault, before their memory goes. */
    private void revokePools() {
        MemoryPool d;
        MemoryPool m;
        synchronized (this) {
            d = devicePool;
            m = managedPool;
        }
        if (d != null) {
            runtime.memory().revoke(d);
        }
        if (m != null) {
            runtime.memory().revoke(m);
        }
    }

    /** Device-local memory ({@code cuMemAlloc_v2}). */
    public CudaBuffer allocateDevice(long bytes) {
        return allocate(CudaBuffer.Kind.DEVICE, bytes);
    }

    /** Pinned host memory mapped for the device, same address on both sides ({@code cuMemHostAlloc} PORTABLE|DEVICEMAP). */
    public CudaBuffer allocatePinned(long bytes) {
        return allocate(CudaBuffer.Kind.PINNED, bytes);
    }

    /**
     * Managed memory ({@code cuMemAllocManaged}, attached globally).
     *
     * @throws HsaException OUT_OF_RESOURCES when the card has less free memory than asked: more can hang the GPU
     */
    public CudaBuffer allocateManaged(long bytes) {
        return allocate(CudaBuffer.Kind.MANAGED, bytes);
    }

    private static final int MEMHOSTALLOC_PORTABLE = 0x01;
    private static final int MEMHOSTALLOC_DEVICEMAP = 0x02;
    private static final int MEM_ATTACH_GLOBAL = 0x1;

    private CudaBuffer allocate(CudaBuffer.Kind kind, long bytes) {
        checkOpen();
        String what = kind.name().toLowerCase(Locale.ROOT) + " memory";
        checkInProcess(what);
        if (isolation == CudaIsolation.PROCESS) {
            throw new HsaException(HsaStatus.INVALID_AGENT, name() + " runs its queues' kernels in a device server ("
                    + CudaIsolation.ENV + "=process): " + what + " of this process's context is not reachable there; "
                    + "use svmPool()");
        }
        if (bytes <= 0) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "cannot allocate " + bytes + " bytes");
        }
        CudaDriver d = driver();
        context.enter();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_LONG);
            CudaBuffer b = switch (kind) {
                case DEVICE -> {
                    d.check(d.cuMemAlloc(out, bytes), "cuMemAlloc_v2(" + bytes + ")");
                    yield new CudaBuffer(this, kind, out.get(JAVA_LONG, 0), bytes, null, context.generation());
                }
                case PINNED -> {
                    d.check(d.cuMemHostAlloc(out, bytes, MEMHOSTALLOC_PORTABLE | MEMHOSTALLOC_DEVICEMAP),
                            "cuMemHostAlloc(" + bytes + ")");
                    MemorySegment host = out.get(ADDRESS, 0).reinterpret(bytes);
                    int rc = d.cuMemHostGetDevicePointer(out, host, 0);
                    if (rc != 0) {
                        d.cuMemFreeHost(host);
                        d.check(rc, "cuMemHostGetDevicePointer_v2");
                    }
                    yield new CudaBuffer(this, kind, out.get(JAVA_LONG, 0), bytes, host, context.generation());
                }
                case MANAGED -> {
                    MemorySegment total = a.allocate(JAVA_LONG);
                    d.check(d.cuMemGetInfo(out, total), "cuMemGetInfo_v2");
                    long free = out.get(JAVA_LONG, 0);
                    if (bytes > free) {
                        throw new HsaException(HsaStatus.OUT_OF_RESOURCES, "managed allocation of " + bytes
                                + " bytes exceeds the " + free + " bytes free on " + name());
                    }
                    d.check(d.cuMemAllocManaged(out, bytes, MEM_ATTACH_GLOBAL), "cuMemAllocManaged(" + bytes + ")");
                    long address = out.get(JAVA_LONG, 0);
                    yield new CudaBuffer(this, kind, address, bytes, MemorySegment.ofAddress(address).reinterpret(bytes),
                            context.generation());
                }
            };
            buffers.add(b);
            return b;
        } finally {
            context.exit();
        }
    }

    void free(CudaBuffer b) {
        buffers.remove(b);
        if (lost != null || inProcessDead != null) {
            return;   // the context died with a sticky error, and the memory with it
        }
        context.enter();
        try {
            if (b.generation() != context.generation()) {
                return;   // its context is gone, and its memory with it
            }
            CudaDriver d = driver();
            int rc = b.kind() == CudaBuffer.Kind.PINNED ? d.cuMemFreeHost(MemorySegment.ofAddress(b.address()))
                    : d.cuMemFree(b.address());
            d.check(rc, b.kind() == CudaBuffer.Kind.PINNED ? "cuMemFreeHost" : "cuMemFree_v2");
        } finally {
            context.exit();
        }
    }

    /**
     * The host bytes at {@code address} a packet names (its kernarg segment): pinned or managed
     * memory of this agent, else SVM as the CPU agent sees it.
     *
     * @throws HsaException when no host-visible memory holds those bytes
     */
    MemorySegment hostBytes(long address, long bytes) {
        for (CudaBuffer b : buffers) {
            if (b.kind() != CudaBuffer.Kind.DEVICE && address >= b.address() && address + bytes <= b.address() + b.size()) {
                return b.hostSegment().asSlice(address - b.address(), bytes);
            }
        }
        return runtime.cpuAgent().svm().segment(address, bytes);
    }

    // ---- queues ---------------------------------------------------------------------------------

    /**
     * {@code hsa_queue_create}: a user-mode AQL queue in SVM whose packets this agent runs.
     *
     * @throws HsaException INVALID_ARGUMENT for a bad size, OUT_OF_RESOURCES past the queue limit
     */
    @Override
    public Queue createQueue(int size, QueueType type, QueueErrorCallback errorCallback) {
        if (servesThroughServer()) {
            CudaDeviceClient s = server();
            return newQueue(size, type, errorCallback, runtime.systemPool(), runtime.signals(),
                    q -> new CudaServerQueueProcessor(this, q, s));
        }
        return newQueue(size, type, errorCallback, runtime.systemPool(), runtime.signals(),
                q -> new CudaQueueProcessor(this, q));
    }

    /**
     * The device server for new queues: the running one, or a new one (bounded start) when none
     * runs or the last one died. The server registers every SVM chunk ({@link CudaDeviceClient} is a
     * registrar), so SVM addresses mean the same bytes to its kernels.
     *
     * @throws HsaException FATAL when no server can start, saying why
     */
    private synchronized CudaDeviceClient server() {
        checkOpen();
        CudaDeviceClient s = server;
        if (s != null && s.dead() == null) {
            return s;
        }
        svmPool();   // the arena exists before it is shared
        SvmShare share = runtime.memory().svmShare().orElseThrow(() -> new HsaException(HsaStatus.FATAL,
                name() + " cannot start a device server: the runtime's SVM is not a shared memfd mapping"));
        CudaDeviceClient c = CudaDeviceClient.start(share, info.ordinal(), serversStarted.incrementAndGet(), name(),
                this::serverDied);
        try {
            runtime.memory().addRegistrar(c);
        } catch (HsaException e) {
            c.close();
            throw new HsaException(HsaStatus.FATAL, c + " cannot register the runtime's SVM: " + e.getMessage(), e);
        }
        if (inProcessDead != null || c.number() > 1) {
            recoveries.incrementAndGet();   // a server instead of a dead context or a dead server; not an isolated agent's first
        }
        server = c;
        return c;
    }

    /** A device server exited (a fault, a crash, a kill, or close): its queues fail with why; the next queue starts another. */
    private void serverDied(CudaDeviceClient c) {
        runtime.memory().removeRegistrar(c);
        synchronized (this) {
            if (server == c) {
                server = null;
            }
        }
        HsaException why = c.dead();
        for (CudaQueueServer p : processors) {
            if (p instanceof CudaServerQueueProcessor sp && sp.server() == c) {
                p.contextLost(why);
            }
        }
    }

    /** Where this agent's host-side queues run their kernels. */
    public CudaIsolation isolation() {
        return isolation;
    }

    /** The device server serving new queues now, or null. */
    synchronized CudaDeviceClient currentServer() {
        return server;
    }

    /** The pid of the device server serving new queues now, or -1 while the in-process context serves or none runs. */
    public synchronized long serverPid() {
        CudaDeviceClient s = server;
        return s == null || s.dead() != null ? -1 : s.pid();
    }

    /**
     * Refuses {@code what} once the in-process context is dead: the device server runs the kernels of
     * code objects loaded before the fault on SVM, and nothing else the context held.
     */
    void checkInProcess(String what) {
        HsaException dead = inProcessDead;
        if (dead != null) {
            throw new HsaException(HsaStatus.INVALID_AGENT, name() + " serves new queues through a device server since its "
                    + "CUDA context died (" + dead.getMessage() + "): " + what + " is not available there (kernel objects "
                    + "looked up before the fault and SVM are)", dead);
        }
    }

    /**
     * {@code hsa_queue_create} for a queue whose packet processor lives on the GPU: a persistent
     * grid ({@link CudaResidentProcessor}, {@code hsa4j_resident.cu}) reads the ring, runs the
     * resident kernels of {@code program} and completes the packets itself, with no host thread on
     * the dispatch path; it parks when idle for {@code options.idleNanos()} and the doorbell wakes it.
     * The queue's descriptor, ring and doorbell are in {@link #svmPool()} (registered with the
     * device); the packets' completion and dependency signals must come from {@link #createSignal},
     * their kernargs and buffers from {@link #svmPool()} or this agent's pinned/device buffers. The
     * queue's launch call ({@code Queue.dispatch}) is not for it: its pooled signals are not in device-reachable memory.
     *
     * @throws HsaException INVALID_ARGUMENT for a bad size or a program of another agent,
     *                      INCOMPATIBLE_ARGUMENTS when the device cannot hold the grid, OUT_OF_RESOURCES past the queue limit
     */
    public Queue createResidentQueue(int size, QueueType type, QueueErrorCallback errorCallback, CudaResidentProgram program,
                                     CudaResidentOptions options) {
        Objects.requireNonNull(program, "program");
        Objects.requireNonNull(options, "options");
        if (program.agent() != this) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, program + " was loaded on " + program.agent().name()
                    + ", not on " + name());
        }
        checkInProcess("a resident queue");
        SignalManager ds = deviceSignals();
        return newQueue(size, type, errorCallback, svmPool(), ds, q -> new CudaResidentProcessor(this, q, ds, program, options));
    }

    /** The resident processor serving {@code queue}, or null when it is not a resident queue of this agent. */
    CudaResidentProcessor residentProcessor(Queue queue) {
        for (CudaQueueServer p : processors) {
            if (p.queue() == queue && p instanceof CudaResidentProcessor r) {
                return r;
            }
        }
        return null;
    }

    private Queue newQueue(int size, QueueType type, QueueErrorCallback errorCallback, MemoryPool pool,
                           SignalManager doorbells, java.util.function.Function<Queue, CudaQueueServer> server) {
        Objects.requireNonNull(type, "type");
        checkOpen();
        HsaException gone = lost;
        if (gone != null) {
            throw new HsaException(HsaStatus.FATAL, name() + " is lost: " + gone.getMessage(), gone);
        }
        if (size < CudaDeviceInfo.QUEUE_MIN_SIZE || size > CudaDeviceInfo.QUEUE_MAX_SIZE || Integer.bitCount(size) != 1) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "queue size " + size + " must be a power of two in "
                    + CudaDeviceInfo.QUEUE_MIN_SIZE + ".." + CudaDeviceInfo.QUEUE_MAX_SIZE);
        }
        synchronized (processors) {
            if (processors.size() >= CudaDeviceInfo.QUEUES_MAX) {
                throw new HsaException(HsaStatus.OUT_OF_RESOURCES, name() + " already has its maximum of "
                        + CudaDeviceInfo.QUEUES_MAX + " queues");
            }
            MemoryManager memory = runtime.memory();
            Allocation descriptor = memory.allocate(pool, QueueDescriptor.BYTES,
                    QueueDescriptor.ALIGNMENT, MemoryKind.INTERNAL, -1L, 0, null);
            Allocation ring;
            try {
                ring = memory.allocate(pool, (long) size * AqlPacket.SIZE, Math.max(AqlPacket.ALIGNMENT, 4096),
                        MemoryKind.INTERNAL, -1L, 0, null);
            } catch (HsaException e) {
                memory.release(descriptor);
                throw e;
            }
            Signal doorbell;
            try {
                doorbell = doorbells.create(-1, SignalDescriptor.KIND_DOORBELL);
            } catch (HsaException e) {
                memory.release(ring);
                memory.release(descriptor);
                throw e;
            }
            CudaQueueServer[] made = new CudaQueueServer[1];
            Queue queue = QueueFactory.create(hsaAgent, descriptor, ring, size, QUEUE_IDS.incrementAndGet(), type,
                    QueueDescriptor.FEATURE_KERNEL_DISPATCH, doorbell, errorCallback, q -> destroyQueue(made[0]),
                    // a launched CUDA kernel cannot be stopped from the host: it runs to completion, and
                    // the processor launches nothing more once the queue is inactive
                    q -> { });
            try {
                made[0] = server.apply(queue);
            } catch (RuntimeException e) {
                QueueFactory.markDestroyed(queue);
                doorbell.destroy();
                memory.release(ring);
                memory.release(descriptor);
                throw e;
            }
            processors.add(made[0]);
            made[0].start();
            return queue;
        }
    }

    private void destroyQueue(CudaQueueServer p) {
        p.stop(CLOSE_NANOS);
        processors.remove(p);
        Queue q = p.queue();
        p.drainPublished(new HsaException(HsaStatus.INVALID_QUEUE, "queue " + q.id() + " was destroyed"));
        QueueFactory.markDestroyed(q);
        if (p.holdsQueueMemory()) {
            return;   // a GPU grid that did not stop still reads ring and descriptor: they stay (the error said so)
        }
        for (Allocation a : QueueFactory.allocations(q)) {
            runtime.memory().release(a);
        }
        q.doorbell().destroy();
    }

    /** Number of live queues. */
    @Override
    public int queueCount() {
        return processors.size();
    }

    /**
     * Recreates the context after {@code cause} poisoned generation {@code seen}: the other queues
     * with work in that context go to the error state. Called by a processor without the context held.
     */
    void recover(int seen, HsaException cause, CudaQueueServer from) {
        HsaException reason = cause;
        if (context.generation() == seen) {
            // a reset frees every allocation of the context: no host segment may reach it after
            revokePools();
            for (CudaBuffer b : buffers) {
                if (b.generation() == seen) {
                    b.invalidate();
                }
            }
        }
        try {
            if (!context.recover(seen)) {
                return;
            }
            recoveries.incrementAndGet();
            // the reset dropped the SVM registrations: register every chunk again
            runtime.memory().removeRegistrar(svmRegistrar);
            runtime.memory().addRegistrar(svmRegistrar);
        } catch (HsaException fatal) {
            // the process's CUDA is poisoned: the dead context registers no more SVM chunks (CPU agents
            // allocate on), and new queues go to a device server where one can map the SVM
            runtime.memory().removeRegistrar(svmRegistrar);
            inProcessDead = fatal;
            try {
                svmPool();   // the arena may not exist yet: made now, shared as this agent asked
            } catch (HsaException noArena) {
                // no real-address SVM at all: no server can map it (svmShare is empty below)
            }
            if (runtime.memory().svmShare().isEmpty()) {
                lost = new HsaException(HsaStatus.FATAL, fatal.getMessage() + "; and no device server can take over: "
                        + "the runtime's SVM is not a shared memfd mapping (made before this agent asked, or no memfd)",
                        fatal);
            }
            reason = fatal;
        }
        for (CudaQueueServer p : processors) {
            if (p != from) {
                p.contextLost(reason);
            }
        }
    }

    /**
     * True once CUDA refused to recreate the context after a sticky error and no device server can
     * take over (the SVM is not a shared memfd mapping): new queues are refused with FATAL; CPU agents
     * are unaffected. With a memfd SVM (Linux) the agent is not lost: see {@link #servesThroughServer()}.
     */
    public boolean isLost() {
        return lost != null;
    }

    /** True when new host-side queues are served by a device server: from the start ({@link CudaIsolation#PROCESS}) or since the in-process context died. */
    public boolean servesThroughServer() {
        return (isolation == CudaIsolation.PROCESS || inProcessDead != null) && lost == null;
    }

    private void checkOpen() {
        if (closed) {
            throw new HsaException(HsaStatus.NOT_INITIALIZED, name() + " has been closed");
        }
    }

    /** The runtime shuts down: {@link #close()}, which is bounded; a CUDA error while closing is not thrown. */
    @Override
    public void shutdown(HsaException reason, long timeoutNanos) {
        try {
            close();
        } catch (RuntimeException e) {
            // the context is gone (a sticky fault, or the driver is shutting down): nothing left to release
        }
    }

    /** Destroys the queues (bounded), unloads the modules, frees the memory and releases the context. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        synchronized (OPEN) {
            Map<Integer, CudaAgent> mine = OPEN.get(runtime);
            if (mine != null && mine.get(info.ordinal()) == this) {
                mine.remove(info.ordinal());
            }
        }
        for (CudaQueueServer p : List.copyOf(processors)) {
            if (p.queue().state() != org.hsa4j.queue.QueueState.DESTROYED) {
                try {
                    p.queue().destroy();
                } catch (HsaException ignored) {
                    // destroyed meanwhile, or the runtime is gone: the processor is stopped either way
                    p.stop(CLOSE_NANOS);
                }
            }
        }
        // no kernel of ours runs any more: the SVM chunks may go (a lost context lost them already),
        // and the pools' memory goes with the context
        SignalManager signals;
        synchronized (this) {
            signals = deviceSignals;
        }
        if (signals != null) {
            signals.failAll(new HsaException(HsaStatus.INVALID_AGENT, name() + " was closed"));
        }
        runtime.memory().removeRegistrar(svmRegistrar);
        revokePools();
        CudaDeviceClient s;
        synchronized (this) {
            s = server;
            server = null;
        }
        if (s != null) {
            runtime.memory().removeRegistrar(s);
            s.close();
        }
        if (lost != null || inProcessDead != null) {
            // the context died with the sticky error, and with it every module and allocation in
            // it: there is nothing left to unload or free
            return;
        }
        List<CudaModule> ms;
        synchronized (modules) {
            ms = List.copyOf(modules);
        }
        for (CudaModule m : ms) {
            m.unload();
        }
        for (CudaBuffer b : List.copyOf(buffers)) {
            b.close();
        }
        context.close();
    }

    @Override
    public String toString() {
        return name();
    }
}
