package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** The fidelity-mode switch: off by default, on through the builder or HSA4J_FIDELITY, shown by ./hsa4j info. */
@Timeout(30)
class FidelityConfigTest {

    @Test
    void shouldLeaveFidelityModeOffByDefault() {
        assertFalse(RuntimeConfig.defaults().fidelity());
    }

    @Test
    void shouldTurnFidelityModeOnThroughTheBuilder() {
        assertTrue(RuntimeConfig.builder().fidelity(true).build().fidelity());
    }

    @Test
    void shouldKeepFidelityModeThroughToBuilder() {
        assertTrue(RuntimeConfig.builder().fidelity(true).build().toBuilder().build().fidelity());
    }

    @Test
    void shouldKeepTheEnvironmentsFidelityInABuilderFromTheEnvironment() {
        assertTrue(RuntimeConfig.builderFromEnvironment(Map.of("HSA4J_FIDELITY", "1")).computeUnits(1).build().fidelity());
    }

    @Test
    void shouldTurnFidelityModeOnThroughTheEnvironment() {
        assertTrue(RuntimeConfig.fromEnvironment(Map.of("HSA4J_FIDELITY", "1")).fidelity());
    }

    @Test
    void shouldTurnFidelityModeOffThroughTheEnvironment() {
        assertFalse(RuntimeConfig.fromEnvironment(Map.of("HSA4J_FIDELITY", "0")).fidelity());
    }

    @Test
    void shouldRejectABadFidelityValueNamingTheVariable() {
        HsaException e = assertThrows(HsaException.class,
                () -> RuntimeConfig.fromEnvironment(Map.of("HSA4J_FIDELITY", "yes")));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("HSA4J_FIDELITY"), e.getMessage());
    }

    @Test
    void shouldReportTheMemoryModelInSystemReport() {
        assertTrue(Pattern.compile("Memory model:\\s+FIDELITY").matcher(report(true)).find(), report(true));
        assertTrue(Pattern.compile("Memory model:\\s+NORMAL").matcher(report(false)).find(), report(false));
    }

    @Test
    void shouldTellWhetherARuntimeRunsInFidelityMode() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).fidelity(true).build())) {
            assertTrue(rt.fidelityEnabled());
            assertTrue(rt.svm().access().coherent());
        }
    }

    private static String report(boolean fidelity) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).fidelity(fidelity).build())) {
            SystemReport.write(rt, new PrintStream(out, true, StandardCharsets.UTF_8));
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
