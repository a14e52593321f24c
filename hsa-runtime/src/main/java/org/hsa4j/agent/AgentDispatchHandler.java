package org.hsa4j.agent;

/**
 * Serves one agent dispatch function type on an agent with {@link AgentFeature#AGENT_DISPATCH}.
 * Runs on one of that agent's compute units; an exception puts the queue in the error state.
 */
@FunctionalInterface
public interface AgentDispatchHandler {
    /** Serves the packet; store any result at {@link AgentDispatchRequest#returnAddress()}. */
    void handle(AgentDispatchRequest request);
}
