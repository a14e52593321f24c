package org.hsa4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every example runs at small size and checks itself; the info command prints the topology. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExamplesTest {

    private static String runMain(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Hsa4jMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, () -> "exit status; stderr: " + err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldPassEveryExampleAtSmallSize() {
        String out = runMain("run", "all", "--small");
        assertTrue(out.contains(Hsa4jMain.EXAMPLES.size() + " passed, 0 failed"), out);
    }

    @Test
    void shouldDescribeAgentsAndPoolsInInfo() {
        String out = runMain("info");
        assertTrue(out.contains("Device Type:") && out.contains("GPU") && out.contains("CPU"), out);
        assertTrue(out.contains("FINE_GRAINED") && out.contains("COARSE_GRAINED") && out.contains("KERNARG"), out);
        assertTrue(out.contains("Queue Max Size:"), out);
    }

    @Test
    void shouldSayInInfoWhetherThereAreCudaAgents() {
        String out = runMain("info");
        assertTrue(out.contains("CUDA agents (HSA4J_CUDA="), out);
        assertTrue(out.contains("Agent cuda:0") || out.contains("no CUDA: "), out);
    }

    @Test
    void shouldRefuseAnUnknownExample() {
        assertEquals(2, Hsa4jMain.run(new String[] {"run", "no_such_example"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream())));
    }
}
