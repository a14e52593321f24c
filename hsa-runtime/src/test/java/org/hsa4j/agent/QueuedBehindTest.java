package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Work launched behind a dispatch that blocks still runs on another unit, though launching it woke nobody. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueuedBehindTest {
    @Test
    void aDispatchQueuedBehindABlockedOneRunsOnAnotherUnit() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build())) {
            Signal flag = rt.createSignal(1);
            AtomicLong seen = new AtomicLong(-1);
            long waiter = rt.createExecutable().define("waiter", KernelDescriptor.EMPTY,
                    wi -> seen.set(flag.waitScacquire(SignalCondition.EQ, 0, 30_000_000_000L, WaitState.BLOCKED)))
                    .freeze().symbol("waiter").kernelObject();
            long setter = rt.createExecutable().define("setter", KernelDescriptor.EMPTY, wi -> flag.storeScrelease(0))
                    .freeze().symbol("setter").kernelObject();
            Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
            Signal waiterDone = rt.createSignal(1);
            Signal setterDone = rt.createSignal(1);
            long first = q.addWriteIndexScacqScrel(2);
            // the second packet is published first, so one scan finds both: they enter the ring together
            Submit.kernel(q, setter).completion(setterDone).publish(first + 1);
            Submit.kernel(q, waiter).completion(waiterDone).publish(first);
            q.ringDoorbell(first + 1);
            Await.completion(setterDone);
            Await.completion(waiterDone);
            assertEquals(0, seen.get(), "the waiter saw the flag the dispatch behind it stored");
        }
    }
}
