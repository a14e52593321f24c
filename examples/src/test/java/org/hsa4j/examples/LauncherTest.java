package org.hsa4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The launcher behind {@code ./hsa4j info|list|run|soak}: its errors are one line and its status says what failed. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LauncherTest {

    /** Runs the launcher in a JVM of its own with one extra environment variable. */
    private static String[] launch(String variable, String value, String... args) throws IOException, InterruptedException {
        // the child JVM gets this JVM's class path: that holds the launcher only where the system class
        // loader loaded it (Maven), not under a runner's own class loader (the GPU bundle's console launcher)
        Assumptions.assumeTrue(Hsa4jMain.class.getClassLoader() == ClassLoader.getSystemClassLoader(),
                "skipped: the launcher is not on this JVM's class path (a test runner's own class loader)");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Hsa4jMain.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put(variable, value);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher did not exit");
        return new String[] {Integer.toString(p.exitValue()), out, err};
    }

    @Test
    void shouldReportABadEnvironmentValueOnOneLine() throws Exception {
        String[] r = launch("HSA4J_COMPUTE_UNITS", "many", "info");
        assertEquals("2", r[0], r[2]);
        List<String> lines = r[2].lines().filter(l -> !l.startsWith("WARNING")).toList();
        assertEquals(1, lines.size(), r[2]);
        assertTrue(lines.get(0).startsWith("hsa4j: INVALID_ARGUMENT") && lines.get(0).contains("HSA4J_COMPUTE_UNITS"), r[2]);
    }

    @Test
    void shouldPrintInfoAsJson() throws Exception {
        String[] r = launch("HSA4J_GPU_AGENTS", "1", "info", "--json");
        assertEquals("0", r[0], r[2]);
        assertTrue(r[1].startsWith("{") && r[1].contains("\"HSA Agents\"") && r[1].contains("\"Uuid\""), r[1]);
    }
}
