package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AgentInfoTest {
    private static HsaRuntime rt;

    @BeforeAll
    static void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(2).computeUnits(3).cpuComputeUnits(1)
                .wavefrontSize(32).workgroupMaxSize(512).queueMinSize(32).queueMaxSize(2048).queuesMax(6)
                .groupSegmentMax(8192).privateSegmentMax(1024).build());
    }

    @AfterAll
    static void stop() {
        rt.close();
    }

    @Test
    void shouldIterateTheCpuAgentFirstThenTheGpuAgents() {
        List<Agent> agents = rt.agents();
        assertEquals(3, agents.size());
        assertSame(rt.cpuAgent(), agents.get(0));
        assertSame(rt.gpuAgent(), agents.get(1));
        assertEquals(List.of(agents.get(1), agents.get(2)), rt.gpuAgents());
        for (int i = 0; i < agents.size(); i++) {
            assertEquals(i, agents.get(i).index());
        }
    }

    @Test
    void shouldDescribeTheCpuAgentAsAnAgentDispatchAgent() {
        Agent cpu = rt.cpuAgent();
        assertEquals("cpu0", cpu.name());
        assertEquals("hsa4j", cpu.vendor());
        assertEquals(DeviceType.CPU, cpu.deviceType());
        assertEquals(Set.of(AgentFeature.AGENT_DISPATCH), cpu.features());
        assertTrue(cpu.hasFeature(AgentFeature.AGENT_DISPATCH));
        assertEquals(Profile.FULL, cpu.profile());
        assertEquals(1, cpu.computeUnits());
        assertEquals(32, cpu.queueMinSize());
        assertEquals(2048, cpu.queueMaxSize());
        assertEquals(6, cpu.queuesMax());
    }

    @Test
    void shouldDescribeEveryGpuAgentAsAKernelDispatchAgent() {
        for (int g = 0; g < 2; g++) {
            Agent gpu = rt.gpuAgents().get(g);
            assertEquals("gpu" + g, gpu.name());
            assertEquals("hsa4j", gpu.vendor());
            assertEquals(DeviceType.GPU, gpu.deviceType());
            assertEquals(Set.of(AgentFeature.KERNEL_DISPATCH), gpu.features());
            assertEquals(Profile.FULL, gpu.profile());
        }
    }

    @Test
    void shouldReportTheConfiguredGpuLimits() {
        Agent gpu = rt.gpuAgent();
        assertEquals(3, gpu.computeUnits());
        assertEquals(32, gpu.wavefrontSize());
        assertArrayEquals(new int[] {512, 512, 512}, gpu.workgroupMaxDim());
        assertEquals(512, gpu.workgroupMaxSize());
        assertArrayEquals(new long[] {0xFFFF_FFFFL, 0xFFFF_FFFFL, 0xFFFF_FFFFL}, gpu.gridMaxDim());
        assertEquals(0xFFFF_FFFFL, gpu.gridMaxSize());
        assertEquals(32, gpu.queueMinSize());
        assertEquals(2048, gpu.queueMaxSize());
        assertEquals(6, gpu.queuesMax());
        assertEquals(8192, gpu.properties().groupSegmentMax());
        assertEquals(1024, gpu.properties().privateSegmentMax());
    }

    @Test
    void shouldNotLetCallersChangeTheReportedDimensions() {
        Agent gpu = rt.gpuAgent();
        gpu.workgroupMaxDim()[0] = 1;
        gpu.gridMaxDim()[0] = 1;
        assertEquals(512, gpu.workgroupMaxDim()[0]);
        assertEquals(0xFFFF_FFFFL, gpu.gridMaxDim()[0]);
    }

    @Test
    void shouldGiveEachAgentAMemoryViewOfItsOwn() {
        for (Agent a : rt.agents()) {
            assertEquals(a.index(), a.svm().agentIndex());
            assertTrue(!a.memoryPools().isEmpty(), a.name() + " has memory pools");
        }
    }

    @Test
    void shouldRefuseAgentDispatchHandlersOnAGpuAgent() {
        HsaException e = assertThrows(HsaException.class,
                () -> rt.gpuAgent().registerAgentDispatchHandler(1, r -> { }));
        assertEquals(HsaStatus.INVALID_AGENT, e.status());
    }

    @Test
    void shouldRefuseAnAgentDispatchTypeOutsideSixteenBits() {
        HsaException e = assertThrows(HsaException.class,
                () -> rt.cpuAgent().registerAgentDispatchHandler(0x10000, r -> { }));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }
}
