package org.hsa4j.services;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Consumer;

import org.hsa4j.agent.Agent;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.aql.AgentDispatchBridge;
import org.hsa4j.services.aql.AgentDispatchClient;
import org.hsa4j.services.memory.DeviceHeap;
import org.hsa4j.services.memory.HostMallocService;
import org.hsa4j.services.memory.HostMemory;
import org.hsa4j.services.net.Net;
import org.hsa4j.services.net.NetService;
import org.hsa4j.services.printf.Printf;
import org.hsa4j.services.printf.PrintfService;
import org.hsa4j.services.printf.PrintfSink;
import org.hsa4j.services.rpc.CoreService;
import org.hsa4j.services.rpc.OpcodeRegistry;
import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.PortSet;
import org.hsa4j.services.rpc.RpcClient;
import org.hsa4j.services.rpc.RpcServer;
import org.hsa4j.services.rpc.RpcService;
import org.hsa4j.services.rpc.ServiceMode;
import org.hsa4j.services.syscall.FdTable;
import org.hsa4j.services.syscall.SyscallPolicy;
import org.hsa4j.services.syscall.SyscallService;
import org.hsa4j.services.syscall.Syscalls;
import org.hsa4j.signal.WaitState;

/**
 * GPU-to-CPU services for one runtime: RPC ports in SVM with host server threads, and the
 * syscall, memory, printf and network services on them, also reachable through agent dispatch
 * packets on the CPU agent. Start it after the runtime and close it before the runtime, once no
 * kernel calls any more.
 *
 * <pre>{@code
 * try (HsaRuntime rt = HsaRuntime.init(); Services services = Services.start(rt)) {
 *     Syscalls sys = services.syscalls();
 *     Printf out = services.printf();
 *     // in a kernel: out.printf(wi, "pid %d\n", sys.getpid(wi));
 * }
 * }</pre>
 */
public final class Services implements AutoCloseable {
    private final HsaRuntime runtime;
    private final ServicesConfig config;
    private final PortSet ports;
    private final OpcodeRegistry registry = new OpcodeRegistry();
    private final RpcServer server;
    private final RpcClient client;
    private final FdTable fds;
    private final ScheduledThreadPoolExecutor timer;
    private final SyscallService syscallService;
    private final HostMallocService mallocService;
    private final PrintfService printfService;
    private final NetService netService;
    private final AgentDispatchBridge bridge;
    private final List<AutoCloseable> agentClients = new CopyOnWriteArrayList<>();
    private volatile DeviceHeap defaultHeap;
    private volatile boolean closed;

    private Services(HsaRuntime runtime, ServicesConfig config) {
        this.runtime = runtime;
        this.config = config;
        this.ports = new PortSet(runtime, config.ports() > 0 ? config.ports() : autoPorts(runtime),
                config.lanes() > 0 ? config.lanes() : autoLanes(runtime), config.devicePorts());
        CoreService.register(registry);
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "hsa4j-services-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        this.fds = new FdTable(System.in, System.out, System.err);
        // with device ports, CUDA kernels malloc too: addresses they can dereference
        this.mallocService = new HostMallocService(runtime, config.devicePorts() > 0);
        mallocService.register(registry);
        this.printfService = new PrintfService(config.printfSink());
        printfService.register(registry);
        this.netService = new NetService(config.netThreads(), config.netPolicy());
        netService.register(registry);
        this.client = new RpcClient(ports, config.waitState(), config.portWaitNanos());
        RpcServer started = null;
        AgentDispatchBridge registered = null;
        try {
            started = new RpcServer(ports, registry, new RpcServer.Config(config.serverThreads(),
                    config.handlerThreads(), config.idleSpinNanos(), config.repollNanos(), config.callTimeoutNanos(),
                    config.deferredTimeoutNanos(), config.serviceTimeoutNanos(), config.handlerCallsOnServerThread()),
                    "hsa4j-rpc");
            this.syscallService = new SyscallService(started, fds, timer, config.syscallPolicy());
            syscallService.register(registry);
            registered = new AgentDispatchBridge(runtime.cpuAgent(), started);
        } catch (RuntimeException | Error e) {
            if (started != null) {
                started.stop(2_000);
            }
            timer.shutdownNow();
            ports.close();
            throw e;
        }
        this.server = started;
        this.bridge = registered;
    }

    /** Starts the services with the defaults. */
    public static Services start(HsaRuntime runtime) {
        return start(runtime, ServicesConfig.defaults());
    }

    /** Starts the services for {@code runtime}. */
    public static Services start(HsaRuntime runtime, ServicesConfig config) {
        Objects.requireNonNull(runtime, "runtime");
        Objects.requireNonNull(config, "config");
        return new Services(runtime, config);
    }

    private static int autoPorts(HsaRuntime runtime) {
        int units = 0;
        for (Agent a : runtime.agents()) {
            units += a.computeUnits();
        }
        return Math.max(16, Math.min(4096, 2 * units));
    }

