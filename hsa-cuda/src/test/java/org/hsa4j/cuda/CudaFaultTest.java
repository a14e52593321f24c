package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaStatus;
import org.hsa4j.signal.Signal;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** A faulting kernel (part 5): MEMORY_FAULT on its queue, a new context, new queues served. Runs last. */
@Order(Integer.MAX_VALUE)
class CudaFaultTest {
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
    void aFaultingKernelIsAMemoryFaultAndTheAgentServesANewQueueAfterIt() throws Exception {
        CompletableFuture<HsaException> error = new CompletableFuture<>();
        Queue bad = gpu.agent.createQueue(64, QueueType.SINGLE, (e, q) -> error.complete(e));
        Signal faulted = gpu.runtime.createSignal(1);
        GpuFixture.dispatch(bad, gpu.kernels.kernel("hsa4j_fault"), 1, 1, gpu.kernarg(new long[] {0x10}), faulted, false);
        HsaException e = error.get(60, TimeUnit.SECONDS);
        assertEquals(HsaStatus.MEMORY_FAULT, e.status(), e.getMessage());
        assertTrue(e.getMessage().contains("CUDA_ERROR_ILLEGAL_ADDRESS"), e.getMessage());
        assertEquals(HsaStatus.MEMORY_FAULT, assertThrows(HsaException.class, () -> GpuFixture.awaitZero(faulted)).status());
        bad.destroy();
        assertEquals(1, gpu.agent.recoveries());

        Queue good = gpu.agent.createQueue(64, QueueType.SINGLE, null);
        try (CudaBuffer out = gpu.agent.allocatePinned(4L * 64)) {
            Signal done = gpu.runtime.createSignal(1);
            GpuFixture.dispatch(good, gpu.kernels.kernel("hsa4j_mark"), 64, 64,
                    gpu.kernarg(new long[] {out.address()}, 64), done, false);
            GpuFixture.awaitZero(done);
            assertEquals(64, out.hostSegment().getAtIndex(JAVA_INT, 63));
        } finally {
            good.destroy();
        }
    }
}
