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

    /** The output of {@code run all --small}, made once for the tests that read it. */
    private static String allSmall;

    private static synchronized String runAllSmall() {
        if (allSmall == null) {
            allSmall = runMain("run", "all", "--small");
        }
        return allSmall;
    }

    @Test
    void shouldPassEveryExampleAtSmallSize() {
        String out = runAllSmall();
        assertTrue(out.contains(Hsa4jMain.EXAMPLES.size() + " passed, 0 failed"), out);
    }

    @Test
    void shouldPrintEveryTimedExamplesFigureBesideABaseline() {
        String out = runAllSmall();
        java.util.regex.Pattern time = java.util.regex.Pattern.compile("\\d (ns|us|ms|s)\\b");
        for (Example e : Hsa4jMain.EXAMPLES) {
            java.util.List<String> mine = out.lines().filter(l -> l.startsWith(e.name() + ":")).toList();
            if (mine.stream().anyMatch(l -> time.matcher(l).find())) {
                assertTrue(mine.stream().anyMatch(l -> l.contains("baseline")),
                        () -> e.name() + " times something but names no baseline:\n" + String.join("\n", mine));
            }
        }
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

    /** Why the examples cannot run on a CUDA agent here, or null when one is present. */
    private static String noCuda() {
        org.hsa4j.cuda.CudaPlatform p = org.hsa4j.cuda.CudaPlatform.discover();
        return p.available() ? null : p.reason();
    }

    @Test
    void shouldRunAnExampleWithACudaVersionOnTheCudaAgentWhenThereIsOneAndSaySo() {
        String out = runMain("run", "sync_1way", "--small");
        if (noCuda() == null) {
            assertTrue(out.contains("== sync_1way on ") && out.contains("(CUDA agent "), out);
        } else {
            assertTrue(out.contains("== sync_1way on the CPU pool (no CUDA: "), out);
        }
        assertTrue(out.contains("1 passed, 0 failed"), out);
    }

    @Test
    void shouldRunOnTheCpuPoolWhenAskedAndSaySo() {
        String out = runMain("run", "atomic_int", "--small", "--agent", "cpu");
        assertTrue(out.contains("== atomic_int on the CPU pool (--agent cpu)") && out.contains("1 passed, 0 failed"), out);
    }

    @Test
    void shouldSayThatAnExampleWithoutACudaVersionRunsOnTheCpuPool() {
        String out = runMain("run", "heat_pde", "--small", "--agent", "auto");
        assertTrue(out.contains("== heat_pde on the CPU pool (no CUDA version)"), out);
    }

    @Test
    void shouldRefuseAgentGpuWithoutACudaAgentSayingWhy() {
        org.junit.jupiter.api.Assumptions.assumeTrue(noCuda() != null, "a CUDA agent is present");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, Hsa4jMain.run(new String[] {"run", "sync_1way", "--agent", "gpu"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--agent gpu, but there is no CUDA agent (no CUDA: "),
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRefuseAnUnknownAgentChoice() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, Hsa4jMain.run(new String[] {"run", "sync_1way", "--agent", "tpu"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("INVALID_ARGUMENT"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldChainCudaAndJavaKernelsAcrossAgentsOnTheGpu() {
        String why = noCuda();
        org.junit.jupiter.api.Assumptions.assumeTrue(why == null, () -> "no CUDA device: " + why);
        String out = runMain("run", "async_chain", "--small", "--agent", "gpu");
        assertTrue(out.contains("(CUDA agent ") && out.contains("every c[i] = 2i + 1") && out.contains("1 passed, 0 failed"),
                out);
    }

    @Test
    void shouldRunTheSyscallAndFibonacciSeedsAsCudaKernelsCallingHostServicesOnTheGpu() {
        String why = noCuda();
        org.junit.jupiter.api.Assumptions.assumeTrue(why == null, () -> "no CUDA device: " + why);
        String syscall = runMain("run", "syscall", "--small", "--agent", "gpu");
        assertTrue(syscall.contains("(CUDA agent ") && syscall.contains("every line read back as written")
                && syscall.contains("1 passed, 0 failed"), syscall);
        String fibonacci = runMain("run", "fibonacci", "--small", "--agent", "gpu");
        assertTrue(fibonacci.contains("(CUDA agent ") && fibonacci.contains("every block back")
                && fibonacci.contains("1 passed, 0 failed"), fibonacci);
    }
}
