package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A faulting kernel (part 5): MEMORY_FAULT on its queue; then the agent serves new queues in a new
 * context or, where CUDA refuses one (sticky errors, as on driver 580), through a device server (a
 * child JVM on the same SVM) that runs kernel objects loaded before the fault; a fault there is
 * recovered the same way; CPU agents go on. Runs last (the fault poisons this JVM's CUDA).
 */
@Order(Integer.MAX_VALUE)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CudaFaultTest {
    private static GpuFixture gpu;
    /** Kernel objects looked up before any fault: after it they must keep working. */
    private static CudaKernel vectorAdd;
    private static CudaKernel fault;

    @BeforeAll
    static void open() {
        Gpu.assumeDevice();
        gpu = new GpuFixture();
        vectorAdd = gpu.kernels.kernel("hsa4j_vector_add");
        fault = gpu.kernels.kernel("hsa4j_fault");
    }

    @AfterAll
    static void close() {
        if (gpu != null) {
            gpu.close();
        }
    }

    @Test
    @Order(1)
    void aFaultingKernelIsAMemoryFaultAndTheAgentThenServesOrRefusesClearly() throws Exception {
        MemorySegment keptAcrossTheFault = gpu.agent.allocatePinned(64).hostSegment();
        CompletableFuture<HsaException> error = new CompletableFuture<>();
        Queue bad = gpu.agent.createQueue(64, QueueType.SINGLE, (e, q) -> error.complete(e));
        Signal faulted = gpu.runtime.createSignal(1);
        GpuFixture.dispatch(bad, fault, 1, 1, gpu.kernarg(new long[] {0x10}), faulted, false);
        HsaException e = error.get(60, TimeUnit.SECONDS);
        assertEquals(HsaStatus.MEMORY_FAULT, e.status(), e.getMessage());
        assertTrue(e.getMessage().contains("CUDA_ERROR_ILLEGAL_ADDRESS"), e.getMessage());
        assertEquals(HsaStatus.MEMORY_FAULT, assertThrows(HsaException.class, () -> GpuFixture.awaitZero(faulted)).status());
        bad.destroy(); // joins the queue's processor, which has tried to recreate the context by then
        // the reset that was tried freed every allocation of the old context: a kept host segment
        // must throw, not read freed memory (which could crash the JVM)
        assertThrows(IllegalStateException.class, () -> keptAcrossTheFault.get(JAVA_INT, 0));

        if (gpu.agent.isLost()) {
            // lost is right only where no device server can take over: the SVM is not a shared memfd
            HsaException why = assertThrows(HsaException.class, () -> gpu.agent.createQueue(64, QueueType.SINGLE, null));
            System.err.println("CudaFaultTest: after the fault the agent is LOST: " + why.getMessage());
            assertTrue(gpu.runtime.memory().svmShare().isEmpty(), "lost although the SVM is shared and a device "
                    + "server could take over: " + why.getMessage());
            HsaException refused = assertThrows(HsaException.class,
                    () -> gpu.agent.createQueue(64, QueueType.SINGLE, null));
            assertEquals(HsaStatus.FATAL, refused.status(), refused.getMessage());
            assertTrue(refused.getMessage().contains("sticky error"), refused.getMessage());
        } else if (gpu.agent.servesThroughServer()) {
            // a device server took over: a NEW queue runs a kernel object loaded before the fault
            Queue good = gpu.agent.createQueue(64, QueueType.SINGLE, null);
            System.err.println("CudaFaultTest: after the fault the agent serves new queues through device server pid "
                    + gpu.agent.serverPid());
            try {
                assertTrue(gpu.agent.serverPid() > 0);
                assertEquals(1, gpu.agent.recoveries());
                vectorAdd(good, 1 << 16);
            } finally {
                good.destroy();
            }
            HsaException refused = assertThrows(HsaException.class, () -> gpu.agent.allocatePinned(64));
            assertEquals(HsaStatus.INVALID_AGENT, refused.status(), refused.getMessage());
            assertTrue(refused.getMessage().contains("device server"), refused.getMessage());
            HsaException lookup = assertThrows(HsaException.class, () -> gpu.kernels.kernel("hsa4j_count"));
            assertEquals(HsaStatus.INVALID_AGENT, lookup.status(), lookup.getMessage());
        } else {
            System.err.println("CudaFaultTest: after the fault CUDA recreated the context in-process (recoveries "
                    + gpu.agent.recoveries() + "): the device server is not needed on this driver");
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

    @Test
    @Order(2)
    void aFaultInTheDeviceServerIsAMemoryFaultAndTheNextQueueGetsANewServer() throws Exception {
        Assumptions.assumeTrue(gpu.agent.servesThroughServer(), "the in-process context was recreated: no device server");
        System.err.println("CudaFaultTest: a fault inside device server pid " + gpu.agent.serverPid());
        Queue first = gpu.agent.createQueue(64, QueueType.SINGLE, null);
        long firstServer = gpu.agent.serverPid();
        try {
            vectorAdd(first, 1000);   // the server serves before it faults
        } finally {
            first.destroy();
        }
        CompletableFuture<HsaException> error = new CompletableFuture<>();
        Queue bad = gpu.agent.createQueue(64, QueueType.SINGLE, (e, q) -> error.complete(e));
        Signal faulted = gpu.runtime.createSignal(1);
        GpuFixture.dispatch(bad, fault, 1, 1, gpu.kernarg(new long[] {0x10}), faulted, false);
        HsaException e = error.get(60, TimeUnit.SECONDS);
        assertEquals(HsaStatus.MEMORY_FAULT, e.status(), e.getMessage());
        assertTrue(e.getMessage().contains("CUDA_ERROR_ILLEGAL_ADDRESS"), e.getMessage());
        assertEquals(HsaStatus.MEMORY_FAULT, assertThrows(HsaException.class, () -> GpuFixture.awaitZero(faulted)).status());
        bad.destroy();

        Queue again = gpu.agent.createQueue(64, QueueType.SINGLE, null);
        try {
            assertTrue(gpu.agent.serverPid() > 0);
            assertTrue(gpu.agent.serverPid() != firstServer, "a new server after the fault");
            assertEquals(2, gpu.agent.recoveries());
            vectorAdd(again, 4096);
        } finally {
            again.destroy();
        }
    }

    private static void vectorAdd(Queue q, int n) {
        GpuFixture.vectorAdd(gpu.runtime, gpu.agent, vectorAdd, q, n);
    }

    @Test
    @Order(3)
    void theCpuPoolAgentsKeepServingAfterTheGpuFaulted() throws Exception {
        // runs after the fault test (same class, one fixture): the CUDA fault must not touch them
        HsaRuntime rt = gpu.runtime;
        AtomicInteger ran = new AtomicInteger();
        long kernel = rt.createExecutable().define("count", KernelDescriptor.EMPTY, wi -> ran.incrementAndGet())
                .freeze().symbol("count").kernelObject();
        Queue q = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        try {
            Signal done = rt.createSignal(1);
            q.launch(kernel).grid(256).workgroup(64).completion(done).dispatch();
            GpuFixture.awaitZero(done);
            assertEquals(256, ran.get());
        } finally {
            q.destroy();
        }
    }
}
