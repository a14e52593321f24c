package org.hsa4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.concurrent.TimeUnit;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which barrier strategy runs: virtual threads by default, continuations where the build's second
 * test execution asks for them ({@code -Dhsa4j.barriers=continuations} with the export).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BarrierStrategyTest {
    private static boolean exported() {
        return Object.class.getModule().isExported("jdk.internal.vm", BarrierStrategyTest.class.getModule());
    }

    @Test
    void shouldRunTheStrategyThisJvmAskedFor() {
        String asked = System.getProperty(BarrierStrategy.PROPERTY, System.getenv(BarrierStrategy.VARIABLE));
        String expected = BarrierStrategy.CONTINUATIONS.equals(asked) ? "continuations" : "virtual threads";
        assertEquals(expected, WorkgroupExecutor.barrierStrategy());
        assertNull(WorkgroupExecutor.barriersUnavailableReason());
    }

    @Test
    void shouldDefaultToVirtualThreads() {
        assertEquals(BarrierStrategy.THREADS, BarrierStrategy.parse(null, BarrierStrategy.VARIABLE));
    }

    @Test
    void shouldAcceptTheStrategyNamesInAnyCase() {
        assertEquals(BarrierStrategy.CONTINUATIONS, BarrierStrategy.parse(" Continuations ", BarrierStrategy.VARIABLE));
        assertEquals(BarrierStrategy.THREADS, BarrierStrategy.parse("THREADS", BarrierStrategy.VARIABLE));
    }

    @Test
    void shouldRejectAnUnknownStrategyWithInvalidArgumentNamingTheSetting() {
        HsaException e = assertThrows(HsaException.class, () -> BarrierStrategy.parse("fibers", BarrierStrategy.VARIABLE));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("HSA4J_BARRIERS") && e.getMessage().contains("fibers"), e.getMessage());
    }

    @Test
    void shouldRefuseAContinuationGroupWithTheFlagNamedWhenTheExportIsMissing() {
        assumeFalse(exported(), "this JVM has the export; the continuation strategy runs here");
        try (BarrierStrategy s = BarrierStrategy.named(BarrierStrategy.CONTINUATIONS)) {
            HsaException e = assertThrows(HsaException.class,
                    () -> s.runGroup(new WorkItem[0], 2, w -> { }, "needs_export"));
            assertEquals(HsaStatus.EXCEPTION, e.status());
            assertTrue(e.getMessage().contains("--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"), e.getMessage());
        }
    }
}
