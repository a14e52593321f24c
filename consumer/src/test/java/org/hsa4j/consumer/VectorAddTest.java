package org.hsa4j.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class VectorAddTest {
    @Test
    void shouldAddVectorsThroughTheInstalledArtifacts() {
        assertEquals(0, VectorAdd.run(100_000));
    }
}
