package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code HSA4J_CUDA_ISOLATION=process}: host-side queues run in a device server from the start, so
 * a faulting kernel kills only the server; this JVM's CUDA stays healthy (this class needs no place
 * at the end of the run).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CudaIsolationGpuTest {
    private static HsaRuntime runtime;
    private static CudaAgent agent;
    private static CudaModule kernels;
    private static CudaKernel vectorAdd;
    private static CudaKernel fault;

    @BeforeAll
    static void open() {
        Gpu.assumeDevice();
        runtime = HsaRuntime.init(RuntimeConfig.builder().build(), List.of());
        agent = CudaAgent.open(runtime, Gpu.platform(), 0, CudaIsolation.PROCESS);
        kernels = agent.load(CudaCodeObject.fromResource(CudaCodeObjectTest.KERNELS_PTX));
        vectorAdd = kernels.kernel("hsa4j_vector_add");
        fault = kernels.kernel("hsa4j_fault");
    }

    @AfterAll
    static void close() {
        if (agent != null) {
            agent.close();
        }
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test
    @Order(1)
    void aQueueRunsItsKernelsInADeviceServerFromTheStart() {
        Queue q = agent.createQueue(64, QueueType.SINGLE, null);
        try {
            assertTrue(agent.servesThroughServer());
            assertTrue(agent.serverPid() > 0);
            assertEquals(0, agent.recoveries(), "a first server is no recovery");
            GpuFixture.vectorAdd(runtime, agent, vectorAdd, q, 10_000);
        } finally {
            q.destroy();
        }
    }

    @Test
    @Order(2)
    void aFaultKillsOnlyTheServerAndThisProcessKeepsItsContext() throws Exception {
        Queue first = agent.createQueue(64, QueueType.SINGLE, null);
        long before = agent.serverPid();
        first.destroy();
        CompletableFuture<HsaException> error = new CompletableFuture<>();
        Queue bad = agent.createQueue(64, QueueType.SINGLE, (e, q) -> error.complete(e));
        Signal faulted = runtime.createSignal(1);
        GpuFixture.dispatch(bad, fault, 1, 1, GpuFixture.kernarg(runtime, new long[] {0x10}), faulted, false);
        HsaException e = error.get(60, TimeUnit.SECONDS);
        assertEquals(HsaStatus.MEMORY_FAULT, e.status(), e.getMessage());
        assertTrue(e.getMessage().contains("CUDA_ERROR_ILLEGAL_ADDRESS"), e.getMessage());
        bad.destroy();

        assertFalse(agent.isLost());
        // this process's context never ran the kernel: looking up a new kernel still works here
        kernels.kernel("hsa4j_count");
        Queue again = agent.createQueue(64, QueueType.SINGLE, null);
        try {
            assertNotEquals(before, agent.serverPid());
            assertEquals(1, agent.recoveries());
            GpuFixture.vectorAdd(runtime, agent, vectorAdd, again, 4096);
        } finally {
            again.destroy();
        }
    }

    @Test
    @Order(4)
    void everyEmptyDispatchThroughTheServerCompletesAndItsRoundTripIsPrintedBesideInProcess() {
        String server = roundTrips(runtime, agent, kernels.kernel("hsa4j_empty"));
        String stages = agent.currentServer().stages().toString();
        // the baseline in the same run: an in-process agent of a runtime of its own
        String inProcess;
        try (HsaRuntime other = HsaRuntime.init(RuntimeConfig.builder().build(), List.of())) {
            CudaAgent direct = CudaAgent.open(other, Gpu.platform(), 0, CudaIsolation.IN_PROCESS);
            try {
                inProcess = roundTrips(other, direct, direct.load(CudaCodeObject.fromResource(CudaCodeObjectTest.KERNELS_PTX))
                        .kernel("hsa4j_empty"));
            } finally {
                direct.close();
            }
        }
        System.err.println("CudaIsolationGpuTest: empty dispatch round trip, through the device server: " + server
                + "; in-process: " + inProcess);
        System.err.println("CudaIsolationGpuTest: the server's stages over the timed rounds: " + stages);
    }

    /** 3000 empty dispatches, one at a time, each awaited: every one completes; the timing of the last 2000 (both JVMs warm). */
    private static String roundTrips(HsaRuntime rt, CudaAgent on, CudaKernel empty) {
        Queue q = on.createQueue(64, QueueType.SINGLE, null);
        try {
            int rounds = 3000;
            int warm = 1000;
            long[] nanos = new long[rounds];
            Signal done = rt.createSignal(0);
            for (int i = 0; i < rounds; i++) {
                if (i == warm && on.currentServer() != null) {
                    on.currentServer().stages().reset();
                }
                done.storeScrelease(1);
                long t0 = System.nanoTime();
                GpuFixture.dispatch(q, empty, 1, 1, 0, done, false);
                GpuFixture.awaitZero(done);
                nanos[i] = System.nanoTime() - t0;
            }
            long[] timed = java.util.Arrays.copyOfRange(nanos, warm, rounds);
            java.util.Arrays.sort(timed);
            return String.format("median %.1f us, p90 %.1f us", timed[timed.length / 2] / 1e3,
                    timed[timed.length * 9 / 10] / 1e3);
        } finally {
            q.destroy();
        }
    }

    @Test
    @Order(3)
    void buffersOfThisProcessesContextAreRefusedBecauseTheServerCannotReachThem() {
        HsaException e = assertThrows(HsaException.class, () -> agent.allocateDevice(4096));
        assertEquals(HsaStatus.INVALID_AGENT, e.status(), e.getMessage());
        assertTrue(e.getMessage().contains(CudaIsolation.ENV), e.getMessage());
    }
}
