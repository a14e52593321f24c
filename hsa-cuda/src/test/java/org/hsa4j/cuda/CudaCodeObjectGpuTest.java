package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Loading code objects into the CUDA agent and compiling CUDA C with NVRTC (part 3), on a GPU. */
class CudaCodeObjectGpuTest {
    private static GpuFixture gpu;

    @BeforeAll
    static void open() {
        Gpu.assumeDevice();
        gpu = new GpuFixture();
    }

    @AfterAll
    static void close() {
        if (gpu != null) {
            gpu.close();
        }
    }

    @Test
    void theShippedPtxLoadsAndItsKernelsAreFoundBySymbol() {
        CudaKernel k = gpu.kernels.kernel("hsa4j_vector_add");
        assertNotEquals(0, k.kernelObject());
        assertEquals(28, k.kernargSegmentSize());
        assertSame(k, gpu.agent.kernelObject(k.kernelObject()));
    }

    @Test
    void theDriversParameterLayoutMatchesThePtxs() {
        CudaKernel k = gpu.kernels.kernel("hsa4j_pingpong");
        KernargLayout fromPtx = gpu.kernels.codeObject().ptxEntries().get("hsa4j_pingpong");
        assertArrayEquals(fromPtx.offsets(), k.kernargs().offsets());
        assertArrayEquals(fromPtx.sizes(), k.kernargs().sizes());
        assertEquals(24, k.kernargSegmentSize());
    }

    @Test
    void anUnknownSymbolIsAnInvalidSymbolName() {
        HsaException e = assertThrows(HsaException.class, () -> gpu.kernels.kernel("no_such_kernel"));
        assertEquals(HsaStatus.INVALID_SYMBOL_NAME, e.status());
        assertTrue(e.getMessage().contains("hsa4j_vector_add"), e.getMessage());
    }

    @Test
    void badPtxIsAnInvalidCodeObjectWithTheJitLog() {
        String ptx = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry broken()\n{\n\tnot_an_instruction %r1;\n}\n";
        CudaCodeObject c = CudaCodeObject.fromBytes("broken.ptx", ptx.getBytes(StandardCharsets.UTF_8));
        HsaException e = assertThrows(HsaException.class, () -> gpu.agent.load(c));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, e.status());
        assertTrue(e.getMessage().contains("CUDA_ERROR_INVALID_PTX") && e.getMessage().contains("line"), e.getMessage());
    }

    @Test
    void cudaCSourceCompilesWithNvrtcIntoACubin() {
        Gpu.assumeNvrtc();
        CudaCodeObject c = gpu.agent.compileToCodeObject(GpuFixture.kernelSource(), "hsa4j_kernels.cu");
        assertEquals(CudaCodeObject.Format.CUBIN, c.format());
        CudaKernel k = gpu.agent.load(c).kernel("hsa4j_count");
        assertEquals(12, k.kernargSegmentSize());
    }

    @Test
    void sourceThatDoesNotCompileIsAnInvalidCodeObjectWithTheCompilerLog() {
        Gpu.assumeNvrtc();
        HsaException e = assertThrows(HsaException.class, () -> gpu.agent.compile(
                "extern \"C\" __global__ void k() { undeclared_thing = 1; }", "bad.cu"));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, e.status());
        assertTrue(e.getMessage().contains("undeclared_thing"), e.getMessage());
    }
}
