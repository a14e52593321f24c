package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.hsa4j.runtime.HsaRuntime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a device server in a child JVM rests on (issue 18 part 5): memory of a memfd mapped
 * MAP_SHARED can be registered with CUDA and written by a kernel, and a child JVM that maps the same
 * memfd at the same address reads the parent's bytes and, with a CUDA context of its own, has a
 * kernel write bytes the parent reads.
 */
class CudaSharedArenaGpuTest {
    private static final long BYTES = 4L << 20;
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
    void aKernelWritesMemfdSharedMemoryRegisteredWithCuda() {
        int fd = SharedMemoryFile.create("hsa4j-test", BYTES);
        long address = SharedMemoryFile.map(fd, BYTES, SharedMemoryFile.PROT_READ_WRITE);
        CudaSvmRegistrar registrar = new CudaSvmRegistrar(gpu.agent.context());
        try (Arena a = Arena.ofConfined(); CudaStream stream = CudaStream.open(gpu.agent)) {
            registrar.mapped(address, BYTES);   // also checks the device address is the host address
            MemorySegment kernarg = a.allocate(16, 8);
            kernarg.set(JAVA_LONG, 0, address);
            kernarg.set(JAVA_INT, 8, 64);
            stream.launch(gpu.kernels.kernel("hsa4j_mark"), 1, 64, kernarg);
            stream.synchronize();
            MemorySegment host = MemorySegment.ofAddress(address).reinterpret(BYTES);
            assertEquals(64, host.getAtIndex(JAVA_INT, 0));
            assertEquals(64, host.getAtIndex(JAVA_INT, 63));
        } finally {
            registrar.unmapping(address, BYTES);
            SharedMemoryFile.munmap(address, BYTES);
            SharedMemoryFile.close(fd);
        }
    }

    @Test
    void aChildJvmMapsTheMemfdAtTheSameAddressAndItsKernelWritesBytesTheParentReads() throws Exception {
        int fd = SharedMemoryFile.create("hsa4j-test", BYTES);
        long address = SharedMemoryFile.map(fd, BYTES, SharedMemoryFile.PROT_READ_WRITE);
        try {
            MemorySegment host = MemorySegment.ofAddress(address).reinterpret(BYTES);
            int word = 0x5EED_0001;
            host.set(JAVA_INT, 0, word);
            String[] result = runChild(ProcessHandle.current().pid(), fd, address, BYTES, word);
            assertEquals("0", result[0], result[1]);
            assertEquals(word + 1, host.get(JAVA_INT, 8), "the child's host write");
            assertEquals(64, host.getAtIndex(JAVA_INT, SharedArenaChild.MARKS / 4), result[1]);
            assertEquals(64, host.getAtIndex(JAVA_INT, SharedArenaChild.MARKS / 4 + 63), result[1]);
            assertTrue(result[1].contains("child's kernel ran"), result[1]);
        } finally {
            SharedMemoryFile.munmap(address, BYTES);
            SharedMemoryFile.close(fd);
        }
    }

    /** Runs {@link SharedArenaChild} (bounded: 120 s); its exit status (null if none) and its output. */
    static String[] runChild(long pid, int fd, long address, long bytes, int word) throws Exception {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        ProcessBuilder pb = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp", classPath(),
                SharedArenaChild.class.getName(), Long.toString(pid), Integer.toString(fd), Long.toHexString(address),
                Long.toString(bytes), Integer.toString(word)).redirectErrorStream(true);
        Process p = pb.start();
        CompletableFuture<String> text = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                return "cannot read the child's output: " + e;
            }
        });
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new String[] {null, "the child did not finish in 120 s"};
        }
        return new String[] {Integer.toString(p.exitValue()), text.get(10, TimeUnit.SECONDS)};
    }

    /** This class's, hsa-cuda's and hsa-runtime's code sources, then the JVM's class path. */
    static String classPath() {
        StringBuilder cp = new StringBuilder();
        for (Class<?> c : List.of(SharedArenaChild.class, CudaAgent.class, HsaRuntime.class)) {
            try {
                cp.append(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI())).append(File.pathSeparatorChar);
            } catch (Exception e) {
                // no code source to name: the JVM's class path must hold it
            }
        }
        return cp.append(System.getProperty("java.class.path")).toString();
    }
}
