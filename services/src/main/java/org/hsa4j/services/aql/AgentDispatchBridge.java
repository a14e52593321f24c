package org.hsa4j.services.aql;

import java.util.Objects;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.AgentDispatchRequest;
import org.hsa4j.services.rpc.RpcServer;
import org.hsa4j.services.rpc.RpcStatus;

/**
 * The HSA-native way to the services: the CPU agent consumes agent dispatch packets of type
 * {@link #SERVICE_CALL_TYPE} that kernels enqueue on one of its queues, and its compute unit runs
 * the service named by the request block's opcode ({@link AgentRequestLayout}), with the same
 * registry, policies and aborted-dispatch checks as the RPC ports. The handler returns only once
 * the call has ended (deferred services included), so the packet's completion signal means "done";
 * it never throws for a failed call (which would put the queue in the error state): the status
 * goes into the request block.
 */
public final class AgentDispatchBridge implements AutoCloseable {
    /** The agent dispatch function type of a service call ("SV"). */
    public static final int SERVICE_CALL_TYPE = 0x5356;

    private final Agent cpu;
    private final RpcServer server;

    /** Registers the service-call handler on {@code cpu} (an agent with agent dispatch). */
    public AgentDispatchBridge(Agent cpu, RpcServer server) {
        this.cpu = Objects.requireNonNull(cpu, "cpu");
        this.server = Objects.requireNonNull(server, "server");
        cpu.registerAgentDispatchHandler(SERVICE_CALL_TYPE, this::handle);
    }

    private void handle(AgentDispatchRequest request) {
        PacketCall call = new PacketCall(request.svm(), request.arg0());
        try {
            server.serveOnThisThread(call);
            call.await(server.config().callTimeoutNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            call.runIfLive(() -> call.finish(RpcStatus.CLOSED));
        } catch (RuntimeException e) {
            call.finish(RpcStatus.SERVICE_ERROR);
        }
    }

    /** Unregisters the handler; later service-call packets fail as packets without a handler do. */
    @Override
    public void close() {
        cpu.unregisterAgentDispatchHandler(SERVICE_CALL_TYPE);
    }
}
