package org.hsa4j.cuda.litmus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The harness with every role on a host thread (no GPU needed): outcomes are counted once per
 * round, only possible outcomes appear, and the JMM's guarantees hold. Forbidden outcomes are
 * asserted absent only where Java forbids them on every platform; allowed ones are never required.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostLitmusTest {
    private static final int ROUNDS = 100;
    private LitmusRunner runner;

    @BeforeEach
    void start() {
        runner = LitmusRunner.onHost();
    }

    @AfterEach
    void stop() {
        runner.close();
    }

    private static LitmusTest named(String name) {
        return LitmusCatalogue.all().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void shouldCountOneOutcomePerRound() {
        LitmusResult r = runner.run(named("MP rlx"), new Placement("HH"), ROUNDS, 1, 0, 7);
        assertEquals(ROUNDS, r.instances());
        assertEquals(ROUNDS, r.outcomes().values().stream().mapToLong(Long::longValue).sum());
    }

    @Test
    void shouldSeeOnlyPossibleOutcomesOfMessagePassing() {
        LitmusResult r = runner.run(named("MP rlx"), new Placement("HH"), ROUNDS, 1, 0, 8);
        Set<String> possible = Set.of("r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1");
        assertTrue(possible.containsAll(r.outcomes().keySet()), r.outcomes().toString());
    }

    @Test
    void shouldNeverSeeWeakMessagePassingWithReleaseAndAcquire() {
        LitmusResult r = runner.run(named("MP rel/acq"), new Placement("HH"), ROUNDS, 1, 0, 9);
        assertEquals(0, r.weak(), r.outcomes().toString());
        assertEquals(LitmusResult.Verdict.OK, r.verdict());
    }

    @Test
    void shouldNeverSeeStoreBufferingWithScFences() {
        LitmusResult r = runner.run(named("SB sc"), new Placement("HH"), ROUNDS, 1, 0, 10);
        assertEquals(0, r.weak(), r.outcomes().toString());
    }

    @Test
    void shouldNeverSeeARelaxedLoadGoBackInTime() {
        LitmusResult r = runner.run(named("CoRR rlx"), new Placement("HH"), ROUNDS, 1, 0, 11);
        assertEquals(0, r.weak(), r.outcomes().toString());
    }

    @Test
    void shouldRunThreeRoleTestsOnThreeHostThreads() {
        LitmusResult r = runner.run(named("WRC rel/acq"), new Placement("HHH"), ROUNDS, 1, 0, 12);
        assertEquals(0, r.weak(), r.outcomes().toString());
        assertEquals(ROUNDS, r.outcomes().values().stream().mapToLong(Long::longValue).sum());
    }

    @Test
    void shouldRefuseAGpuRoleWithoutAGpu() {
        HsaException e = assertThrows(HsaException.class,
                () -> runner.run(named("MP rlx"), new Placement("GH"), ROUNDS, 1, 0, 13));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRefuseAPlacementOfTheWrongLength() {
        HsaException e = assertThrows(HsaException.class,
                () -> runner.run(named("MP rlx"), new Placement("HHH"), ROUNDS, 1, 0, 14));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }
}
