package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.SvmShare;
import org.hsa4j.status.HsaException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A device server on its own (no fault): it registers the runtime's SVM, loads a kept code object,
 * runs a kernel whose stores the parent reads in SVM, and ends boundedly when asked or when its
 * channel ends as a dying parent's would.
 */
class CudaDeviceServerGpuTest {
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

    private static CudaDeviceClient start(CountDownLatch died) {
        gpu.agent.svmPool().allocate(64);   // the arena exists
        SvmShare share = gpu.runtime.memory().svmShare().orElseThrow();
        return CudaDeviceClient.start(share, 0, 1, "test", c -> died.countDown());
    }

    @Test
    void aKernelRunInTheServerWritesSvmTheParentReads() throws Exception {
        CountDownLatch died = new CountDownLatch(1);
        CudaDeviceClient server = start(died);
        long out = gpu.agent.svmPool().allocate(4L * 256);
        try {
            gpu.runtime.memory().addRegistrar(server);
            long function = server.kernels().function(gpu.kernels.codeObject(), "hsa4j_mark");
            long stream = server.call(new CudaServerProtocol.Frame(CudaServerProtocol.STREAM, 0)).at(0);
            // exactly the kernel's parameter bytes, as the queue processors pass them
            int size = (int) gpu.kernels.kernel("hsa4j_mark").kernargSegmentSize();
            byte[] kernarg = java.util.Arrays.copyOf(ByteBuffer.allocate(16).order(ByteOrder.nativeOrder()).putLong(out)
                    .putInt(256).array(), size);
            CompletableFuture<HsaException> done = new CompletableFuture<>();
            server.launch(new long[] {stream, function, 1, 1, 1, 256, 1, 1, 0, 1}, kernarg, done::complete);
            assertNull(done.get(60, TimeUnit.SECONDS));
            MemorySegment s = gpu.runtime.cpuAgent().svm().segment(out, 4L * 256);
            assertEquals(256, s.getAtIndex(JAVA_INT, 0));
            assertEquals(256, s.getAtIndex(JAVA_INT, 255));
        } finally {
            gpu.runtime.memory().removeRegistrar(server);
            server.close();
            gpu.agent.svmPool().free(out);
        }
        assertTrue(died.await(30, TimeUnit.SECONDS));
        assertEquals(0, server.process().exitValue());
    }

    @Test
    void aServerWhoseChannelEndsAsAtItsParentsDeathExitsAndLaterRequestsFailAtOnce() throws Exception {
        CountDownLatch died = new CountDownLatch(1);
        CudaDeviceClient server = start(died);
        server.process().getOutputStream().close();
        assertTrue(server.process().waitFor(60, TimeUnit.SECONDS), "the server exits when its stdin ends");
        assertEquals(0, server.process().exitValue());
        assertTrue(died.await(30, TimeUnit.SECONDS));
        assertNotNull(server.dead());
        assertThrows(HsaException.class, () -> server.call(new CudaServerProtocol.Frame(CudaServerProtocol.STREAM, 0)));
        server.close();
    }
}
