package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.hsa4j.kernel.CodeObjectFormat;
import org.hsa4j.kernel.CodeObjectReader;
import org.hsa4j.kernel.Executable;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CUDA code objects through the spec's reader without a GPU: the shipped PTX and the cubin and fat
 * binary nvcc built are told by their bytes, truncated ones are refused when read, a worker-pool
 * agent refuses them and the CUDA agent's loader refuses compiled Java, both INCOMPATIBLE_ARGUMENTS.
 */
class CudaCodeObjectReaderTest {
    static final String CUBIN = "org/hsa4j/cuda/kernels/hsa4j_codeobject.sm_90.cubin";
    static final String FATBIN = "org/hsa4j/cuda/kernels/hsa4j_codeobject.fatbin";
    static final String[] SHIPPED_PTX = {CudaCodeObjectTest.KERNELS_PTX, "org/hsa4j/cuda/kernels/hsa4j_resident.ptx",
        "org/hsa4j/cuda/kernels/hsa4j_rpc_kernels.ptx", "org/hsa4j/cuda/kernels/hsa4j_litmus.ptx"};

    @TempDir
    Path dir;

    static byte[] resource(String name) {
        try (InputStream in = CudaCodeObjectReaderTest.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("no resource " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void everyShippedPtxFileIsReadAsPtx() throws IOException {
        for (String ptx : SHIPPED_PTX) {
            Path f = dir.resolve(Path.of(ptx).getFileName());
            Files.write(f, resource(ptx));
            assertEquals(CodeObjectFormat.PTX, CodeObjectReader.fromFile(f).format(), ptx);
        }
    }

    @Test
    void theCubinNvccBuiltIsACubin() {
        assertEquals(CodeObjectFormat.CUBIN, CodeObjectReader.fromBytes(resource(CUBIN)).format());
    }

    @Test
    void theFatBinaryNvccBuiltIsAFatbin() {
        assertEquals(CodeObjectFormat.FATBIN, CodeObjectReader.fromBytes(resource(FATBIN)).format());
    }

    @Test
    void aTruncatedCubinIsAnInvalidCodeObjectAtReadTime() {
        byte[] whole = resource(CUBIN);
        assertRefused(Arrays.copyOf(whole, whole.length / 2));
    }

    @Test
    void aTruncatedFatBinaryIsAnInvalidCodeObjectAtReadTime() {
        byte[] whole = resource(FATBIN);
        assertRefused(Arrays.copyOf(whole, whole.length - 100));
    }

    @Test
    void aTruncatedPtxFileIsAnInvalidCodeObjectAtReadTime() {
        byte[] whole = resource(CudaCodeObjectTest.KERNELS_PTX);
        int insideAKernel = new String(whole, java.nio.charset.StandardCharsets.US_ASCII).indexOf("ret;", whole.length / 2);
        assertRefused(Arrays.copyOf(whole, insideAKernel));
    }

    @Test
    void aWorkerPoolAgentRefusesTheShippedPtxAsIncompatible() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build())) {
            Executable exe = rt.createExecutable();
            HsaException e = assertThrows(HsaException.class, () -> exe.loadAgentCodeObject(rt.gpuAgent(),
                    CodeObjectReader.fromBytes(resource(CudaCodeObjectTest.KERNELS_PTX))));
            assertEquals(HsaStatus.INCOMPATIBLE_ARGUMENTS, e.status());
        }
    }

    @Test
    void theCudaLoaderRefusesAClassFileAsIncompatibleBeforeTouchingTheDevice() throws IOException {
        byte[] classFile;
        try (InputStream in = CudaCodeObjectReaderTest.class.getResourceAsStream("CudaCodeObjectReaderTest.class")) {
            classFile = in.readAllBytes();
        }
        // no agent: the refusal must come before the loader reaches for one
        HsaException e = assertThrows(HsaException.class,
                () -> new CudaCodeObjectLoader(null).load(null, CodeObjectReader.fromBytes(classFile), 1));
        assertEquals(HsaStatus.INCOMPATIBLE_ARGUMENTS, e.status());
        assertTrue(e.getMessage().contains("CLASS_FILE"), e.getMessage());
    }

    @Test
    void theKernargAlignmentIsSixteenForPointersAndInts() {
        assertEquals(16, CudaCodeObject.fromResource(CudaCodeObjectTest.KERNELS_PTX).ptxEntries()
                .get("hsa4j_vector_add").segmentAlignment());
    }

    @Test
    void theKernargAlignmentFollowsAThirtyTwoByteAlignedParameter() {
        KernargLayout l = KernargLayout.of(new long[] {4, 64}, new long[] {4, 32});
        assertEquals(32, l.offsets()[1]);
        assertEquals(32, l.segmentAlignment());
    }

    private static void assertRefused(byte[] bytes) {
        HsaException e = assertThrows(HsaException.class, () -> CodeObjectReader.fromBytes(bytes));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, e.status());
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    }
}
