package org.hsa4j.runtime;

import java.util.List;

/**
 * An instruction set architecture as {@code hsa_isa_get_info_alt} reports it. A worker-pool
 * agent's ISA is the JVM's ({@code hsa4j-jvm-java25--wave64:xnack-}): the name carries the
 * wavefront size and, for GPU agents, XNACK as a target feature.
 *
 * @param name             {@code HSA_ISA_INFO_NAME}
 * @param profiles         the profiles it supports (FULL for every worker-pool agent)
 * @param wavefrontSize    work-items per wavefront
 * @param workgroupMaxDim  work-items per workgroup per dimension
 * @param workgroupMaxSize work-items per workgroup
 * @param gridMaxDim       work-items per grid per dimension
 * @param gridMaxSize      work-items per grid
 * @param fbarrierMaxSize  fbarriers per workgroup (none: barriers are the workgroup's own)
 */
public record Isa(String name, List<String> profiles, int wavefrontSize, int[] workgroupMaxDim, int workgroupMaxSize,
                  long[] gridMaxDim, long gridMaxSize, int fbarrierMaxSize) {
    public Isa {
        profiles = List.copyOf(profiles);
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