    private static int autoLanes(HsaRuntime runtime) {
        return runtime.gpuAgents().isEmpty() ? 64 : Math.max(1, Math.min(64, runtime.gpuAgent().wavefrontSize()));
    }

    /** The runtime served. */
    public HsaRuntime runtime() {
        return runtime;
    }

    /** The configuration. */
    public ServicesConfig config() {
        return config;
    }

    // ---- the RPC layer --------------------------------------------------------------------------

    /** The RPC ports. */
    public PortSet ports() {
        return ports;
    }

    /** The opcode registry. */
    public OpcodeRegistry registry() {
        return registry;
    }

    /** The server threads. */
    public RpcServer server() {
        return server;
    }

    /** A client waiting in the configured wait state. */
    public RpcClient client() {
        return client;
    }

    /** A client waiting in {@code state}. */
    public RpcClient client(WaitState state) {
        return client.withWaitState(state);
    }

    /**
     * Registers an application service for {@code opcode}, whose namespace must be a user namespace
     * ({@link Opcodes#USER_NAMESPACE_FIRST} and up) claimed by {@code owner} (claimed here on first use).
     */
    public void registerService(String owner, int opcode, ServiceMode mode, RpcService service) {
        int ns = Opcodes.namespace(opcode);
        if (ns < Opcodes.USER_NAMESPACE_FIRST) {
            throw new IllegalArgumentException(String.format("namespace %04x is reserved for hsa4j; applications use "
                    + "%04x and up", ns, Opcodes.USER_NAMESPACE_FIRST));
        }
        registry.claimNamespace(ns, owner);
        registry.register(owner, opcode, mode, service);
    }

    // ---- services -------------------------------------------------------------------------------

    /** Syscalls for kernels. */
    public Syscalls syscalls() {
        return new Syscalls(client);
    }

    /** The host side of the syscalls (descriptor table, policy, abort listener). */
    public SyscallService syscallService() {
        return syscallService;
    }

    /** Replaces the syscall sandbox. */
    public void setSyscallPolicy(SyscallPolicy policy) {
        syscallService.setPolicy(policy);
    }

    /** Sets who hears of dispatches aborted through the abort syscall. */
    public void setAbortListener(Consumer<SyscallService.AbortEvent> listener) {
        syscallService.setAbortListener(listener);
    }

    /** malloc/free over RPC for kernels. */
    public HostMemory hostMemory() {
        return new HostMemory(client);
    }

    /** The host side of malloc/free and of device heap refills. */
    public HostMallocService mallocService() {
        return mallocService;
    }

    /** The default device heap (size classes 16 bytes to 2 KiB, chunks of the configured size), made on first use. */
    public DeviceHeap deviceHeap() {
        DeviceHeap h = defaultHeap;
        if (h == null) {
            synchronized (this) {
                h = defaultHeap;
                if (h == null) {
                    h = mallocService.createHeap(client, config.deviceChunkBytes(), 8, 16);
                    defaultHeap = h;
                }
            }
        }
        return h;
    }

    /** A new device heap; see {@link HostMallocService#createHeap}. */
    public DeviceHeap createDeviceHeap(long chunkBytes, int classes, int minBlock) {
        return mallocService.createHeap(client, chunkBytes, classes, minBlock);
    }

    /** printf for kernels. */
    public Printf printf() {
        return new Printf(client);
    }

    /** The host side of printf. */
    public PrintfService printfService() {
        return printfService;
    }

    /** Sends printf output to {@code sink}. */
    public void setPrintfSink(PrintfSink sink) {
        printfService.setSink(sink);
    }

    /** TCP for kernels. */
    public Net net() {
        return new Net(client);
    }

    /** The host side of the network calls. */
    public NetService netService() {
        return netService;
    }

    /**
     * A client for service calls through agent dispatch packets: makes a queue of {@code queueSize}
     * packets on the CPU agent and {@code slots} request slots; closed with the services.
     */
    public AgentDispatchClient agentDispatchClient(int queueSize, int slots) {
        Queue queue = runtime.cpuAgent().createQueue(queueSize, QueueType.MULTI, null);
        AgentDispatchClient c = new AgentDispatchClient(runtime, queue, slots, config.waitState());
        agentClients.add(() -> {
            c.close();
            if (!runtime.isClosed()) {
                queue.destroy();
            }
        });
        return c;
    }

    /**
     * Shuts the services down: waiting clients end with CLOSED, server and handler threads stop,
     * sockets and files close, and the SVM the services own is freed. Kernels must not call any more.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        server.stop(2_000);
        bridge.close();
        netService.close();
        for (AutoCloseable c : agentClients) {
            try {
                c.close();
            } catch (Exception e) {
                System.getLogger(Services.class.getName()).log(System.Logger.Level.WARNING, "closing an agent client", e);
            }
        }
        timer.shutdownNow();
        fds.close();
        mallocService.close();
        ports.close();
    }
}
