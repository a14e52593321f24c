package org.hsa4j.memory;

/** The HSA segments a memory pool can serve ({@code hsa_amd_segment_t} / {@code hsa_region_segment_t}). */
public enum SegmentKind {
    /** Global segment: visible to every work-item of every agent that has access. */
    GLOBAL,
    /** Read-only segment: constant data. */
    READONLY,
    /** Private segment: per work-item scratch memory, sized by the packet. */
    PRIVATE,
    /** Group segment: per workgroup memory (LDS), sized by the packet. */
    GROUP,
    /** Kernarg segment: kernel arguments, pointed to by the packet. */
    KERNARG
}
