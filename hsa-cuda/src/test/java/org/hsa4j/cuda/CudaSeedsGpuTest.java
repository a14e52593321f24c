package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The seed programs of part 7 on the GPU, each checking itself. managed_memory's faulting row runs
 * in a child JVM, so this class faults nothing in the test JVM.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CudaSeedsGpuTest {
    private static GpuFixture gpu;

    @BeforeAll
    static void open() {
        Gpu.assumeDevice();
        gpu = new GpuFixture();
    }

    @AfterAll
    static void close() {
        if (gpu != null) {
            gpu.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sync_2way", "atomic_int", "vector_add", "managed_memory"})
    void theSeedChecksItselfOnTheGpu(String seed) {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        boolean ok = CudaSeeds.run(seed, gpu.agent, new PrintStream(text, true, StandardCharsets.UTF_8));
        System.out.print(text.toString(StandardCharsets.UTF_8));
        assertTrue(ok, text.toString(StandardCharsets.UTF_8));
        assertTrue(!gpu.agent.isLost(), "the agent of the test JVM still serves");
    }

    @Test
    void anUnknownSeedIsAnInvalidArgumentNamingTheKnownOnes() {
        HsaException e = org.junit.jupiter.api.Assertions.assertThrows(HsaException.class,
                () -> CudaSeeds.run("nope", gpu.agent, System.out));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("managed_memory"), e.getMessage());
    }
}
