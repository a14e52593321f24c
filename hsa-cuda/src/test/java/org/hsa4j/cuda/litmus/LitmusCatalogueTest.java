package org.hsa4j.cuda.litmus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/** The catalogue: every shape the issue names, each with an allowed and a forbidden variant. */
class LitmusCatalogueTest {
    @Test
    void shouldHoldEveryShapeOfTheIssue() {
        Set<String> shapes = LitmusCatalogue.all().stream().map(LitmusTest::shape).collect(Collectors.toSet());
        assertEquals(Set.of("MP", "SB", "LB", "2+2W", "CoRR", "WRC", "ISA2"), shapes);
    }

    @Test
    void shouldGiveEveryShapeAnAllowedAndAForbiddenVariant() {
        for (String shape : List.of("MP", "SB", "LB", "2+2W", "CoRR", "WRC", "ISA2")) {
            List<LitmusTest> v = LitmusCatalogue.all().stream().filter(t -> t.shape().equals(shape)).toList();
            assertTrue(v.stream().anyMatch(LitmusTest::allowed), shape);
            assertTrue(v.stream().anyMatch(t -> !t.allowed()), shape);
        }
    }

    @Test
    void shouldRecognizeTheWeakOutcomeOfMessagePassing() {
        LitmusTest mp = LitmusCatalogue.all().get(1);
        assertEquals("MP rlx", mp.name());
        assertTrue(mp.weak().test(new int[] {1, 0, 0, 0}, new int[4]));
        assertFalse(mp.weak().test(new int[] {1, 1, 0, 0}, new int[4]));
        assertEquals("r0=1 r1=0", mp.outcome(new int[] {1, 0, 0, 0}, new int[4]));
    }

    @Test
    void shouldReadFinalValuesForTwoPlusTwoW() {
        LitmusTest w = LitmusCatalogue.all().stream().filter(t -> t.shape().equals("2+2W")).findFirst().orElseThrow();
        assertEquals("x=1 y=1", w.outcome(new int[4], new int[] {1, 1, 0, 0}));
        assertTrue(w.weak().test(new int[4], new int[] {1, 1, 0, 0}));
    }

    @Test
    void shouldCarryTheCudaFormOfEveryMutantTwinThatHasOne() {
        List<String> twins = LitmusCatalogue.all().stream().map(LitmusTest::twinOf).filter(t -> t != null).toList();
        assertEquals(List.of("mp-signal-kernel-to-host", "mp-signal-host-to-kernel", "completion-then-data", "mp-fences",
                "sync-2way-handoff", "isa2", "wrc"), twins);
    }

    @Test
    void shouldPutANarrowedScopeOnTheGpuSideOfItsTwin() {
        LitmusTest isa2 = LitmusCatalogue.all().stream().filter(t -> "isa2".equals(t.twinOf())).findFirst().orElseThrow();
        assertEquals(LitmusOp.Order.RELEASE_CTA, isa2.roles().get(0).get(1).order());
        assertTrue(isa2.runIn().stream().allMatch(p -> p.code().charAt(0) == 'G'));
    }

    @Test
    void shouldMarkOnlySbReleaseAcquireAsAllowedByPtxButNotByHsa() {
        List<String> differing = LitmusCatalogue.all().stream().filter(t -> t.allowed() != t.ptxAllows())
                .map(LitmusTest::name).toList();
        assertEquals(List.of("SB rel/acq"), differing);
    }

    @Test
    void shouldPlaceEveryRoleOnTheGpuOrTheHost() {
        assertEquals(List.of("GH", "HG", "GG"), Placement.forRoles(2).stream().map(Placement::code).toList());
        assertEquals(List.of(1, 2), new Placement("HGG").gpuRoles());
        assertEquals(List.of(0), new Placement("HGG").hostRoles());
    }
}
