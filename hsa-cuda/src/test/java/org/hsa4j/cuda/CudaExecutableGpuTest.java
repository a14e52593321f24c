package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.hsa4j.agent.Agent;
import org.hsa4j.kernel.CodeObjectReader;
import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.ExecutableSymbol;
import org.hsa4j.kernel.SymbolKind;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spec's code object path on the CUDA agent, on a GPU: {@code CodeObjectReader.fromFile/fromBytes}
 * -> {@code Executable.loadAgentCodeObject(agent, reader)} -> freeze -> symbol by name -> the kernel
 * object in an AQL packet of the agent's queue; symbol iteration, validation, and destroy unloading
 * the module.
 */
class CudaExecutableGpuTest {
    private static GpuFixture gpu;
    private static Agent agent;

    @TempDir
    Path dir;

    @BeforeAll
    static void open() {
        Gpu.assumeDevice();
        gpu = new GpuFixture();
        agent = gpu.agent.hsaAgent();
    }

    @AfterAll
    static void close() {
        if (gpu != null) {
            gpu.close();
        }
    }

    @Test
    void theCudaAgentsCodeObjectsLoadThroughItsOwnLoader() {
        assertInstanceOf(CudaCodeObjectLoader.class, agent.codeObjectLoader());
    }

    @Test
    void ptxReadFromAFileRunsVectorAddThroughAnAqlQueue() throws IOException {
        Path ptx = dir.resolve("hsa4j_kernels.ptx");
        Files.write(ptx, CudaCodeObjectReaderTest.resource(CudaCodeObjectTest.KERNELS_PTX));
        try (Executable exe = gpu.runtime.createExecutable()) {
            exe.loadAgentCodeObject(agent, CodeObjectReader.fromFile(ptx)).freeze();
            vectorAdd(exe.symbol("hsa4j_vector_add", agent).kernelObject());
        }
    }

    @Test
    void symbolIterationListsEveryPtxEntryWithItsKernargSize() {
        try (Executable exe = gpu.runtime.createExecutable()) {
            exe.loadAgentCodeObject(agent, CodeObjectReader.fromBytes(
                    CudaCodeObjectReaderTest.resource(CudaCodeObjectTest.KERNELS_PTX))).freeze();
            Map<String, ExecutableSymbol> symbols = exe.symbols().stream()
                    .collect(Collectors.toMap(ExecutableSymbol::name, s -> s));
            assertEquals(CudaCodeObject.fromResource(CudaCodeObjectTest.KERNELS_PTX).ptxEntryNames(),
                    exe.symbols().stream().map(ExecutableSymbol::name).toList());
            ExecutableSymbol add = symbols.get("hsa4j_vector_add");
            assertEquals(SymbolKind.KERNEL, add.kind());
            assertEquals(28, add.kernargSegmentSize());
            assertEquals(16, add.kernargSegmentAlignment());
            assertEquals(agent.index(), add.agentIndex());
            assertSame(gpu.agent.kernelObject(add.kernelObject()).agent(), agent);
            assertEquals(40, symbols.get("hsa4j_sync_2way").kernargSegmentSize());
            assertEquals(List.of(), exe.validate());
        }
    }

    @Test
    void aCubinNvccBuiltLoadsFromBytesAndRunsVectorAdd() {
        try (Executable exe = gpu.runtime.createExecutable()) {
            exe.loadAgentCodeObject(agent, CodeObjectReader.fromBytes(
                    CudaCodeObjectReaderTest.resource(CudaCodeObjectReaderTest.CUBIN))).freeze();
            assertEquals(List.of("hsa4j_reverse_block", "hsa4j_vector_add"),
                    exe.symbols().stream().map(ExecutableSymbol::name).sorted().toList());
            ExecutableSymbol reverse = exe.symbol("hsa4j_reverse_block", agent);
            assertEquals(1024, reverse.groupSegmentSize(), "__shared__ float tile[256]");
            assertEquals(12, reverse.kernargSegmentSize());
            vectorAdd(exe.symbol("hsa4j_vector_add", agent).kernelObject());
        }
    }

    @Test
    void aFatBinaryNvccBuiltLoadsFromBytesAndRunsVectorAdd() {
        try (Executable exe = gpu.runtime.createExecutable()) {
            exe.loadAgentCodeObject(agent, CodeObjectReader.fromBytes(
                    CudaCodeObjectReaderTest.resource(CudaCodeObjectReaderTest.FATBIN))).freeze();
            vectorAdd(exe.symbol("hsa4j_vector_add").kernelObject());
        }
    }

    @Test
    void destroyingTheExecutableUnloadsTheModuleAndItsKernelObjects() {
        Executable exe = gpu.runtime.createExecutable();
        exe.loadAgentCodeObject(agent, CodeObjectReader.fromBytes(
                CudaCodeObjectReaderTest.resource(CudaCodeObjectReaderTest.CUBIN))).freeze();
        long handle = exe.symbol("hsa4j_vector_add", agent).kernelObject();
        assertTrue(gpu.agent.kernelObject(handle) != null);
        exe.close();
        assertNull(gpu.agent.kernelObject(handle));
    }

    @Test
    void theCudaAgentRefusesAClassFileAsIncompatible() throws IOException {
        byte[] classFile;
        try (InputStream in = getClass().getResourceAsStream("CudaExecutableGpuTest.class")) {
            classFile = in.readAllBytes();
        }
        try (Executable exe = gpu.runtime.createExecutable()) {
            HsaException e = assertThrows(HsaException.class,
                    () -> exe.loadAgentCodeObject(agent, CodeObjectReader.fromBytes(classFile)));
            assertEquals(HsaStatus.INCOMPATIBLE_ARGUMENTS, e.status());
        }
    }

    @Test
    void ptxTheDriverRejectsIsAnInvalidCodeObjectAndDefinesNothing() {
        String ptx = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry broken()\n{\n\tnot_an_instruction %r1;\n}\n";
        try (Executable exe = gpu.runtime.createExecutable()) {
            HsaException e = assertThrows(HsaException.class,
                    () -> exe.loadAgentCodeObject(agent, CodeObjectReader.fromBytes(ptx.getBytes(java.nio.charset.StandardCharsets.US_ASCII))));
            assertEquals(HsaStatus.INVALID_CODE_OBJECT, e.status());
            assertTrue(exe.freeze().symbols().isEmpty());
        }
    }

    /** c = a + b over 1000 floats through a queue of the agent, dispatching {@code kernelObject}. */
    private static void vectorAdd(long kernelObject) {
        int n = 1000;
        Queue q = agent.createQueue(64, QueueType.SINGLE, null);
        try (CudaBuffer a = gpu.agent.allocatePinned(4L * n); CudaBuffer b = gpu.agent.allocatePinned(4L * n);
             CudaBuffer c = gpu.agent.allocatePinned(4L * n)) {
            for (int i = 0; i < n; i++) {
                a.hostSegment().setAtIndex(JAVA_FLOAT, i, i);
                b.hostSegment().setAtIndex(JAVA_FLOAT, i, 2 * i);
            }
            Signal done = gpu.runtime.createSignal(1);
            q.launch(kernelObject).grid(n).workgroup(256)
                    .kernarg(gpu.kernarg(new long[] {a.address(), b.address(), c.address()}, n)).completion(done)
                    .dispatch();
            GpuFixture.awaitZero(done);
            for (int i = 0; i < n; i++) {
                assertEquals(3f * i, c.hostSegment().getAtIndex(JAVA_FLOAT, i), "c[" + i + "]");
            }
        } finally {
            q.destroy();
        }
    }
}
