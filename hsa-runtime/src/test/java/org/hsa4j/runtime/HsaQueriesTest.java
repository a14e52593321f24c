package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.agent.Agent;
import org.hsa4j.memory.GlobalFlag;
import org.hsa4j.memory.Region;
import org.hsa4j.memory.SegmentKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** ISA, cache, extension and region queries. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HsaQueriesTest {
    private HsaRuntime rt;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).fidelity(true).build());
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    @Test
    void shouldDescribeTheGpuAgentsIsaWithItsLimits() {
        Agent gpu = rt.gpuAgent();
        List<Isa> isas = rt.isas(gpu);
        assertEquals(1, isas.size());
        Isa isa = isas.get(0);
        assertTrue(isa.name().startsWith("hsa4j-jvm-java"), isa.name());
        assertEquals(gpu.wavefrontSize(), isa.wavefrontSize());
        assertArrayEquals(gpu.workgroupMaxDim(), isa.workgroupMaxDim());
        assertEquals(gpu.gridMaxSize(), isa.gridMaxSize());
        assertEquals(List.of(gpu.profile().name()), isa.profiles());
    }

    @Test
    void shouldFindAnIsaByName() {
        Isa isa = rt.isas(rt.gpuAgent()).get(0);
        assertEquals(isa.name(), rt.isaFromName(isa.name()).name());
    }

    @Test
    void shouldRefuseAnUnknownIsaName() {
        assertEquals(HsaStatus.INVALID_ISA_NAME,
                assertThrows(HsaException.class, () -> rt.isaFromName("amdgcn-amd-amdhsa--gfx90a")).status());
    }

    @Test
    void shouldListTheModelsCachesOfAGpuAgentInFidelityMode() {
        List<AgentCache> caches = rt.caches(rt.gpuAgent());
        assertEquals(List.of(1, 2), caches.stream().map(AgentCache::level).toList());
        assertTrue(caches.stream().allMatch(c -> c.bytes() > 0), caches.toString());
    }

    @Test
    void shouldSupportTheAmdProfilerExtensionOnly() {
        assertTrue(rt.systemExtensionSupported(Extension.AMD_PROFILER, 1, 0));
        assertFalse(rt.systemExtensionSupported(Extension.AMD_PROFILER, 2, 0));
        assertFalse(rt.systemExtensionSupported(Extension.FINALIZER, 1, 0));
        assertFalse(rt.systemExtensionSupported(Extension.IMAGES, 1, 0));
        assertEquals(List.of(Extension.AMD_PROFILER), rt.extensions());
    }

    @Test
    void shouldListOneRegionPerPool() {
        Agent cpu = rt.cpuAgent();
        assertEquals(cpu.memoryPools(), rt.regions(cpu).stream().map(Region::pool).toList());
    }

    @Test
    void shouldMarkTheKernargRegion() {
        Region kernarg = rt.regions(rt.cpuAgent()).stream()
                .filter(r -> r.globalFlags().contains(GlobalFlag.KERNARG)).findFirst().orElseThrow();
        assertEquals(SegmentKind.GLOBAL, kernarg.segment());
        assertTrue(kernarg.runtimeAllocAllowed());
        long address = rt.memoryAllocate(kernarg, 64);
        assertEquals(0, address % kernarg.runtimeAllocAlignment());
        rt.svm().setLong(address, 7);
        assertEquals(7, rt.svm().getLong(address));
        rt.free(address);
    }

    @Test
    void shouldRefuseAllocationFromARegionThatAllowsNone() {
        Region group = rt.regions(rt.gpuAgent()).stream()
                .filter(r -> r.segment() == SegmentKind.GROUP).findFirst().orElseThrow();
        assertFalse(group.runtimeAllocAllowed());
        assertEquals(HsaStatus.INVALID_ALLOCATION,
                assertThrows(HsaException.class, () -> rt.memoryAllocate(group, 64)).status());
    }
}
