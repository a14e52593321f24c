package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.hsa4j.cuda.driver.CudaDriver;
import org.hsa4j.memory.MemAdvice;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;

/** The runtime's memory advice as CUDA's, and the CUmemLocation layout, without a GPU. */
class CudaManagedAdviceTest {
    @Test
    void eachAdviceMapsToTheCudaHeadersValue() {
        assertEquals(1, CudaPoolMemory.cuAdvice(MemAdvice.SET_READ_MOSTLY));
        assertEquals(2, CudaPoolMemory.cuAdvice(MemAdvice.UNSET_READ_MOSTLY));
        assertEquals(3, CudaPoolMemory.cuAdvice(MemAdvice.SET_PREFERRED_LOCATION));
        assertEquals(4, CudaPoolMemory.cuAdvice(MemAdvice.UNSET_PREFERRED_LOCATION));
    }

    @Test
    void coarseGrainAdviceHasNoCudaCounterpartAndIsRefused() {
        HsaException e = assertThrows(HsaException.class, () -> CudaPoolMemory.cuAdvice(MemAdvice.SET_COARSE_GRAIN));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void aMemLocationIsTwoIntsPassedByValue() {
        assertEquals(8, CudaDriver.CU_MEM_LOCATION.byteSize());
        assertEquals(4, CudaDriver.CU_MEM_LOCATION.byteOffset(java.lang.foreign.MemoryLayout.PathElement.groupElement("id")));
    }
}
