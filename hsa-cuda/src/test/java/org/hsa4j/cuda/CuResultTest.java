package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hsa4j.cuda.driver.CuResult;
import org.hsa4j.cuda.driver.CudaCallException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;

/** The CUresult to HsaStatus mapping (part 5), without a GPU. */
class CuResultTest {
    @Test
    void illegalAddressIsAMemoryFault() {
        assertEquals(HsaStatus.MEMORY_FAULT, CuResult.toStatus(CuResult.ILLEGAL_ADDRESS));
        assertEquals(HsaStatus.MEMORY_FAULT, CuResult.toStatus(CuResult.MISALIGNED_ADDRESS));
    }

    @Test
    void trapsAndFailedLaunchesAreExceptions() {
        for (int code : new int[] {CuResult.ASSERT, CuResult.ILLEGAL_INSTRUCTION, CuResult.LAUNCH_FAILED,
                CuResult.HARDWARE_STACK_ERROR, CuResult.INVALID_PC}) {
            assertEquals(HsaStatus.EXCEPTION, CuResult.toStatus(code), CuResult.name(code));
        }
    }

    @Test
    void badImagesAreInvalidCodeObjects() {
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, CuResult.toStatus(CuResult.INVALID_PTX));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, CuResult.toStatus(CuResult.INVALID_IMAGE));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, CuResult.toStatus(CuResult.NO_BINARY_FOR_GPU));
    }

    @Test
    void aMissingSymbolIsAnInvalidSymbolName() {
        assertEquals(HsaStatus.INVALID_SYMBOL_NAME, CuResult.toStatus(CuResult.NOT_FOUND));
    }

    @Test
    void resourceAndArgumentErrorsMapToTheirHsaStatus() {
        assertEquals(HsaStatus.OUT_OF_RESOURCES, CuResult.toStatus(CuResult.OUT_OF_MEMORY));
        assertEquals(HsaStatus.OUT_OF_RESOURCES, CuResult.toStatus(CuResult.LAUNCH_OUT_OF_RESOURCES));
        assertEquals(HsaStatus.INVALID_ARGUMENT, CuResult.toStatus(CuResult.INVALID_VALUE));
        assertEquals(HsaStatus.INVALID_AGENT, CuResult.toStatus(CuResult.NO_DEVICE));
        assertEquals(HsaStatus.NOT_INITIALIZED, CuResult.toStatus(CuResult.NOT_INITIALIZED));
        assertEquals(HsaStatus.SUCCESS, CuResult.toStatus(CuResult.SUCCESS));
    }

    @Test
    void anUnknownCodeIsAGenericErrorWithItsNumberInTheName() {
        assertEquals(HsaStatus.ERROR, CuResult.toStatus(12345));
        assertEquals("CUDA_ERROR_12345", CuResult.name(12345));
    }

    @Test
    void onlyStickyErrorsPoisonTheContext() {
        assertTrue(CuResult.poisonsContext(CuResult.ILLEGAL_ADDRESS));
        assertTrue(CuResult.poisonsContext(CuResult.ASSERT));
        assertFalse(CuResult.poisonsContext(CuResult.OUT_OF_MEMORY));
        assertFalse(CuResult.poisonsContext(CuResult.INVALID_PTX));
    }

    @Test
    void theExceptionCarriesTheStatusTheCudaNameAndTheCode() {
        CudaCallException e = (CudaCallException) CuResult.exception(700, CuResult.name(700), "cuStreamSynchronize");
        assertEquals(HsaStatus.MEMORY_FAULT, e.status());
        assertEquals(700, e.result());
        assertTrue(e.poisonsContext());
        assertTrue(e.getMessage().endsWith("cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (700)"), e.getMessage());
    }
}
