package org.hsa4j.agent;

/** Agent features ({@code hsa_agent_feature_t}). */
public enum AgentFeature {
    /** Runs kernel dispatch packets: a kernel agent. */
    KERNEL_DISPATCH,
    /** Runs agent dispatch packets through registered handlers. */
    AGENT_DISPATCH
}
