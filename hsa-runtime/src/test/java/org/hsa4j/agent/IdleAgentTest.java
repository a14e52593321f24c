package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

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

/** What an idle agent does on its one timer, the watchdog's: as little as finds a doorbell written behind the API. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdleAgentTest {
    @Test
    void theWatchdogsLooksAtAnIdleAgentWakeNoUnit() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(16).build())) {
            Agent gpu = rt.gpuAgent();
            gpu.createQueue(16, QueueType.SINGLE, null);
            PacketProcessor processor = gpu.processor();
            awaitUnitsParked(gpu); // the queue's attach woke a unit: its look must be over before the count
            long handoffs = gpu.counters().roleHandoffs();
            long wakeUps = gpu.counters().wakeUps();
            long looks = processor.watchdogLooks();
            Await.until(() -> processor.watchdogLooks() >= looks + 3, "the watchdog to look three more times");
            assertEquals(handoffs, gpu.counters().roleHandoffs(), "a look that finds nothing new scans nothing");
            assertEquals(wakeUps, gpu.counters().wakeUps(), "a look that finds nothing new wakes no unit");
        }
    }

    @Test
    void everyUnitOfAnIdleAgentParksWithoutATimer() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(16).build())) {
            Agent gpu = rt.gpuAgent();
            gpu.createQueue(16, QueueType.SINGLE, null);
            awaitUnitsParked(gpu);
        }
    }

    /** Waits until every unit parks untimed on the processor. */
    private static void awaitUnitsParked(Agent gpu) {
        Thread[] units = gpu.computeUnitThreads();
        for (int u = 0; u < units.length; u++) {
            Thread t = units[u];
            // WAITING, not TIMED_WAITING: only an unpark ends the park (a timer would cost a wake-up per period)
            Await.until(() -> t.getState() == Thread.State.WAITING && LockSupport.getBlocker(t) == gpu.processor(),
                    t.getName() + " to park untimed");
        }
    }

    @Test
    void theWatchdogFindsAPacketPublishedWithoutADoorbell() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(16).build())) {
            Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
            long empty = rt.createExecutable().define("empty", KernelDescriptor.EMPTY, wi -> { }).freeze()
                    .symbol("empty").kernelObject();
            Signal done = rt.createSignal(1);
            long id = q.addWriteIndexScacqScrel(1);
            Submit.kernel(q, empty).completion(done).publish(id); // no doorbell
            Await.completion(done);
        }
    }

    @Test
    void theWatchdogOfAnIdleAgentSleepsUntilALaunchWakesIt() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).kernelTimeLimitMillis(100).build())) {
            Agent gpu = rt.gpuAgent();
            Queue q = gpu.createQueue(16, QueueType.SINGLE, null);
            PacketProcessor processor = gpu.processor();
            Await.until(processor::watchdogAsleep, "the idle agent's watchdog to sleep");
            Signal never = rt.createSignal(1);
            long spin = rt.createExecutable().define("spin", KernelDescriptor.EMPTY, wi -> {
                while (never.loadScacquire() == 1) {
                    Thread.onSpinWait(); // the signal load is an abort point
                }
            }).freeze().symbol("spin").kernelObject();
            Signal done = rt.createSignal(1);
            Submit.kernel(q, spin).completion(done).submit();
            Await.until(() -> !processor.watchdogAsleep(), "the launch to wake the watchdog");
            Await.until(() -> done.failure() != null, "the time limit to fail the endless dispatch");
        }
    }
}
