package org.hsa4j.benchmarks.cuda;

/** Which program a CUDA benchmark runs: hsa4j's, its raw-CUDA baseline, or the CPU-pool reference line. */
public enum Side {
    /** Through an AQL queue of the CUDA agent ({@code CudaAgent.createQueue}), completion on an hsa4j signal. */
    HSA4J_AQL,
    /** As HSA4J_AQL, with the host and the kernel talking through hsa4j signals ({@code CudaAgent.createSignal}). */
    HSA4J_SIGNALS,
    /**
     * Through a GPU-resident queue ({@code CudaAgent.createResidentQueue}): a persistent grid is the
     * packet processor, no host thread on the dispatch path; kernels are the built-in resident ones.
     */
    HSA4J_RESIDENT,
    /** The same work with plain driver calls on one stream ({@code CudaStream}): the baseline. */
    RAW_CUDA,
    /** The same program on the runtime's CPU-pool kernel agent ({@code HsaRuntime.gpuAgent()}): a reference line. */
    CPU_POOL
}
