package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hsa4j.agent.Agent;
import org.hsa4j.cuda.driver.CudaDriver;
import org.hsa4j.cuda.driver.Nvrtc;
import org.hsa4j.runtime.AgentProvider;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;

/** Registration of CUDA agents through hsa-runtime's provider SPI, where no device is needed. */
class CudaAgentProviderTest {
    private static final String ABSENT = "libcuda-absent-for-hsa4j-tests.so.1";
    private static final RuntimeConfig ONE_GPU = RuntimeConfig.builder().gpuAgents(1).computeUnits(1).build();

    @Test
    void theProviderIsInstalledThroughTheServiceLoader() {
        assertTrue(HsaRuntime.installedProviders().stream().anyMatch(p -> p instanceof CudaAgentProvider),
                HsaRuntime.installedProviders().toString());
    }

    @Test
    void cudaOffAddsNoAgentAndTheNoteSaysSo() {
        AgentProvider off = new CudaAgentProvider(() -> CudaPlatform.discover(CudaMode.OFF, CudaDriver.LIBRARY,
                Nvrtc.LIBRARY));
        try (HsaRuntime rt = HsaRuntime.init(ONE_GPU, List.of(off))) {
            assertEquals(List.of("cpu0", "gpu0"), rt.agents().stream().map(Agent::name).toList());
            assertEquals(List.of("cuda: no CUDA: HSA4J_CUDA=off"), rt.providerNotes());
            assertTrue(CudaAgent.in(rt).isEmpty());
        }
    }

    @Test
    void aMissingDriverAddsNoAgentAndTheNoteNamesTheLibrary() {
        AgentProvider absent = new CudaAgentProvider(() -> CudaPlatform.discover(CudaMode.AUTO, ABSENT, Nvrtc.LIBRARY));
        try (HsaRuntime rt = HsaRuntime.init(ONE_GPU, List.of(absent))) {
            assertTrue(rt.providedAgents().isEmpty());
            assertTrue(rt.providerNotes().get(0).startsWith("cuda: no CUDA: ") && rt.providerNotes().get(0)
                    .contains(ABSENT), rt.providerNotes().toString());
        }
    }

    @Test
    void requiredWithoutADeviceFailsInitWithInvalidAgentSayingWhy() {
        AgentProvider required = new CudaAgentProvider(() -> CudaPlatform.discover(CudaMode.REQUIRED, ABSENT,
                Nvrtc.LIBRARY));
        HsaException e = assertThrows(HsaException.class, () -> HsaRuntime.init(ONE_GPU, List.of(required)));
        assertEquals(HsaStatus.INVALID_AGENT, e.status());
        assertTrue(e.getMessage().contains("HSA4J_CUDA=required") && e.getMessage().contains(ABSENT), e.getMessage());
    }

    @Test
    void initListsTheDevicesAgentsOrSaysWhyThereAreNone() {
        try (HsaRuntime rt = HsaRuntime.init()) {
            CudaPlatform p = Gpu.platform();
            String note = rt.providerNotes().stream().filter(n -> n.startsWith("cuda: ")).findFirst().orElseThrow();
            if (p.available() && CudaMode.fromEnvironment() != CudaMode.OFF) {
                assertEquals(p.devices().size(), CudaAgent.in(rt).size(), note);
                CudaAgent a = CudaAgent.in(rt).get(0);
                assertEquals(a.name(), rt.providedAgents().get(0).name());
                assertEquals(a, CudaAgent.of(rt.providedAgents().get(0)));
            } else {
                assertTrue(rt.providedAgents().isEmpty(), note);
                assertTrue(note.startsWith("cuda: no CUDA: "), note);
            }
        }
    }

    @Test
    void ofAnAgentThatIsNotCudaIsInvalidAgent() {
        try (HsaRuntime rt = HsaRuntime.init(ONE_GPU)) {
            HsaException e = assertThrows(HsaException.class, () -> CudaAgent.of(rt.gpuAgent()));
            assertEquals(HsaStatus.INVALID_AGENT, e.status());
        }
    }

    @Test
    void aDeviceThatCannotBeOpenedIsLeftOutUnderAutoAndTheNoteSaysWhy() {
        CudaPlatform p = CudaPlatform.of(CudaMode.AUTO, List.of(CudaPlatformTest.h100()));
        AgentProvider.Found f = CudaAgentProvider.open(2, p, (d, index) -> {
            throw new HsaException(HsaStatus.ERROR, "cuDevicePrimaryCtxRetain: CUDA_ERROR_DEVICES_UNAVAILABLE (46)");
        });
        assertTrue(f.agents().isEmpty());
        assertTrue(f.note().startsWith("0 CUDA agent(s); NVIDIA H100 80GB HBM3 (cuda:0) cannot be opened: ")
                && f.note().contains("CUDA_ERROR_DEVICES_UNAVAILABLE"), f.note());
    }

    @Test
    void aDeviceThatCannotBeOpenedIsAnErrorUnderRequired() {
        CudaPlatform p = CudaPlatform.of(CudaMode.REQUIRED, List.of(CudaPlatformTest.h100()));
        HsaException e = assertThrows(HsaException.class, () -> CudaAgentProvider.open(2, p, (d, index) -> {
            throw new HsaException(HsaStatus.ERROR, "cuDevicePrimaryCtxRetain: CUDA_ERROR_DEVICES_UNAVAILABLE (46)");
        }));
        assertEquals(HsaStatus.ERROR, e.status());
        assertTrue(e.getMessage().contains("HSA4J_CUDA=required") && e.getMessage().contains("cannot be opened"),
                e.getMessage());
    }
}
