package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.FpAtomics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** The FP atomics setting: builder, environment variable, and the info report. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FpAtomicsConfigTest {

    @Test
    void shouldDefaultToTheCasLoop() {
        assertEquals(FpAtomics.CAS_LOOP, RuntimeConfig.defaults().fpAtomics());
        assertEquals(FpAtomics.CAS_LOOP, RuntimeConfig.fromEnvironment(Map.of()).fpAtomics());
    }

    @ParameterizedTest
    @CsvSource({"cas, CAS_LOOP", "unsafe, UNSAFE", "diagnose, UNSAFE_DIAGNOSE", "' Unsafe ', UNSAFE"})
    void shouldReadTheSettingFromTheEnvironment(String value, FpAtomics expected) {
        assertEquals(expected, RuntimeConfig.fromEnvironment(Map.of("HSA4J_FP_ATOMICS", value)).fpAtomics());
    }

    @Test
    void shouldRefuseAnUnknownSettingNamingTheVariable() {
        HsaException e = assertThrows(HsaException.class,
                () -> RuntimeConfig.fromEnvironment(Map.of("HSA4J_FP_ATOMICS", "fast")));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("HSA4J_FP_ATOMICS") && e.getMessage().contains("fast"), e.getMessage());
    }

    @Test
    void shouldRefuseANullSettingInCode() {
        HsaException e = assertThrows(HsaException.class, () -> RuntimeConfig.builder().fpAtomics(null).build());
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRoundTripTheSettingThroughTheBuilder() {
        RuntimeConfig c = RuntimeConfig.builder().fpAtomics(FpAtomics.UNSAFE_DIAGNOSE).build();
        assertEquals(c, c.toBuilder().build());
    }

    @Test
    void shouldShowTheSettingInTheSystemReport() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).fpAtomics(FpAtomics.UNSAFE).build())) {
            SystemReport.write(rt, new PrintStream(out, true, StandardCharsets.UTF_8));
        }
        String report = out.toString(StandardCharsets.UTF_8);
        assertTrue(report.matches("(?s).*FP atomics:\\s+UNSAFE\\R.*"), report);
    }
}
