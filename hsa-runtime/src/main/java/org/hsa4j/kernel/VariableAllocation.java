package org.hsa4j.kernel;

/** {@code hsa_variable_allocation_t}: whether a variable has one copy per agent or one per program. */
public enum VariableAllocation {
    /** One copy for a given agent ({@code _agent_global_variable_define}, {@code _readonly_variable_define}). */
    AGENT,
    /** One copy for every agent ({@code hsa_executable_global_variable_define}). */
    PROGRAM
}
