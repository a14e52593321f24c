package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** Status codes and their strings, as {@code hsa_status_t} and {@code hsa_status_string} give them. */
class HsaStatusTest {
    @Test
    void shouldCarryTheNumericCodesOfHsaH() {
        assertEquals(0x100D, HsaStatus.INCOMPATIBLE_ARGUMENTS.code());
        assertEquals(0x100E, HsaStatus.INVALID_INDEX.code());
        assertEquals(0x100F, HsaStatus.INVALID_ISA.code());
        assertEquals(0x1010, HsaStatus.INVALID_CODE_OBJECT.code());
        assertEquals(0x1011, HsaStatus.INVALID_EXECUTABLE.code());
        assertEquals(0x1013, HsaStatus.INVALID_SYMBOL_NAME.code());
        assertEquals(0x1015, HsaStatus.VARIABLE_UNDEFINED.code());
        assertEquals(0x1017, HsaStatus.INVALID_ISA_NAME.code());
        assertEquals(0x1018, HsaStatus.INVALID_CODE_SYMBOL.code());
        assertEquals(0x1019, HsaStatus.INVALID_EXECUTABLE_SYMBOL.code());
        assertEquals(0x1023, HsaStatus.INVALID_WAVEFRONT.code());
        assertEquals(0x1026, HsaStatus.FATAL.code());
    }

    @Test
    void shouldGiveEveryStatusItsOwnCode() {
        Set<Integer> codes = new HashSet<>();
        for (HsaStatus s : HsaStatus.values()) {
            assertTrue(codes.add(s.code()), s + " shares code 0x" + Integer.toHexString(s.code()));
            assertEquals(s, HsaStatus.fromCode(s.code()));
        }
    }

    @Test
    void shouldNameTheCEnumeratorAndItsMeaningInTheStatusString() {
        assertEquals("HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: The arguments passed to a function are not compatible.",
                HsaStatus.statusString(0x100D));
        assertEquals("HSA_STATUS_SUCCESS: The function has been executed successfully.", HsaStatus.SUCCESS.string());
        assertEquals("HSA_STATUS_ERROR_MEMORY_FAULT", HsaStatus.MEMORY_FAULT.cName());
    }

    @Test
    void shouldRefuseTheStringOfAnUnknownCodeWithInvalidArgument() {
        assertEquals(HsaStatus.INVALID_ARGUMENT,
                assertThrows(HsaException.class, () -> HsaStatus.statusString(0x1FFF)).status());
    }

    @Test
    void shouldCountOnlySuccessAndInfoBreakAsNoError() {
        assertFalse(HsaStatus.SUCCESS.isError());
        assertFalse(HsaStatus.INFO_BREAK.isError());
        assertTrue(HsaStatus.FATAL.isError());
        assertTrue(HsaStatus.RESOURCE_BUSY.isError());
    }
}
