package org.hsa4j.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** How a figure's goal judges a value against its baseline. */
class FigureGoalTest {
    @Test
    void shouldJudgeAThroughputAgainstItsBaselineFromBelow() {
        Figure.Goal atLeast = new Figure.Goal(Figure.Kind.RATIO_AT_LEAST, 1.5, ">= 1.5x");
        assertTrue(atLeast.met(7.5, 5.0));
        assertFalse(atLeast.met(7.4, 5.0));
        assertNull(atLeast.met(7.5, Double.NaN));
    }
}
