package org.hsa4j.agent;

import java.util.Set;

/**
 * The attributes an agent reports through {@code hsa_agent_get_info}, fixed when the runtime
 * builds its topology.
 *
 * @param name              agent name
 * @param deviceType        CPU or GPU
 * @param features          KERNEL_DISPATCH and/or AGENT_DISPATCH
 * @param computeUnits      compute units (worker threads)
 * @param wavefrontSize     work-items per wavefront
 * @param workgroupMaxDim   largest workgroup size per dimension
 * @param workgroupMaxSize  largest workgroup size in work-items
 * @param gridMaxDim        largest grid size per dimension
 * @param gridMaxSize       largest grid size in work-items
 * @param queueMinSize      smallest queue size in packets
 * @param queueMaxSize      largest queue size in packets
 * @param queuesMax         most queues at once
 * @param groupSegmentMax   largest group segment per workgroup in bytes
 * @param privateSegmentMax largest private segment per work-item in bytes
 */
public record AgentProperties(String name, DeviceType deviceType, Set<AgentFeature> features, int computeUnits,
                              int wavefrontSize, int[] workgroupMaxDim, int workgroupMaxSize, long[] gridMaxDim,
                              long gridMaxSize, int queueMinSize, int queueMaxSize, int queuesMax,
                              int groupSegmentMax, int privateSegmentMax) {
    public AgentProperties {
        features = Set.copyOf(features);
        workgroupMaxDim = workgroupMaxDim.clone();
        gridMaxDim = gridMaxDim.clone();
    }

    @Override
    public int[] workgroupMaxDim() {
        return workgroupMaxDim.clone();
    }

    @Override
    public long[] gridMaxDim() {
        return gridMaxDim.clone();
    }
}
