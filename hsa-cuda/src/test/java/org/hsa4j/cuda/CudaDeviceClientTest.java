package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.memory.SvmShare;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Starting a device server (a child JVM) fails clearly and boundedly where it cannot serve; runs
 * without a GPU (the server maps the parent's SVM before it looks for CUDA).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CudaDeviceClientTest {
    private HsaRuntime rt;

    @BeforeEach
    void open() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        rt.memory().shareRealSvm();
        rt.realSystemPool().allocate(64);   // the arena exists, shared
    }

    @AfterEach
    void close() {
        rt.close();
    }

    @Test
    void aServerThatCannotOpenTheParentsSvmIsFatalNamingTheFile() {
        SvmShare real = rt.memory().svmShare().orElseThrow();
        SvmShare wrong = new SvmShare(real.pid(), 1 << 20, real.address(), real.bytes());
        AtomicInteger deaths = new AtomicInteger();
        HsaException e = assertThrows(HsaException.class,
                () -> CudaDeviceClient.start(wrong, 0, 1, "test agent", c -> deaths.incrementAndGet()));
        assertEquals(HsaStatus.FATAL, e.status(), e.getMessage());
        assertTrue(e.getMessage().contains(wrong.path()), e.getMessage());
    }

    @Test
    void theServerMapsTheParentsSvmAtItsAddressThenSaysWhenItHasNoCuda() {
        Assumptions.assumeFalse(Gpu.platform().available(), "a GPU is present: the server would start");
        SvmShare share = rt.memory().svmShare().orElseThrow();
        HsaException e = assertThrows(HsaException.class,
                () -> CudaDeviceClient.start(share, 0, 1, "test agent", c -> { }));
        assertEquals(HsaStatus.FATAL, e.status(), e.getMessage());
        // it got past mapping the SVM at the parent's address: only CUDA was missing
        assertTrue(e.getMessage().contains("no CUDA in the device server"), e.getMessage());
    }
}
