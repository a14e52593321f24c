package org.hsa4j.cuda.litmus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.concurrent.TimeUnit;

import org.hsa4j.cuda.CudaAgent;
import org.hsa4j.cuda.Gpu;
import org.hsa4j.runtime.HsaRuntime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The litmus harness on the GPU: host-GPU and GPU-GPU placements, with and without stress. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LitmusGpuTest {
    private static HsaRuntime rt;
    private static CudaAgent agent;
    private static LitmusRunner runner;

    @BeforeAll
    static void open() {
        Gpu.assumeDevice();
        rt = HsaRuntime.init();
        agent = CudaAgent.inOrOpen(rt, Gpu.platform(), 0);
        runner = LitmusRunner.onGpu(agent, 256, 16L << 20);
    }

    @AfterAll
    static void close() {
        if (runner != null) {
            runner.close();
            agent.close();
            rt.close();
        }
    }

    private static LitmusTest named(String name) {
        return LitmusCatalogue.all().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void shouldRunMessagePassingBetweenAGpuThreadAndAHostThread() {
        LitmusResult r = runner.run(named("MP rel/acq"), new Placement("GH"), 5_000, 1, 0, 1);
        assertEquals(5_000, r.outcomes().values().stream().mapToLong(Long::longValue).sum());
        assertNotEquals(LitmusResult.Verdict.VIOLATION, r.verdict(), r.outcomes().toString());
    }

    @Test
    void shouldRunManyInstancesPerRoundWhenEveryRoleIsOnTheGpu() {
        LitmusResult r = runner.run(named("CoRR rlx"), new Placement("GG"), 200, 256, 32, 2);
        assertEquals(200L * 256, r.instances());
        assertEquals(0, r.weak(), "coherence: " + r.outcomes());
    }

    @Test
    void shouldRunAThreeRoleTestAcrossHostAndGpu() {
        LitmusResult r = runner.run(named("ISA2 rel/acq"), new Placement("GHG"), 2_000, 1, 32, 3);
        assertEquals(2_000, r.instances());
        assertNotEquals(LitmusResult.Verdict.VIOLATION, r.verdict(), r.outcomes().toString());
    }
}
