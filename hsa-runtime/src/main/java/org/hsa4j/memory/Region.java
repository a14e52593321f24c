package org.hsa4j.memory;

import java.util.Set;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * {@code hsa_region_t}, the HSA 1.0 view of memory that ROCR keeps beside memory pools: one region
 * per pool, with the attributes {@code hsa_region_get_info} reports. Allocate from it with
 * {@code HsaRuntime.memoryAllocate}.
 *
 * @param pool the memory pool behind the region
 */
public record Region(MemoryPool pool) {
    public Region {
        if (pool == null) {
            throw new HsaException(HsaStatus.INVALID_REGION, "a region needs a pool");
        }
    }

    /** {@code HSA_REGION_INFO_SEGMENT}. */
    public SegmentKind segment() {
        return pool.segment();
    }

    /** {@code HSA_REGION_INFO_GLOBAL_FLAGS}: KERNARG, FINE_GRAINED or COARSE_GRAINED. */
    public Set<GlobalFlag> globalFlags() {
        return pool.flags();
    }

    /** {@code HSA_REGION_INFO_SIZE}. */
    public long size() {
        return pool.size();
    }

    /** {@code HSA_REGION_INFO_ALLOC_MAX_SIZE}. */
    public long allocMaxSize() {
        return pool.allocMax();
    }

    /** {@code HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED}. */
    public boolean runtimeAllocAllowed() {
        return pool.runtimeAllocAllowed();
    }

    /** {@code HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE}. */
    public long runtimeAllocGranule() {
        return pool.granule();
    }

    /** {@code HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT}. */
    public long runtimeAllocAlignment() {
        return pool.alignment();
    }
}
