package org.hsa4j.kernel.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.hsa4j.kernel.WorkgroupExecutor;
import org.junit.jupiter.api.Test;

/**
 * A {@link WorkgroupExecutor} is a compute unit's machinery: applications cannot make one, and the
 * factory the agent package uses is in a package the module does not export (ModuleDescriptorTest).
 */
class WorkgroupExecutorsTest {
    @Test
    void shouldLeaveWorkgroupExecutorWithoutAPublicConstructor() {
        assertEquals(0, WorkgroupExecutor.class.getConstructors().length);
    }

    @Test
    void shouldMakeAnExecutorThroughTheFactory() {
        try (WorkgroupExecutor e = WorkgroupExecutors.create(256, false)) {
            assertFalse(e.inBarrierRound(), "a new executor runs no barrier round");
        }
    }
}
