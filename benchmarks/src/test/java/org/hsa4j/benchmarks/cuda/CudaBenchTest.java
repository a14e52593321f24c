package org.hsa4j.benchmarks.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import org.hsa4j.cuda.CudaPlatform;
import org.hsa4j.runtime.HsaRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Where CUDA finds no device, the CUDA benchmarks stop at setup saying why (skipped on a GPU machine). */
class CudaBenchTest {
    private static String reason;

    @BeforeAll
    static void noDevice() {
        CudaPlatform p = CudaPlatform.discover();
        assumeFalse(p.available(), "a CUDA device is present");
        reason = p.reason();
    }

    @Test
    void openFailsNamingWhyThereIsNoDevice() {
        try (HsaRuntime rt = HsaRuntime.init()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> CudaBench.open(rt, 256));
            assertTrue(e.getMessage().startsWith("no CUDA device: " + reason), e.getMessage());
        }
    }

    @Test
    void aGpuSideOfABenchmarkFailsItsSetupAndItsTeardownStillClosesTheRuntime() {
        CudaDispatchRoundTripBenchmark b = new CudaDispatchRoundTripBenchmark();
        b.side = Side.HSA4J_AQL;
        IllegalStateException e = assertThrows(IllegalStateException.class, b::start);
        assertTrue(e.getMessage().startsWith("no CUDA device: "), e.getMessage());
        b.stop();
    }

    @Test
    void eachGpuSetupThatFailsLeavesATeardownThatCloses() {
        CudaPingPongBenchmark p = new CudaPingPongBenchmark();
        p.side = Side.RAW_CUDA;
        assertThrows(IllegalStateException.class, p::start);
        p.stop();
        CudaVectorAddBenchmark v = new CudaVectorAddBenchmark();
        v.side = CudaVectorAddBenchmark.Op.HSA4J_AQL;
        v.elements = 1024;
        assertThrows(IllegalStateException.class, v::start);
        v.stop();
        CudaRpcBenchmark r = new CudaRpcBenchmark();
        assertThrows(IllegalStateException.class, r::start);
        r.stop();
    }

    @Test
    void theCpuPoolLineRunsWithoutADevice() {
        CudaSync1WayBenchmark b = new CudaSync1WayBenchmark();
        b.side = Side.CPU_POOL;
        b.start();
        try {
            assertEquals(CudaSync1WayBenchmark.ATOMICS, b.sync1Way());
        } finally {
            b.stop();
        }
    }
}
