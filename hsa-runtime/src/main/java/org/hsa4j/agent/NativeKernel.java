package org.hsa4j.agent;

import org.hsa4j.kernel.KernargWriter;

/**
 * A kernel in an agent's own code (a CUDA kernel of hsa-cuda, say) as layers that write dispatch
 * packets see it: the kernel object handle its agent's queues accept, the agent, and the size of
 * the kernarg segment a dispatch must provide, which a {@link KernargWriter} fills. Layers above
 * hsa-runtime (the C++AMP layer) dispatch it without knowing where it came from.
 */
public interface NativeKernel {
    /** The handle for {@code KernelDispatchPacket.kernelObject}. */
    long kernelObject();

    /** The agent whose queues run it. */
    Agent agent();

    /** Bytes of the kernarg segment a dispatch provides (the kernel's parameters as the spec lays them out). */
    long kernargSegmentSize();

    /** The kernel's name, for messages. */
    String name();
}
