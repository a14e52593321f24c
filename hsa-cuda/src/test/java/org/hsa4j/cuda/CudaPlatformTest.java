package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.hsa4j.agent.AgentProperties;
import org.hsa4j.cuda.driver.CudaDriver;
import org.hsa4j.cuda.driver.Nvrtc;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;

/** Discovery and the info report where libcuda is absent (a library name that cannot exist). */
class CudaPlatformTest {
    private static final String ABSENT = "libcuda-absent-for-hsa4j-tests.so.1";

    @Test
    void modeParsesAutoOffRequiredAndDefaultsToAuto() {
        assertEquals(CudaMode.AUTO, CudaMode.parse(null));
        assertEquals(CudaMode.AUTO, CudaMode.parse(" Auto "));
        assertEquals(CudaMode.OFF, CudaMode.parse("off"));
        assertEquals(CudaMode.REQUIRED, CudaMode.parse("REQUIRED"));
    }

    @Test
    void anUnknownModeIsAnInvalidArgumentNamingTheVariable() {
        HsaException e = assertThrows(HsaException.class, () -> CudaMode.parse("sometimes"));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("HSA4J_CUDA=sometimes"), e.getMessage());
    }

    @Test
    void autoWithoutTheDriverIsAnEmptyPlatformThatSaysWhy() {
        CudaPlatform p = CudaPlatform.discover(CudaMode.AUTO, ABSENT, Nvrtc.LIBRARY);
        assertFalse(p.available());
        assertTrue(p.devices().isEmpty());
        assertTrue(p.reason().contains(ABSENT), p.reason());
        assertNull(p.driver());
    }

    @Test
    void requiredWithoutTheDriverIsAnErrorNamingWhy() {
        HsaException e = assertThrows(HsaException.class,
                () -> CudaPlatform.discover(CudaMode.REQUIRED, ABSENT, Nvrtc.LIBRARY));
        assertEquals(HsaStatus.INVALID_AGENT, e.status());
        assertTrue(e.getMessage().contains("HSA4J_CUDA=required") && e.getMessage().contains(ABSENT), e.getMessage());
    }

    @Test
    void offNeverLoadsTheDriver() {
        CudaPlatform p = CudaPlatform.discover(CudaMode.OFF, CudaDriver.LIBRARY, Nvrtc.LIBRARY);
        assertFalse(p.available());
        assertEquals("HSA4J_CUDA=off", p.reason());
    }

    @Test
    void aMissingNvrtcIsAStatusNotAnException() {
        Nvrtc.Load load = Nvrtc.load("libnvrtc-absent-for-hsa4j-tests.so");
        assertFalse(load.available());
        assertTrue(load.reason().contains("cannot be loaded"), load.reason());
    }

    @Test
    void theReportWithoutADeviceSaysNoCudaAndWhy() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CudaReport.write(CudaPlatform.discover(CudaMode.AUTO, ABSENT, Nvrtc.LIBRARY),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("no CUDA: " + ABSENT), text);
    }

    @Test
    void aDeviceBlockListsTheAttributesLikeRocminfo() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CudaReport.writeDevice(h100(), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("NVIDIA H100 80GB HBM3"), text);
        assertTrue(text.matches("(?s).*Compute Unit \\(SMs\\):\\s+132\\n.*"), text);
        assertTrue(text.matches("(?s).*Wavefront Size \\(warp\\):\\s+32\\n.*"), text);
        assertTrue(text.matches("(?s).*Host-native Atomics:\\s+no\\n.*"), text);
        assertTrue(text.matches("(?s).*Host Pointer for Registered Mem:\\s+yes\\n.*"), text);
        assertTrue(text.contains("sm_90"), text);
    }

    @Test
    void agentPropertiesUseBlocksAsWorkgroupsAndWorkItemsForTheGrid() {
        AgentProperties p = h100().agentProperties();
        assertEquals(132, p.computeUnits());
        assertEquals(32, p.wavefrontSize());
        assertEquals(1024, p.workgroupMaxSize());
        assertEquals(64, p.workgroupMaxDim()[2]);
        assertEquals(0xFFFF_FFFFL, p.gridMaxDim()[0]);
        assertEquals(65535L * 1024, p.gridMaxDim()[1]);
        assertEquals(227 * 1024, p.groupSegmentMax());
    }

    @Test
    void uuidIsFormattedAsNvidiaSmiPrintsIt() {
        byte[] b = new byte[16];
        for (int i = 0; i < 16; i++) {
            b[i] = (byte) (0xF0 + i);
        }
        assertEquals("GPU-f0f1f2f3-f4f5-f6f7-f8f9-fafbfcfdfeff", CudaPlatform.formatUuid(b));
    }

    /** The H100 of the GPU machine, as its attributes read there. */
    static CudaDeviceInfo h100() {
        return new CudaDeviceInfo(0, "NVIDIA H100 80GB HBM3", "GPU-00000000-0000-0000-0000-000000000000", 9, 0, 132, 32,
                1024, new int[] {1024, 1024, 64}, new long[] {Integer.MAX_VALUE, 65535, 65535}, 48 * 1024, 227 * 1024,
                50 * 1024 * 1024, 85_000_000_000L, 1_980_000, 2_619_000, 5120, 0x19, 2048, false, false, true, true,
                true, true, true);
    }
}
