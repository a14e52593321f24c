package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Whom the pacer's helpers may be: never so many that they and a spinning host outnumber the cores. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HelperWakeTest {
    private static final int GROUPS = 4;
    private static final long PART_NANOS = 200_000;

    /**
     * sync_2way's shape on two units: group {@code g} waits for the host's turn {@code g}, works
     * 200 us and acknowledges; the host spins for each acknowledgement. The pacer estimates the
     * groups left at hundreds of microseconds, but a helper would only spin on a later turn beside
     * the running unit and the spinning host: with the host counted, two cores leave no room.
     */
    @Test
    void aHostSpinningForItsDispatchKeepsACoreThatNoHelperTakes() {
        int cores = Runtime.getRuntime().availableProcessors();
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build())) {
            AtomicInteger turn = new AtomicInteger(-1);
            AtomicInteger ack = new AtomicInteger(-1);
            Set<Thread> ran = ConcurrentHashMap.newKeySet();
            long kernel = rt.createExecutable().define("turns", KernelDescriptor.EMPTY, wi -> {
                int g = (int) wi.flatGroupId();
                ran.add(Thread.currentThread());
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (turn.get() != g && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                long end = System.nanoTime() + PART_NANOS;
                while (System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
                ack.set(g);
            }).freeze().symbol("turns").kernelObject();
            Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
            Signal done = rt.createSignal(1);
            PacketProcessor processor = rt.gpuAgent().processor();
            for (int u = 0; u < 2; u++) {
                int unit = u;
                Await.until(() -> processor.parksOf(unit) > 0, "unit " + unit + " to go idle after its start");
            }
            Submit.kernel(q, kernel).grid(GROUPS).workgroup(1).completion(done).submit();
            for (int g = 0; g < GROUPS; g++) {
                turn.set(g);
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (ack.get() != g) {
                    assertTrue(System.nanoTime() < deadline, "group " + g + " to acknowledge its turn");
                    Thread.onSpinWait();
                }
            }
            Await.completion(done);
            assertTrue(ran.size() <= Math.max(1, cores - 1),
                    ran.size() + " units ran the groups on " + cores + " cores beside a spinning host");
            assertEquals(0, done.loadScacquire());
        }
    }
}
