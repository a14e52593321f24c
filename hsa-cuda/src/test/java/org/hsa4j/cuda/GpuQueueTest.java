package org.hsa4j.cuda;

import java.util.concurrent.CompletableFuture;

import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.status.HsaException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the GPU queue tests share: one {@link GpuFixture} per test class (skipped without a
 * device), and a fresh queue of the CUDA agent per test whose error callback completes {@link #error}.
 */
abstract class GpuQueueTest {
    static GpuFixture gpu;
    Queue queue;
    final CompletableFuture<HsaException> error = new CompletableFuture<>();

    @BeforeAll
    static void openGpu() {
        Gpu.assumeDevice();
        gpu = new GpuFixture();
    }

    @AfterAll
    static void closeGpu() {
        if (gpu != null) {
            gpu.close();
            gpu = null;
        }
    }

    @BeforeEach
    void createQueue() {
        queue = gpu.agent.createQueue(256, QueueType.SINGLE, (e, q) -> error.complete(e));
    }

    @AfterEach
    void destroyQueue() {
        queue.destroy();
    }
}
