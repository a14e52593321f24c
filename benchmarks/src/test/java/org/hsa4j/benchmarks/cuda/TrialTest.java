package org.hsa4j.benchmarks.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** A trial closes what it owns in reverse order and the runtime last, whatever fails on the way. */
class TrialTest {
    @Test
    void shouldCloseOwnedResourcesInReverseOrderThenTheRuntime() {
        List<String> closed = new ArrayList<>();
        Trial t = new Trial();
        t.own(() -> closed.add("first"));
        t.own(() -> closed.add("second"));
        t.close();
        assertEquals(List.of("second", "first"), closed);
        assertTrue(t.runtime.isClosed());
    }

    @Test
    void shouldCloseEverythingAndRethrowTheFirstFailure() {
        List<String> closed = new ArrayList<>();
        Trial t = new Trial();
        t.own(() -> closed.add("first"));
        t.own(() -> {
            throw new IllegalStateException("broken");
        });
        IllegalStateException e = assertThrows(IllegalStateException.class, t::close);
        assertEquals("broken", e.getMessage());
        assertEquals(List.of("first"), closed);
        assertTrue(t.runtime.isClosed());
    }
}
