package org.hsa4j.cuda;

import java.util.EnumSet;

import org.hsa4j.agent.AgentFeature;
import org.hsa4j.agent.AgentProperties;
import org.hsa4j.agent.DeviceType;

/**
 * What {@code cuDeviceGet*} says about one NVIDIA device, in HSA terms where HSA has a term:
 * compute units are SMs, the wavefront is the warp, the group segment is shared memory per block.
 *
 * @param ordinal                  CUDA device ordinal
 * @param name                     product name
 * @param uuid                     {@code GPU-xxxxxxxx-xxxx-...} as nvidia-smi prints it
 * @param ccMajor                  compute capability, major
 * @param ccMinor                  compute capability, minor
 * @param multiprocessors          SMs
 * @param warpSize                 threads per warp (32)
 * @param maxThreadsPerBlock       largest block (workgroup) in threads
 * @param blockMax                 largest block per dimension
 * @param gridMax                  largest grid per dimension, in blocks
 * @param sharedPerBlock           shared memory per block without opt-in, bytes
 * @param sharedPerBlockOptin      shared memory per block with opt-in, bytes
 * @param l2Bytes                  L2 cache bytes
 * @param totalMemory              device memory bytes
 * @param clockKhz                 SM clock, kHz
 * @param memoryClockKhz           memory clock, kHz
 * @param memoryBusWidth           memory bus width, bits
 * @param pciBus                   PCI bus id
 * @param maxThreadsPerMultiprocessor resident threads per SM
 * @param hostNativeAtomics        HOST_NATIVE_ATOMIC_SUPPORTED
 * @param pageableMemoryAccess     PAGEABLE_MEMORY_ACCESS (plain malloc memory usable by kernels)
 * @param concurrentManagedAccess  CONCURRENT_MANAGED_ACCESS
 * @param hostPointerForRegisteredMem CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM (registered memory keeps its address)
 * @param managedMemory            MANAGED_MEMORY
 * @param unifiedAddressing        UNIFIED_ADDRESSING
 * @param canMapHostMemory         CAN_MAP_HOST_MEMORY
 */
public record CudaDeviceInfo(int ordinal, String name, String uuid, int ccMajor, int ccMinor, int multiprocessors,
                             int warpSize, int maxThreadsPerBlock, int[] blockMax, long[] gridMax, int sharedPerBlock,
                             int sharedPerBlockOptin, int l2Bytes, long totalMemory, int clockKhz, int memoryClockKhz,
                             int memoryBusWidth, int pciBus, int maxThreadsPerMultiprocessor, boolean hostNativeAtomics,
                             boolean pageableMemoryAccess, boolean concurrentManagedAccess,
                             boolean hostPointerForRegisteredMem, boolean managedMemory, boolean unifiedAddressing,
                             boolean canMapHostMemory) {
    /** Queues a CUDA agent serves at once. */
    public static final int QUEUES_MAX = 64;
    /** Smallest queue. */
    public static final int QUEUE_MIN_SIZE = 4;
    /** Largest queue. */
    public static final int QUEUE_MAX_SIZE = 1 << 17;
    /** Private (local) memory per thread CUDA allows: 512 KiB. */
    public static final int PRIVATE_SEGMENT_MAX = 512 * 1024;

    public CudaDeviceInfo {
        blockMax = blockMax.clone();
        gridMax = gridMax.clone();
    }

    @Override
    public int[] blockMax() {
        return blockMax.clone();
    }

    @Override
    public long[] gridMax() {
        return gridMax.clone();
    }

    /** The architecture NVRTC and nvcc name, e.g. {@code sm_90}. */
    public String architecture() {
        return "sm_" + ccMajor + ccMinor;
    }

    /** The agent name: {@code <product> (cuda:<ordinal>)}. */
    public String agentName() {
        return name + " (cuda:" + ordinal + ")";
    }

    /**
     * The HSA agent attributes: workgroup limits are the block limits, grid limits are in work-items
     * (blocks times the largest block, capped at the AQL packet's u32 fields), group segment is the
     * opt-in shared memory.
     */
    public AgentProperties agentProperties() {
        long[] gridItems = new long[3];
        for (int d = 0; d < 3; d++) {
            gridItems[d] = Math.min(0xFFFF_FFFFL, gridMax[d] * blockMax[d]);
        }
        return new AgentProperties(agentName(), DeviceType.GPU, EnumSet.of(AgentFeature.KERNEL_DISPATCH), multiprocessors,
                warpSize, new int[] {Math.min(blockMax[0], 0xFFFF), Math.min(blockMax[1], 0xFFFF),
                Math.min(blockMax[2], 0xFFFF)}, maxThreadsPerBlock, gridItems, 0xFFFF_FFFFL, QUEUE_MIN_SIZE,
                QUEUE_MAX_SIZE, QUEUES_MAX, Math.max(sharedPerBlock, sharedPerBlockOptin), PRIVATE_SEGMENT_MAX);
    }
}
