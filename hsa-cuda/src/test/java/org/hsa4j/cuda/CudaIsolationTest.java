package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;

/** {@code HSA4J_CUDA_ISOLATION}'s values. */
class CudaIsolationTest {
    @Test
    void unsetOrBlankIsInProcess() {
        assertEquals(CudaIsolation.IN_PROCESS, CudaIsolation.parse(null));
        assertEquals(CudaIsolation.IN_PROCESS, CudaIsolation.parse(" "));
    }

    @Test
    void processInAnyCaseIsProcess() {
        assertEquals(CudaIsolation.PROCESS, CudaIsolation.parse("Process"));
        assertEquals(CudaIsolation.IN_PROCESS, CudaIsolation.parse("inprocess"));
    }

    @Test
    void anythingElseIsAnInvalidArgumentNamingTheVariable() {
        HsaException e = assertThrows(HsaException.class, () -> CudaIsolation.parse("thread"));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().endsWith("HSA4J_CUDA_ISOLATION=thread is not one of inprocess, process"), e.getMessage());
    }
}
