package org.hsa4j.kernel;

/**
 * The agent argument of {@code hsa_executable_load_agent_code_object} and
 * {@code hsa_executable_get_symbol_by_name} as this package sees it: {@code org.hsa4j.agent.Agent}
 * implements it, so the kernel package names no agent class (the agent package depends on this one).
 */
public interface CodeObjectAgent {
    /** {@code Agent.index()}: the agent's place in the topology. */
    int index();

    /** The agent's name, for messages. */
    String name();

    /** How this agent loads code objects: chosen once, when the agent is made. */
    CodeObjectLoader codeObjectLoader();
}
