package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.hsa4j.agent.Agent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RuntimeConfigTest {

    @Test
    void shouldBuildTheTopologyGivenInCode() {
        RuntimeConfig config = RuntimeConfig.builder().gpuAgents(2).computeUnits(3).wavefrontSize(32)
                .queueMinSize(32).queueMaxSize(1024).queuesMax(5).build();
        try (HsaRuntime rt = HsaRuntime.init(config)) {
            assertEquals(3, rt.agents().size());
            assertEquals(2, rt.gpuAgents().size());
            for (Agent gpu : rt.gpuAgents()) {
                assertEquals(3, gpu.computeUnits());
                assertEquals(3, gpu.computeUnitThreads().length);
                assertEquals(32, gpu.wavefrontSize());
                assertEquals(32, gpu.queueMinSize());
                assertEquals(1024, gpu.queueMaxSize());
                assertEquals(5, gpu.queuesMax());
            }
            assertEquals(List.of("cpu0", "gpu0", "gpu1"), rt.agents().stream().map(Agent::name).toList());
        }
    }

    @Test
    void shouldTakeEveryVariableFromTheEnvironment() {
        RuntimeConfig c = RuntimeConfig.fromEnvironment(Map.ofEntries(
                Map.entry("HSA4J_GPU_AGENTS", "2"),
                Map.entry("HSA4J_COMPUTE_UNITS", "3"),
                Map.entry("HSA4J_CPU_COMPUTE_UNITS", "2"),
                Map.entry("HSA4J_WAVEFRONT_SIZE", "32"),
                Map.entry("HSA4J_QUEUE_MIN_SIZE", "64"),
                Map.entry("HSA4J_QUEUE_MAX_SIZE", "4096"),
                Map.entry("HSA4J_QUEUES_MAX", "7"),
                Map.entry("HSA4J_WORKGROUP_MAX_SIZE", "512"),
                Map.entry("HSA4J_GROUP_SEGMENT_MAX", "4096"),
                Map.entry("HSA4J_DEVICE_MEMORY", "1048576"),
                Map.entry("HSA_XNACK", "1")));
        assertEquals(2, c.gpuAgents());
        assertEquals(3, c.computeUnits());
        assertEquals(2, c.cpuComputeUnits());
        assertEquals(32, c.wavefrontSize());
        assertEquals(64, c.queueMinSize());
        assertEquals(4096, c.queueMaxSize());
        assertEquals(7, c.queuesMax());
        assertEquals(512, c.workgroupMaxSize());
        assertEquals(4096, c.groupSegmentMax());
        assertEquals(1048576, c.deviceMemorySize());
        assertTrue(c.xnack());
    }

    @Test
    void shouldKeepTheDefaultsForAnEmptyEnvironment() {
        RuntimeConfig c = RuntimeConfig.fromEnvironment(Map.of());
        assertEquals(RuntimeConfig.defaults(), c);
        assertEquals(1, c.gpuAgents());
        assertEquals(Runtime.getRuntime().availableProcessors(), c.computeUnits());
        assertEquals(64, c.wavefrontSize());
        assertFalse(c.xnack());
    }

    @Test
    void shouldStartARuntimeWithTheTopologyFromTheEnvironment() {
        RuntimeConfig c = RuntimeConfig.fromEnvironment(Map.of("HSA4J_GPU_AGENTS", "2", "HSA4J_COMPUTE_UNITS", "3",
                "HSA4J_WAVEFRONT_SIZE", "32"));
        try (HsaRuntime rt = HsaRuntime.init(c)) {
            assertEquals(2, rt.gpuAgents().size());
            assertEquals(3, rt.gpuAgent().computeUnitThreads().length);
            assertEquals(32, rt.gpuAgent().wavefrontSize());
        }
    }

    @Test
    void shouldAcceptAQueueRangeAboveTheDefaultMaximumGivenTogether() {
        RuntimeConfig c = RuntimeConfig.fromEnvironment(Map.of("HSA4J_QUEUE_MIN_SIZE", "262144",
                "HSA4J_QUEUE_MAX_SIZE", "524288"));
        assertEquals(262144, c.queueMinSize());
        assertEquals(524288, c.queueMaxSize());
    }

    @ParameterizedTest
    @CsvSource({
            "HSA4J_GPU_AGENTS, two",
            "HSA4J_COMPUTE_UNITS, 3.5",
            "HSA4J_CPU_COMPUTE_UNITS, ''",
            "HSA4J_WAVEFRONT_SIZE, 0x20",
            "HSA4J_QUEUE_MIN_SIZE, lots",
            "HSA4J_QUEUE_MAX_SIZE, 1e6",
            "HSA4J_QUEUES_MAX, many",
            "HSA4J_WORKGROUP_MAX_SIZE, 1024k",
            "HSA4J_GROUP_SEGMENT_MAX, 64KiB",
            "HSA4J_DEVICE_MEMORY, 8G",
            "HSA_XNACK, yes",
            "HSA4J_XNACK, 2"})
    void shouldNameTheVariableThatIsNotANumber(String variable, String value) {
        HsaException e = assertThrows(HsaException.class, () -> RuntimeConfig.fromEnvironment(Map.of(variable, value)));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains(variable), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({
            "HSA4J_GPU_AGENTS, -1",
            "HSA4J_GPU_AGENTS, 63",
            "HSA4J_COMPUTE_UNITS, 0",
            "HSA4J_COMPUTE_UNITS, 100000",
            "HSA4J_CPU_COMPUTE_UNITS, 0",
            "HSA4J_WAVEFRONT_SIZE, 48",
            "HSA4J_WAVEFRONT_SIZE, 2048",
            "HSA4J_QUEUE_MIN_SIZE, 24",
            "HSA4J_QUEUE_MIN_SIZE, 262144",
            "HSA4J_QUEUE_MAX_SIZE, 8",
            "HSA4J_QUEUE_MAX_SIZE, 100000",
            "HSA4J_QUEUES_MAX, 0",
            "HSA4J_WORKGROUP_MAX_SIZE, 0",
            "HSA4J_WORKGROUP_MAX_SIZE, 65536",
            "HSA4J_GROUP_SEGMENT_MAX, -1",
            "HSA4J_DEVICE_MEMORY, 0",
            "HSA4J_GPU_AGENTS, 99999999999"})
    void shouldNameTheVariableThatIsOutOfRange(String variable, String value) {
        HsaException e = assertThrows(HsaException.class, () -> RuntimeConfig.fromEnvironment(Map.of(variable, value)));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains(variable), e.getMessage());
        assertTrue(e.getMessage().contains(value), "the message should show the bad value: " + e.getMessage());
    }

    @Test
    void shouldRefuseAnInvalidConfigurationInCode() {
        HsaException e = assertThrows(HsaException.class, () -> RuntimeConfig.builder().computeUnits(0).build());
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("computeUnits"), e.getMessage());
    }

    @Test
    void shouldRoundTripThroughTheBuilder() {
        RuntimeConfig c = RuntimeConfig.builder().gpuAgents(3).computeUnits(5).xnack(true).build();
        assertEquals(c, c.toBuilder().build());
    }

    @Test
    void shouldTakeTheKernelTimeLimitFromTheEnvironmentAndHaveNoneByDefault() {
        assertEquals(0, RuntimeConfig.defaults().kernelTimeLimitMillis());
        assertEquals(250, RuntimeConfig.fromEnvironment(Map.of("HSA4J_KERNEL_TIME_LIMIT_MS", "250"))
                .kernelTimeLimitMillis());
        HsaException e = assertThrows(HsaException.class,
                () -> RuntimeConfig.fromEnvironment(Map.of("HSA4J_KERNEL_TIME_LIMIT_MS", "-1")));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("HSA4J_KERNEL_TIME_LIMIT_MS"), e.getMessage());
    }

    @Test
    void shouldBlockAfterASpinByDefaultAndBusyWaitWhenHsaEnableInterruptIsZero() {
        assertTrue(RuntimeConfig.defaults().interruptWaits());
        RuntimeConfig busy = RuntimeConfig.fromEnvironment(Map.of("HSA_ENABLE_INTERRUPT", "0"));
        assertFalse(busy.interruptWaits());
        assertFalse(busy.idleStrategy().interrupt());
    }

    @Test
    void shouldRejectAnHsaEnableInterruptOtherThanZeroOrOne() {
        HsaException e = assertThrows(HsaException.class,
                () -> RuntimeConfig.fromEnvironment(Map.of("HSA_ENABLE_INTERRUPT", "2")));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("HSA_ENABLE_INTERRUPT"), e.getMessage());
    }

    @Test
    void shouldHandTheConfiguredIdleStrategyToTheRuntimesWaits() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).interruptWaits(false).build())) {
            assertFalse(rt.signals().idleStrategy().interrupt());
            assertFalse(rt.gpuAgent().idleStrategy().interrupt());
        }
    }

    @Test
    void shouldEndABusyWaitAtItsTimeout() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).interruptWaits(false).build())) {
            org.hsa4j.signal.Signal s = rt.createSignal(1);
            assertEquals(1, s.waitScacquire(org.hsa4j.signal.SignalCondition.EQ, 0, 2_000_000,
                    org.hsa4j.signal.WaitState.BLOCKED));
        }
    }
}
