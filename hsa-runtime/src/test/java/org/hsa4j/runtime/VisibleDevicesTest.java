package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** ROCR_VISIBLE_DEVICES chooses the GPU agents a runtime exposes, read as ROCR reads it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VisibleDevicesTest {

    @ParameterizedTest(name = "\"{0}\" of {1} GPUs -> {2}")
    @CsvSource(delimiter = '|', value = {
            "0|4|1",
            "0,2|4|2",
            "3,1,0|4|3",
            "1,9,2|4|1",      // ROCR ignores the list from the first index out of range
            "1,1,2|4|1",      // ...and from a repeated one
            "0,x,1|4|1",      // ...and from one that is not a number
            " 2 , 3 |4|2",
            "0,1,2,3,4|4|4",
    })
    void shouldCountTheListedIndicesUpToTheFirstInvalidOne(String list, int configured, int visible) {
        assertEquals(visible, RuntimeConfig.visibleGpuAgents(list, configured));
    }

    @Test
    void shouldHideEveryGpuForAnEmptyList() {
        assertEquals(0, RuntimeConfig.fromEnvironment(Map.of("ROCR_VISIBLE_DEVICES", "")).gpuAgents());
    }

    @Test
    void shouldApplyTheListToTheConfiguredGpuAgents() {
        RuntimeConfig c = RuntimeConfig.fromEnvironment(Map.of("HSA4J_GPU_AGENTS", "3", "ROCR_VISIBLE_DEVICES", "2,0"));
        assertEquals(2, c.gpuAgents());
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(c.gpuAgents()).computeUnits(1).build())) {
            assertEquals(2, rt.gpuAgents().size());
        }
    }
}
