package org.hsa4j.agent;

/** HSA profiles ({@code hsa_profile_t}). */
public enum Profile {
    /** Base profile: kernels touch only memory allocated through the runtime. */
    BASE,
    /** Full profile: one shared virtual address space for host and agents. */
    FULL
}
