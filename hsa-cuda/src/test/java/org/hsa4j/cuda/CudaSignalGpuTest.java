package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.SvmAddress;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.SignalDescriptor;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** hsa4j signals a CUDA kernel waits on and answers on (CudaAgent.createSignal). */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CudaSignalGpuTest {
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
    void aDeviceSignalIsAnOrdinarySignalOfTheRuntimeAtARealAddress() {
        Signal s = gpu.agent.createSignal(7);
        assertFalse(SvmAddress.tagged(s.handle()));
        assertSame(s, gpu.runtime.signal(s.handle()));
        assertEquals(7, gpu.runtime.svm().getLong(s.handle() + SignalDescriptor.VALUE));
        s.destroy();
    }

    @Test
    void aKernelWaitsOnOneHsaSignalAndAnswersOnAnother() {
        Signal ping = gpu.agent.createSignal(0);
        Signal pong = gpu.agent.createSignal(0);
        CompletableFuture<HsaException> error = new CompletableFuture<>();
        Queue q = gpu.agent.createQueue(64, QueueType.SINGLE, (e, queue) -> error.complete(e));
        long ka = gpu.runtime.allocate(gpu.runtime.kernargPool(), 24);
        MemorySegment args = gpu.runtime.svm().segment(ka, 24);
        args.set(ValueLayout.JAVA_LONG, 0, ping.handle() + SignalDescriptor.VALUE);
        args.set(ValueLayout.JAVA_LONG, 8, pong.handle() + SignalDescriptor.VALUE);
        args.set(ValueLayout.JAVA_LONG, 16, 20_000_000L);
        Signal done = gpu.runtime.createSignal(1);
        GpuFixture.dispatch(q, gpu.kernels.kernel("hsa4j_signal_serve"), 1, 1, ka, done, false);
        int rounds = 2_000;
        for (int k = 1; k <= rounds; k++) {
            ping.storeScrelease(k);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            long v;
            while ((v = pong.waitScacquire(SignalCondition.EQ, k, TimeUnit.SECONDS.toNanos(1), WaitState.ACTIVE)) != k) {
                assertTrue(v != -1 && System.nanoTime() - deadline < 0, "round " + k + ": pong holds " + v);
            }
        }
        ping.storeScrelease(-2);
        GpuFixture.awaitZero(done);
        assertEquals(rounds, pong.loadScacquire());
        assertFalse(error.isDone(), () -> "queue error: " + error.getNow(null));
        q.destroy();
    }

    @Test
    void aSecondAgentForTheSameDeviceInOneRuntimeIsRefused() {
        HsaException e = org.junit.jupiter.api.Assertions.assertThrows(HsaException.class,
                () -> CudaAgent.open(gpu.runtime, Gpu.platform(), 0));
        assertEquals(org.hsa4j.status.HsaStatus.INVALID_AGENT, e.status());
        assertSame(gpu.agent, CudaAgent.inOrOpen(gpu.runtime, Gpu.platform(), 0));
    }
}
