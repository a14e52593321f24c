package org.hsa4j.idle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class CoreSharingTest {
    @Test
    void aWaitOnTheCpuWhereTheLastCompletionWasSignalledSharesItsCore() {
        AtomicInteger cpu = new AtomicInteger(3);
        CoreSharing sharing = new CoreSharing(cpu::get);
        sharing.completionSignalled();
        assertTrue(sharing.onCompletionCpu());
        cpu.set(1);
        assertFalse(sharing.onCompletionCpu(), "another CPU");
    }

    @Test
    void anUnknownCpuNeverMatches() {
        CoreSharing sharing = new CoreSharing(() -> -1);
        sharing.completionSignalled();
        assertFalse(sharing.onCompletionCpu());
    }

    @Test
    void theCurrentCpuIsOneOfThisMachinesOnLinux() {
        int cpu = CoreSharing.currentCpu();
        if (System.getProperty("os.name").startsWith("Linux")) {
            assertTrue(cpu >= 0, "sched_getcpu is bound on Linux, read " + cpu);
        }
        assertTrue(cpu < Math.max(Runtime.getRuntime().availableProcessors(), 1024), "cpu " + cpu);
    }

    @Test
    void aWaitToldItsPeerSharesTheCoreParksNextOrYieldsWhenItMayNotPark() {
        IdleStrategy blocking = IdleStrategy.forMachine(16, 1, true);
        Idler parks = blocking.idler();
        assertEquals(IdleStrategy.Phase.SPIN, parks.nextPhase());
        parks.yieldCoreAtOnce();
        assertEquals(IdleStrategy.Phase.PARK, parks.nextPhase());
        Idler busy = IdleStrategy.forMachine(16, 1, false).idler();
        busy.yieldCoreAtOnce();
        assertEquals(IdleStrategy.Phase.YIELD, busy.nextPhase(), "busy waiting never parks");
    }
}
