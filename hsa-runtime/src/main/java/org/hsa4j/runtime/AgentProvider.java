package org.hsa4j.runtime;

import java.util.List;

import org.hsa4j.agent.Agent;
import org.hsa4j.status.HsaException;

/**
 * A source of agents that the runtime does not emulate (a service provider interface): modules
 * such as hsa-cuda implement it and name the class in
 * {@code META-INF/services/org.hsa4j.runtime.AgentProvider}, so with the module on the class path
 * {@link HsaRuntime#init()} lists its devices as agents after the runtime's own, and without it
 * nothing changes. hsa-runtime knows nothing of any driver.
 */
public interface AgentProvider {
    /** Short name for notes and errors, e.g. {@code cuda}. */
    String name();

    /**
     * Opens this provider's agents for {@code runtime}, numbered from {@code firstIndex} (each
     * made with {@code runtime.spi.AgentFactory.provided}). Called once while {@link HsaRuntime#init()} builds the
     * runtime: its memory, signals, pools, clock and own agents are ready.
     *
     * @throws HsaException when the provider's configuration demands a device it cannot find (the
     *                      runtime then does not start, and the message says why)
     */
    Found open(HsaRuntime runtime, int firstIndex);

    /** The agents found (maybe none) and one line saying what was found, or why nothing was. */
    record Found(List<Agent> agents, String note) {
        public Found {
            agents = List.copyOf(agents);
        }
    }
}
