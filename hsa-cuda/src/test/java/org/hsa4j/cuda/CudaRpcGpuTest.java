package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hsa4j.memory.Svm;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.services.Services;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.signal.Signal;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Host services called from CUDA kernels through {@code hsa4j_rpc.cuh} (issue 19 part 2), on the
 * GPU: the kernels of {@code hsa4j_rpc_kernels.cu} against the services' device ports. Every kernel
 * writes each thread's outcome (a status, or the service's result) to SVM and the host checks it,
 * naming the thread and the status ({@link CudaRpc#describe}) when one is wrong. Waits are bounded:
 * a kernel's calls give up after their spin limit, and the host waits at most 60 s for a dispatch.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CudaRpcGpuTest {
    /** Device ports: fewer than the 128 warps of the 4096-thread tests, so warps also wait for ports. */
    static final int DEVICE_PORTS = 64;

    private static GpuFixture gpu;
    private static Services services;
    private static CudaModule kernels;
    private static Queue queue;
    private static long ctx;
    private static final ConcurrentLinkedQueue<String> printed = new ConcurrentLinkedQueue<>();

    @BeforeAll
    static void open() {
        Gpu.assumeDevice();
        gpu = new GpuFixture();
        assertTrue(gpu.runtime.agents().contains(gpu.agent.hsaAgent()), "the services serve agents the runtime registered: "
                + "run with HSA4J_CUDA unset or auto, so HsaRuntime.init() registers the CUDA agent");
        services = Services.start(gpu.runtime, ServicesConfig.builder().devicePorts(DEVICE_PORTS)
                .printfSink(printed::add).build());
        kernels = CudaRpc.loadKernels(gpu.agent);
        queue = gpu.agent.createQueue(256, QueueType.SINGLE, (e, q) -> System.err.println("queue error: " + e));
        ctx = svm(CudaRpc.CTX_BYTES);
        CudaRpc.writeContext(gpu.runtime.svm(), ctx, services.ports().address(), gpu.agent, CudaRpc.DEFAULT_SPIN_LIMIT);
    }

    @AfterAll
    static void close() {
        if (queue != null) {
            queue.destroy();
        }
        if (services != null) {
            services.close();
        }
        if (gpu != null) {
            gpu.close();
        }
    }

    /** Zeroed SVM of {@code bytes} the CUDA agent reaches (the real-address pool registered with it). */
    private static long svm(long bytes) {
        long a = gpu.agent.svmPool().allocate(Math.max(64, bytes));
        gpu.runtime.svm().fill(a, Math.max(64, bytes), (byte) 0);
        return a;
    }

    /** Runs {@code kernel} over {@code threads} threads (blocks of up to 256) and waits for it, at most 60 s. */
    private static void run(CudaModule module, String kernel, int threads, long[] longs, int... ints) {
        Signal done = gpu.runtime.createSignal(1);
        try {
            GpuFixture.dispatch(queue, module.kernel(kernel), Math.min(threads, 256), threads, gpu.kernarg(longs, ints), done,
                    false);
            GpuFixture.awaitZero(done);
        } finally {
            done.destroy();
        }
    }

    private static void assertAllOk(long base, int n, int stride, String what) {
        Svm s = gpu.runtime.svm();
        List<String> bad = new ArrayList<>();
        for (int i = 0; i < n && bad.size() < 10; i++) {
            long v = stride == 4 ? s.getInt(base + 4L * i) : s.getLong(base + (long) stride * i);
            if (v != 0) {
                bad.add("thread " + i + ": " + v + " = " + CudaRpc.describe(v));
            }
        }
        assertTrue(bad.isEmpty(), what + " failed in " + bad);
    }

    @Test
    void oneThreadsNoOpCallsAllReturnOk() {
        long status = svm(4);
        gpu.runtime.svm().setInt(status, 12345);
        run(kernels, "hsa4j_rpc_nop", 1, new long[] {ctx, status}, 1000, 1);
        assertAllOk(status, 1, 4, "1000 no-op calls from one thread");
    }

    @Test
    void echoGivesEveryLaneOfFullAndPartialWarpsItsOwnWordsBack() {
        int n = 100; // three full warps and one of four lanes
        long out = svm(8L * n);
        run(kernels, "hsa4j_rpc_echo", n, new long[] {ctx, out}, n);
        assertAllOk(out, n, 8, "echo (-2000 - w: word w came back wrong)");
    }

    @Test
    void printfFromFourThousandNinetySixThreadsGivesOneUnbrokenLineEach() {
        int n = 4096;
        long status = svm(4L * n);
        printed.clear();
        run(kernels, "hsa4j_rpc_printf", n, new long[] {ctx, status}, n);
        Pattern line = Pattern.compile("hsa4j-cuda-printf thread (\\d+) of 4096 says hello (\\d+) (\\d+\\.\\d) end\n");
        Set<Integer> seen = new HashSet<>();
        List<String> broken = new ArrayList<>();
        for (String text : printed) {
            Matcher m = line.matcher(text);
            if (!m.matches()) {
                broken.add(text);
                continue;
            }
            int i = Integer.parseInt(m.group(1));
            assertEquals((long) i * 1000003L, Long.parseLong(m.group(2)), text);
            assertEquals(String.format(java.util.Locale.ROOT, "%.1f", i * 0.5), m.group(3), text);
            assertTrue(seen.add(i), "thread " + i + " printed twice");
            assertEquals(text.getBytes(StandardCharsets.UTF_8).length, gpu.runtime.svm().getInt(status + 4L * i),
                    "printf's result is the bytes written, thread " + i);
        }
        assertTrue(broken.isEmpty(), broken.size() + " outputs are not one whole line, e.g. "
                + broken.subList(0, Math.min(3, broken.size())));
        assertEquals(n, seen.size(), "every thread printed once (" + printed.size() + " outputs)");
    }

    @Test
    void syscallsFromTheGpuWriteAndReadBackEachThreadsLineOfAFile() throws IOException {
        int n = 256;
        int line = 64;
        Path file = Files.createTempFile("hsa4j-cuda-syscall", ".txt");
        try {
            byte[] name = (file.toString() + "\0").getBytes(StandardCharsets.UTF_8);
            long path = svm(name.length);
            for (int k = 0; k < name.length; k++) {
                gpu.runtime.svm().setByte(path + k, name[k]);
            }
            long written = svm((long) line * n);
            long back = svm((long) line * n);
            long results = svm(64L * n);
            long before = System.currentTimeMillis() * 1_000_000L;
            run(kernels, "hsa4j_rpc_syscalls", n, new long[] {ctx, path, written, back, results}, n);
            long after = System.currentTimeMillis() * 1_000_000L + 1_000_000L;
            long pid = ProcessHandle.current().pid();
            Svm s = gpu.runtime.svm();
            List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
            assertEquals(n, lines.size(), "one line per thread in " + file);
            for (int i = 0; i < n; i++) {
                long r = results + 64L * i;
                String what = "thread " + i + ": clock " + s.getLong(r) + " pid " + s.getLong(r + 8) + " fd " + s.getLong(r + 16)
                        + " pwrite " + s.getLong(r + 24) + " pread " + s.getLong(r + 32) + " close " + s.getLong(r + 40)
                        + " same " + s.getLong(r + 48);
                assertEquals(pid, s.getLong(r + 8), what);
                assertTrue(s.getLong(r) >= before && s.getLong(r) <= after, what + ": clock outside the run");
                assertTrue(s.getLong(r + 16) >= 0, what);
                assertEquals(line, s.getLong(r + 24), what);
                assertEquals(line, s.getLong(r + 32), what);
                assertEquals(0, s.getLong(r + 40), what);
                assertEquals(1, s.getLong(r + 48), what + ": the line read back differs");
                assertEquals(String.format(java.util.Locale.ROOT, "gpu %06d pid %010d clock %019d", i, pid, s.getLong(r)), lines.get(i).stripTrailing(),
                        "line " + i + " of the file");
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void hostMallocAndFreeFromTheGpuHandOutMemoryTheKernelUsesAndTakeItBack() {
        int n = 1024;
        long results = svm(16L * n);
        int live = services.mallocService().liveBlocks();
        run(kernels, "hsa4j_rpc_malloc_free", n, new long[] {ctx, results}, n);
        Svm s = gpu.runtime.svm();
        for (int i = 0; i < n; i++) {
            assertEquals(0, s.getLong(results + 16L * i), "thread " + i + ": -1 malloc gave null, -2 - w word w wrong");
            assertEquals(0, s.getLong(results + 16L * i + 8), "thread " + i + ": free's HeapStatus");
        }
        assertEquals(live, services.mallocService().liveBlocks(), "every block came back");
    }

    @Test
    void fourThousandNinetySixCallingThreadsThroughSixtyFourPortsAllFinish() {
        int n = 4096;
        int calls = 16;
        long status = svm(4L * n);
        long served = services.server().callsServed();
        run(kernels, "hsa4j_rpc_nop", n, new long[] {ctx, status}, calls, n);
        assertAllOk(status, n, 4, "16 no-op calls from each of 4096 threads");
        long warpCalls = services.server().callsServed() - served;
        assertTrue(warpCalls >= (long) n / 32 * calls, "one call per warp and round at least: " + warpCalls);
    }

    @Test
    void aZeroedContextEndsEveryCallWithALayoutErrorAndTouchesNoPort() {
        long bad = svm(CudaRpc.CTX_BYTES); // version 0, no device ports: not a context of this header
        long status = svm(4L * 40);
        run(kernels, "hsa4j_rpc_nop", 40, new long[] {bad, status}, 1, 40);
        for (int i = 0; i < 40; i++) {
            assertEquals(CudaRpc.E_LAYOUT, gpu.runtime.svm().getInt(status + 4L * i), "thread " + i + ": "
                    + CudaRpc.describe(gpu.runtime.svm().getInt(status + 4L * i)));
        }
    }

    @Test
    void theGpuHeapHandsOutSeparateBlocksAndRefusesDoubleAndInteriorFrees() {
        int n = 4096;
        try (CudaBuffer heap = CudaRpc.createHeap(gpu.agent)) {
            long results = svm(8L * n);
            long blocks = svm(16L * n);
            // two launches: no block is handed out again while its frees are checked
            run(kernels, "hsa4j_gheap_check", n, new long[] {ctx, heap.address(), results, blocks}, 0, n);
            run(kernels, "hsa4j_gheap_check", n, new long[] {ctx, heap.address(), results, blocks}, 1, n);
            assertAllOk(results, n, 8, "GPU heap (-1 null, -2 block overwritten (handed out twice), -3 free, -4 no DOUBLE_FREE, "
                    + "-5 no INTERIOR_POINTER, -6 second free, -7 blocks overlap)");
        }
    }

    @Test
    void theMilThreadShapeRunsWithTheGpuHeapAndWithHostMalloc() {
        int n = 65536;
        long results = svm(8L * n);
        try (CudaBuffer heap = CudaRpc.createHeap(gpu.agent)) {
            run(kernels, "hsa4j_rpc_milthread", n, new long[] {ctx, heap.address(), results}, n);
            assertAllOk(results, n, 8, "GPU heap rows (-1 null, -2 - w word w wrong, -100 + HeapStatus free failed)");
        }
        int live = services.mallocService().liveBlocks();
        run(kernels, "hsa4j_rpc_milthread", n, new long[] {ctx, 0, results}, n);
        assertAllOk(results, n, 8, "host malloc rows (-1 null, -2 - w word w wrong, -100 + HeapStatus free failed)");
        assertEquals(live, services.mallocService().liveBlocks(), "every host block came back");
    }

    @Test
    void contextsForOneSetShareOneTableOfPortLocksInDeviceMemory() {
        long other = svm(CudaRpc.CTX_BYTES);
        CudaRpc.writeContext(gpu.runtime.svm(), other, services.ports().address(), gpu.agent, 5);
        long locks = gpu.runtime.svm().getLong(ctx + CudaRpc.CTX_LOCKS);
        assertTrue(locks != 0, "a shadow table");
        assertEquals(locks, gpu.runtime.svm().getLong(other + CudaRpc.CTX_LOCKS), "the same table for every context of the set");
    }

    @Test
    void callsThatGiveUpWaitingLeaveTheirPortsToTheNextCallers() {
        long impatient = svm(CudaRpc.CTX_BYTES);
        CudaRpc.writeContext(gpu.runtime.svm(), impatient, services.ports().address(), gpu.agent, 1);
        int n = 256;
        long status = svm(4L * n);
        run(kernels, "hsa4j_rpc_nop", n, new long[] {impatient, status}, 4, n);
        for (int i = 0; i < n; i++) {
            int s = gpu.runtime.svm().getInt(status + 4L * i);
            assertTrue(s == 0 || s == CudaRpc.E_SPIN, "thread " + i + ": " + CudaRpc.describe(s));
        }
        // the ports they left on the server's turn, or with a call half-way, serve the next calls
        long again = svm(4L * n);
        run(kernels, "hsa4j_rpc_nop", n, new long[] {ctx, again}, 4, n);
        assertAllOk(again, n, 4, "no-op calls after calls that gave up");
        long out = svm(8L * n);
        run(kernels, "hsa4j_rpc_echo", n, new long[] {ctx, out}, n);
        assertAllOk(out, n, 8, "echo after calls that gave up");
    }

    @Test
    void nvrtcCompilesAKernelThatIncludesTheHeader() {
        Gpu.assumeNvrtc();
        String source = "#include \"hsa4j_rpc.cuh\"\n"
                + "extern \"C\" __global__ void pid(const hsa4j_rpc_ctx* ctx, long long* out, unsigned int n) {\n"
                + "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                + "    if (i < n) {\n"
                + "        out[i] = hsa4j_getpid(ctx);\n"
                + "    }\n"
                + "}\n";
        CudaModule m = CudaRpc.compile(gpu.agent, source, "pid.cu");
        int n = 48;
        long out = svm(8L * n);
        run(m, "pid", n, new long[] {ctx, out}, n);
        for (int i = 0; i < n; i++) {
            assertEquals(ProcessHandle.current().pid(), gpu.runtime.svm().getLong(out + 8L * i), "thread " + i);
        }
    }
}
