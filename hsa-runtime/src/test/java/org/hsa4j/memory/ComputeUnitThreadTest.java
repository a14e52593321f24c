package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.agent.Agent;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ComputeUnitThreadTest {

    @Test
    void shouldTellAKernelWhichAgentAndKernelItRunsIn() {
        try (HsaRuntime rt = HsaRuntime.init()) {
            Agent gpu = rt.gpuAgent();
            Queue q = gpu.createQueue(64, QueueType.SINGLE, null);
            AtomicReference<String> seen = new AtomicReference<>();
            KernelLauncher.await(KernelLauncher.launch(rt, q, wi -> {
                ComputeUnitThread t = ComputeUnitThread.current();
                seen.set(t.agentIndex() + "/" + t.kernelName() + "/" + (t.computeUnit() >= 0));
            }, 1, 1));
            assertEquals(gpu.index() + "/test_kernel/true", seen.get());
        }
    }

    @Test
    void shouldReturnNullOnAHostThread() {
        assertNull(ComputeUnitThread.current());
    }

    @Test
    void shouldRefuseToRecordAKernelFromAnotherThread() {
        ComputeUnitThread t = new ComputeUnitThread(() -> { }, "cu-test", 1, 0);
        assertThrows(IllegalStateException.class, () -> t.enterKernel("k"));
    }
}
