package org.hsa4j.amp;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.NativeKernel;
import org.hsa4j.agent.spi.QueueBackend;
import org.hsa4j.kernel.KernargWriter;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueErrorCallback;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.AgentProvider;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.runtime.spi.AgentFactory;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Cross-agent chaining with native kernels, without a GPU: the second CPU-pool GPU agent stands in
 * for the CUDA agent, its "native" kernels are code objects of its own (an executable's kernel
 * objects reading their kernarg segment), so the layer's side is what is tested: the packet it
 * writes (kernel object, grid, workgroup, kernarg bytes), and k1 there -> k2 (a Java kernel) on
 * another agent -> k3 there, chained by barrier packets and by thenCompose, on shared buffers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NativeKernelChainTest {
    private static final int N = 1000;

    private HsaRuntime rt;
    private Amp amp;
    private Agent gpu;
    private AcceleratorView gpuView;
    private AcceleratorView cpuView;
    private long a;
    private long b;
    private long c;

    /** A kernel object of {@code agent} with a kernarg segment of {@code bytes}, as hsa-cuda's CudaKernel is. */
    record Stand(long kernelObject, Agent agent, long kernargSegmentSize, String name) implements NativeKernel {
    }

    private NativeKernel iota;
    private NativeKernel addOne;

    @BeforeEach
    void open() {
        rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(2).computeUnits(2).build());
        amp = Amp.on(rt);
        gpu = rt.gpuAgents().get(1);
        gpuView = amp.accelerator(gpu).createView();
        cpuView = amp.accelerator(rt.gpuAgents().get(0)).createView();
        a = zeroed();
        b = zeroed();
        c = zeroed();
        // the kernels of hsa4j_kernels.cu, as code the stand-in agent runs: (int* a, unsigned n) and
        // (const int* b, int* c, unsigned n), each checking its global id against n
        var exe = rt.createExecutable()
                .define("iota", KernelDescriptor.withKernarg(16), wi -> {
                    long i = wi.globalId(0);
                    if (i < wi.kernarg().get(JAVA_INT, 8)) {
                        wi.svm().setInt(wi.kernarg().get(JAVA_LONG, 0) + 4 * i, (int) i);
                    }
                })
                .define("add_one", KernelDescriptor.withKernarg(24), wi -> {
                    long i = wi.globalId(0);
                    if (i < wi.kernarg().get(JAVA_INT, 16)) {
                        int v = wi.svm().getInt(wi.kernarg().get(JAVA_LONG, 0) + 4 * i);
                        wi.svm().setInt(wi.kernarg().get(JAVA_LONG, 8) + 4 * i, v + 1);
                    }
                })
                .freeze();
        iota = new Stand(exe.symbol("iota").kernelObject(), gpu, 16, "iota");
        addOne = new Stand(exe.symbol("add_one").kernelObject(), gpu, 24, "add_one");
    }

    @AfterEach
    void close() {
        amp.close();
        rt.close();
    }

    private long zeroed() {
        long address = rt.hostMalloc(4L * N);
        rt.svm().segment(address, 4L * N).fill((byte) 0);
        return address;
    }

    private CompletionFuture k1() {
        return gpuView.parallelForEach(iota, new Extent(N), 256, KernargWriter.slots(new long[] {a}, N));
    }

    private CompletionFuture k2(CompletionFuture after) {
        // the Java kernel reaches the shared buffers through host segments, as the GPU example's does
        // with its pinned CUDA buffers
        java.lang.foreign.MemorySegment as = rt.svm().segment(a, 4L * N);
        java.lang.foreign.MemorySegment bs = rt.svm().segment(b, 4L * N);
        IndexKernel twice = idx -> bs.setAtIndex(JAVA_INT, idx.get(0), 2 * as.getAtIndex(JAVA_INT, idx.get(0)));
        return after == null ? cpuView.parallelForEach(new Extent(N), twice)
                : cpuView.parallelForEachAfter(after, new Extent(N), twice);
    }

    private CompletionFuture k3(CompletionFuture after) {
        KernargWriter args = KernargWriter.slots(new long[] {b, c}, N);
        return after == null ? gpuView.parallelForEach(addOne, new Extent(N), 256, args)
                : gpuView.parallelForEachAfter(after, addOne, new Extent(N), 256, args);
    }

    private void assertChained() {
        for (int i = 0; i < N; i++) {
            assertEquals(2 * i + 1, rt.svm().segment(c, 4L * N).getAtIndex(JAVA_INT, i), "c[" + i + "]");
        }
    }

    @Test
    void k1ThenK2OnAnotherAgentThenK3ChainByBarrierPacketsQueuedAtOnce() {
        CompletionFuture f1 = k1();
        CompletionFuture f2 = k2(f1);
        CompletionFuture f3 = k3(f2);
        assertTrue(f3.waitFor(30, TimeUnit.SECONDS));
        f3.get();
        assertChained();
    }

    @Test
    void k1ThenK2ThenK3ChainByThenCompose() {
        CompletionFuture chain = k1().thenCompose(() -> k2(null)).thenCompose(() -> k3(null));
        assertTrue(chain.waitFor(30, TimeUnit.SECONDS));
        chain.get();
        assertChained();
    }

    @Test
    void theDispatchPacketCarriesTheGridAPartialLastWorkgroupAndTheKernargBytes() {
        // 1000 work-items in workgroups of 256: the last one is partial, and every id below 1000 ran once
        k1().get();
        for (int i = 0; i < N; i++) {
            assertEquals(i, rt.svm().segment(a, 4L * N).getAtIndex(JAVA_INT, i));
        }
    }

    @Test
    void aFailedNativeKernelFailsTheChainBehindIt() {
        NativeKernel unknown = new Stand(0xDEADL, gpu, 16, "unknown");
        CompletionFuture f1 = gpuView.parallelForEach(unknown, new Extent(N), 256, KernargWriter.slots(new long[] {a}, N));
        CompletionFuture f3 = k3(k2(f1));
        assertTrue(f3.waitFor(30, TimeUnit.SECONDS));
        assertTrue(f1.isFailed() && f3.isFailed());
    }

    @Test
    void aKernelOfAnotherAgentIsInvalidAgentAndQueuesNothing() {
        CompletionFuture f = cpuView.parallelForEach(iota, new Extent(N), 256, KernargWriter.slots(new long[] {a}, N));
        assertEquals(HsaStatus.INVALID_AGENT, f.failure().status());
    }

    @Test
    void aWorkgroupBeyondTheAgentsIsInvalidArgument() {
        CompletionFuture f = gpuView.parallelForEach(iota, new Extent(N), gpu.workgroupMaxSize() + 1, k -> { });
        assertEquals(HsaStatus.INVALID_ARGUMENT, f.failure().status());
    }

    @Test
    void aKernargWriterThatThrowsFailsTheFutureAndFreesTheSegment() {
        CompletionFuture f = gpuView.parallelForEach(iota, new Extent(N), 256, k -> {
            throw new IllegalStateException("no");
        });
        assertEquals(HsaStatus.INVALID_ARGUMENT, f.failure().status());
        assertTrue(f.failure().getMessage().contains("no"), f.failure().getMessage());
        k1().get();   // the view still works
    }

    @Test
    void theKernargSegmentIsFreedWhenTheDispatchRetires() {
        k1().get();
        int live = rt.memory().addressSpace().liveAllocations();
        for (int i = 0; i < 50; i++) {
            k1().get();
        }
        assertEquals(live, rt.memory().addressSpace().liveAllocations());
    }

    @Test
    void aJavaKernelOnAProvidedAgentIsInvalidAgent() {
        try (HsaRuntime prt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(1).computeUnits(1).build(),
                List.of(new OneProvided()));
             Amp pamp = Amp.on(prt)) {
            Agent dev = prt.providedAgents().get(0);
            AcceleratorView v = pamp.accelerator(dev).createView();
            CompletionFuture f = v.parallelForEach(new Extent(8), idx -> { });
            assertEquals(HsaStatus.INVALID_AGENT, f.failure().status());
            assertThrows(HsaException.class, () -> pamp.accelerator(rt.gpuAgent()));
        }
    }

    /** A provided agent whose queues the runtime's own GPU agent serves (the layer only needs a queue). */
    static final class OneProvided implements AgentProvider, QueueBackend {
        private HsaRuntime runtime;
        private int queues;

        @Override
        public String name() {
            return "one";
        }

        @Override
        public Found open(HsaRuntime runtime, int firstIndex) {
            this.runtime = runtime;
            Agent gpu0 = runtime.gpuAgent();
            return new Found(List.of(AgentFactory.provided(firstIndex, gpu0.properties(), runtime.memory(), runtime.signals(),
                    runtime.systemPool(), List.of(), runtime::timestamp, this)), "one device");
        }

        @Override
        public Queue createQueue(int size, QueueType type, QueueErrorCallback errorCallback) {
            queues++;
            return runtime.gpuAgent().createQueue(size, type, errorCallback);
        }

        @Override
        public int queueCount() {
            return queues;
        }

        @Override
        public void shutdown(HsaException reason, long timeoutNanos) {
        }
    }
}
