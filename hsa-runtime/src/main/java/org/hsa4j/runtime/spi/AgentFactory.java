package org.hsa4j.runtime.spi;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.function.LongSupplier;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.AgentProperties;
import org.hsa4j.agent.spi.QueueBackend;
import org.hsa4j.kernel.CodeObjectLoader;
import org.hsa4j.memory.MemoryManager;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.SvmAccess;
import org.hsa4j.signal.SignalManager;
import org.hsa4j.trace.Tracer;

/**
 * How the runtime and device modules make {@link Agent}s, whose constructors are package-private so
 * that applications get agents only from {@code HsaRuntime}. As {@code agent.spi.QueueFactory} does, it
 * reaches them through a private lookup into {@code org.hsa4j.agent} (same module), made once. Not in
 * {@code agent.spi}: that package is what {@code Agent} itself uses, and this class uses {@code Agent}.
 */
public final class AgentFactory {
    private static final MethodHandle NEW_AGENT;
    private static final MethodHandle NEW_PROVIDED;
    private static final MethodHandle NEW_PROVIDED_WITH_LOADER;

    static {
        try {
            MethodHandles.Lookup agents = MethodHandles.privateLookupIn(Agent.class, MethodHandles.lookup());
            NEW_AGENT = agents.findConstructor(Agent.class, MethodType.methodType(void.class, int.class,
                    AgentProperties.class, MemoryManager.class, SignalManager.class, MemoryPool.class, List.class,
                    LongSupplier.class, SvmAccess.class, Tracer.class));
            NEW_PROVIDED = agents.findStatic(Agent.class, "provided", MethodType.methodType(Agent.class, int.class,
                    AgentProperties.class, MemoryManager.class, SignalManager.class, MemoryPool.class, List.class,
                    LongSupplier.class, QueueBackend.class));
            NEW_PROVIDED_WITH_LOADER = agents.findStatic(Agent.class, "provided", MethodType.methodType(Agent.class,
                    int.class, AgentProperties.class, MemoryManager.class, SignalManager.class, MemoryPool.class,
                    List.class, LongSupplier.class, QueueBackend.class, CodeObjectLoader.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private AgentFactory() {
    }

    /**
     * An agent of the runtime's own (its compute units are worker threads), made while the runtime
     * makes the topology; {@code access} is its memory access strategy (fidelity mode's coherent one, or
     * {@code SvmAccess.DIRECT}); its packets report to
     * {@code tracer}.
     */
    public static Agent create(int index, AgentProperties properties, MemoryManager memory, SignalManager signals,
                               MemoryPool queuePool, List<MemoryPool> pools, LongSupplier clock,
                               SvmAccess access, Tracer tracer) {
        return made(() -> (Agent) NEW_AGENT.invokeExact(index, properties, memory, signals, queuePool, pools, clock,
                access, tracer));
    }

    /**
     * A provided agent: a device whose queues {@code backend} serves (module hsa-cuda's GPUs). Its
     * compute units are never started; {@code Agent.shutdown} shuts the backend down.
     */
    public static Agent provided(int index, AgentProperties properties, MemoryManager memory, SignalManager signals,
                                 MemoryPool queuePool, List<MemoryPool> pools, LongSupplier clock,
                                 QueueBackend backend) {
        return made(() -> (Agent) NEW_PROVIDED.invokeExact(index, properties, memory, signals, queuePool, pools, clock,
                backend));
    }

    /**
     * A provided agent whose queues {@code backend} serves and whose code objects {@code loader} loads
     * into executables ({@code Executable.loadAgentCodeObject}).
     */
    public static Agent provided(int index, AgentProperties properties, MemoryManager memory, SignalManager signals,
                                 MemoryPool queuePool, List<MemoryPool> pools, LongSupplier clock,
                                 QueueBackend backend, CodeObjectLoader loader) {
        return made(() -> (Agent) NEW_PROVIDED_WITH_LOADER.invokeExact(index, properties, memory, signals, queuePool, pools,
                clock, backend, loader));
    }

    /** A constructor or factory handle's call, for {@link #made}. */
    private interface Making {
        Agent make() throws Throwable;
    }

    /** Runs {@code making}, passing runtime exceptions and errors through (an HsaException for a bad argument, say). */
    private static Agent made(Making making) {
        try {
            return making.make();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
