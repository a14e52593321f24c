package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The per-agent scaling counters: what they count and how snapshots combine. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AgentCountersTest {
    @Test
    void everyConsumedPacketIsCountedOnce() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build())) {
            Agent gpu = rt.gpuAgent();
            Queue queue = gpu.createQueue(64, QueueType.SINGLE, null);
            AgentCounters before = gpu.counters();
            Signal done = rt.createSignal(1);
            for (int i = 0; i < 9; i++) {
                Submit.barrierAnd(queue, null);
            }
            Submit.barrierAnd(queue, done);
            Await.completion(done);
            assertEquals(10, gpu.counters().minus(before).packets());
        }
    }

    @Test
    void consumingPacketsTakesTheProcessorRole() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build())) {
            Agent gpu = rt.gpuAgent();
            Queue queue = gpu.createQueue(64, QueueType.SINGLE, null);
            Signal done = rt.createSignal(1);
            Submit.barrierAnd(queue, done);
            Await.completion(done);
            assertTrue(gpu.counters().roleHandoffs() >= 1, gpu.counters().toString());
        }
    }

    @Test
    void unitCountersSumEveryUnitsOwnLine() {
        UnitCounters c = new UnitCounters(3);
        c.increment(0, UnitCounters.WAKE_UPS);
        c.add(2, UnitCounters.WAKE_UPS, 4);
        c.increment(1, UnitCounters.PARKS);
        c.add(1, UnitCounters.PACKETS, 10);
        assertEquals(new AgentCounters(10, 5, 0, 0, 1), c.snapshot());
    }

    @Test
    void aDifferenceOfSnapshotsGivesPerPacketFigures() {
        AgentCounters d = new AgentCounters(110, 12, 6, 3, 9).minus(new AgentCounters(10, 2, 1, 1, 4));
        assertEquals(new AgentCounters(100, 10, 5, 2, 5), d);
        assertEquals(0.1, d.wakeUpsPerPacket(), 1e-12);
        assertEquals(0.05, d.roleHandoffsPerPacket(), 1e-12);
        assertEquals(0.02, d.casRetriesPerPacket(), 1e-12);
        assertEquals(0.05, d.parksPerPacket(), 1e-12);
    }

    @Test
    void noPacketsGiveZeroPerPacketFigures() {
        assertEquals(0, new AgentCounters(0, 3, 3, 3, 3).wakeUpsPerPacket());
    }
}
