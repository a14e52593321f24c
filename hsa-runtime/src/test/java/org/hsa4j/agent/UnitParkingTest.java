package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How compute units idle beside the unit that holds the processor role. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnitParkingTest {
    @Test
    void unitsParkWhilePublishedWorkWaitsForTheRoleHolder() throws InterruptedException {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(3).build())) {
            Agent gpu = rt.gpuAgent();
            CountDownLatch inCallback = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Thread> holder = new AtomicReference<>();
            // a queue error callback runs on the unit holding the role: blocking it there keeps the role held
            Queue bad = gpu.createQueue(16, QueueType.SINGLE, (e, q) -> {
                holder.set(Thread.currentThread());
                inCallback.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            });
            Queue good = gpu.createQueue(16, QueueType.SINGLE, null);
            Submit.raw(bad, PacketType.VENDOR_SPECIFIC.code(), null);
            assertTrue(inCallback.await(30, TimeUnit.SECONDS));
            Signal done = rt.createSignal(1);
            Submit.barrierAnd(good, done);
            try {
                Thread[] threads = gpu.computeUnitThreads();
                PacketProcessor processor = gpu.processor();
                long[] before = new long[threads.length];
                for (int u = 0; u < threads.length; u++) {
                    before[u] = processor.parksOf(u);
                }
                // every unit but the holder looks at the queues again (its idle timer) and parks again, twice
                for (int u = 0; u < threads.length; u++) {
                    if (threads[u] != holder.get()) {
                        int unit = u;
                        Await.until(() -> processor.parksOf(unit) >= before[unit] + 2,
                                threads[u].getName() + " to park again beside the role holder");
                    }
                }
            } finally {
                release.countDown();
            }
            Await.completion(done);
        }
    }
}
