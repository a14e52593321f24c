package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.kernel.KernelDescriptor;
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
                // every unit but the holder, unparked as its timer would (helpers have none), looks at the
                // queues again and parks again, twice, instead of looping beside the holder
                for (int u = 0; u < threads.length; u++) {
                    if (threads[u] != holder.get()) {
                        int unit = u;
                        Thread t = threads[u];
                        Await.until(() -> {
                            LockSupport.unpark(t);
                            return processor.parksOf(unit) >= before[unit] + 2;
                        }, threads[u].getName() + " to park again beside the role holder");
                    }
                }
            } finally {
                release.countDown();
            }
            Await.completion(done);
        }
    }

    /**
     * A blocked one-group dispatch with a four-group dispatch queued behind it on two units: the
     * groups behind run on the unit that launched both, or on a unit that was woken (the watchdog
     * wakes one when the ring's head stalls), never on a unit whose idle timer ended its park.
     */
    @Test
    void aUnitWhoseTimerEndedItsParkLeavesRunningWorkToTheUnitsRunningIt() throws InterruptedException {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build())) {
            Agent gpu = rt.gpuAgent();
            PacketProcessor processor = gpu.processor();
            List<Thread> threads = Arrays.asList(gpu.computeUnitThreads());
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch blocking = new CountDownLatch(1);
            long blocker = rt.createExecutable().define("blocker", KernelDescriptor.EMPTY, wi -> {
                blocking.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }).freeze().symbol("blocker").kernelObject();
            // each group behind: its unit and that unit's wake-ups when it ran
            ConcurrentLinkedQueue<long[]> ran = new ConcurrentLinkedQueue<>();
            long behind = rt.createExecutable().define("behind", KernelDescriptor.EMPTY, wi -> {
                int unit = threads.indexOf(Thread.currentThread());
                ran.add(new long[] {unit, processor.unitCounters.get(unit, UnitCounters.WAKE_UPS)});
            }).freeze().symbol("behind").kernelObject();
            Queue q = gpu.createQueue(16, QueueType.SINGLE, null);
            Signal blockerDone = rt.createSignal(1);
            Signal behindDone = rt.createSignal(1);
            for (int u = 0; u < threads.size(); u++) {
                int unit = u;
                Await.until(() -> processor.parksOf(unit) > 0, "unit " + unit + " to go idle");
            }
            // both idle, and neither has seen the packets (unit 0 polls for doorbells behind the API)
            long[] packetsBefore = new long[threads.size()];
            long[] wakeUpsBefore = new long[threads.size()];
            for (int u = 0; u < threads.size(); u++) {
                packetsBefore[u] = processor.unitCounters.get(u, UnitCounters.PACKETS);
                wakeUpsBefore[u] = processor.unitCounters.get(u, UnitCounters.WAKE_UPS);
            }
            long first = q.addWriteIndexScacqScrel(2);
            // the second packet is published first, so one scan launches both and wakes nobody
            Submit.kernel(q, behind).grid(4).workgroup(1).completion(behindDone).publish(first + 1);
            Submit.kernel(q, blocker).completion(blockerDone).publish(first);
            q.ringDoorbell(first + 1);
            try {
                assertTrue(blocking.await(30, TimeUnit.SECONDS));
                Await.completion(behindDone);
            } finally {
                release.countDown();
            }
            Await.completion(blockerDone);
            int launcher = -1;
            for (int u = 0; u < threads.size(); u++) {
                if (processor.unitCounters.get(u, UnitCounters.PACKETS) - packetsBefore[u] == 2) {
                    launcher = u;
                }
            }
            assertTrue(launcher >= 0, "one unit launched both packets");
            assertEquals(4, ran.size());
            for (long[] r : ran) {
                int unit = (int) r[0];
                assertTrue(unit == launcher || r[1] > wakeUpsBefore[unit],
                        "unit " + unit + " ran a group behind the blocked dispatch without being woken (launcher: unit "
                                + launcher + ")");
            }
        }
    }
}
