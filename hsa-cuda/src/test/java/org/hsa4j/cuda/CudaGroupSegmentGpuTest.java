package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.signal.Signal;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A dispatch whose group segment is past CUDA's default 48 KiB of dynamic shared memory, up to the
 * agent's advertised maximum (the device's opt-in size), runs: the agent opts the kernel in.
 */
class CudaGroupSegmentGpuTest {
    private static final String SOURCE = """
            extern "C" __global__ void hsa4j_big_tile(long long* out, int words) {
                extern __shared__ int tile[];
                for (int i = threadIdx.x; i < words; i += blockDim.x) {
                    tile[i] = 3 * i + blockIdx.x;
                }
                __syncthreads();
                if (threadIdx.x == 0) {
                    long long sum = 0;
                    for (int i = words - 1; i >= 0; i--) {
                        sum += tile[i];
                    }
                    out[blockIdx.x] = sum;
                }
            }
            """;
    private static GpuFixture gpu;

    @BeforeAll
    static void open() {
        Gpu.assumeDevice();
        Gpu.assumeNvrtc();
        gpu = new GpuFixture();
    }

    @AfterAll
    static void close() {
        if (gpu != null) {
            gpu.close();
        }
    }

    @Test
    void aGroupSegmentOf100KiBRunsAndEveryWorkgroupSeesAllOfIt() {
        assertGroupSegmentRuns(100 * 1024);
    }

    @Test
    void theAgentsAdvertisedGroupSegmentMaximumRuns() {
        assertGroupSegmentRuns(gpu.agent.hsaAgent().properties().groupSegmentMax());
    }

    private static void assertGroupSegmentRuns(int bytes) {
        int words = bytes / 4;
        int blocks = 4;
        CudaKernel k = gpu.agent.compile(SOURCE, "big_tile.cu").kernel("hsa4j_big_tile");
        Queue q = gpu.agent.hsaAgent().createQueue(64, QueueType.SINGLE, null);
        try (CudaBuffer out = gpu.agent.allocatePinned(8L * blocks)) {
            Signal done = gpu.runtime.createSignal(1);
            q.launch(k.kernelObject()).grid(blocks * 128).workgroup(128).groupSegment(bytes)
                    .kernarg(gpu.kernarg(new long[] {out.address()}, words)).completion(done).dispatch();
            GpuFixture.awaitZero(done);
            for (int b = 0; b < blocks; b++) {
                long expected = 3L * words * (words - 1) / 2 + (long) b * words;
                assertEquals(expected, out.hostSegment().getAtIndex(JAVA_LONG, b), "workgroup " + b + " of " + bytes + " bytes");
            }
        } finally {
            q.destroy();
        }
    }
}
