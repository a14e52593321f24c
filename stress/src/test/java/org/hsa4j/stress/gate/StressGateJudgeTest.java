package org.hsa4j.stress.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jcstress.Options;
import org.openjdk.jcstress.infra.Status;
import org.openjdk.jcstress.infra.TestInfo;
import org.openjdk.jcstress.infra.collectors.DiskWriteCollector;
import org.openjdk.jcstress.infra.collectors.TestResult;
import org.openjdk.jcstress.infra.runners.TestConfig;
import org.openjdk.jcstress.infra.runners.TestList;

/**
 * {@code StressGate --judge FILE}: it judges the tests the result file holds, by the rules of a
 * gate run, and an empty selection fails. The result files are written with jcstress's own
 * collector, as a run writes them.
 */
class StressGateJudgeTest {
    /** A test of this jar whose outcome "1, 0" is FORBIDDEN; "0, 1" and "1, 1" are ACCEPTABLE. */
    static final String MP = "org.hsa4j.stress.litmus.MessagePassingLitmus.ReleaseAcquire";
    /** Another test of this jar that the {@code MessagePassingLitmus} regexp also selects. */
    static final String MP_RELAXED = "org.hsa4j.stress.litmus.MessagePassingLitmus.Relaxed";
    /** The examples' jcstress test: not on this class path. */
    static final String MAILBOX = "org.hsa4j.examples.stress.MailboxStress";

    @TempDir
    Path dir;

    /** The exit status and everything printed. */
    record Outcome(int status, String out) {
    }

    private Outcome gate(String... args) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = new StressGate(new PrintStream(bytes, true, StandardCharsets.UTF_8)).run(args);
        return new Outcome(status, bytes.toString(StandardCharsets.UTF_8));
    }

    /** A jcstress result of {@code test} that saw {@code states} (outcome id to count). */
    private static TestResult result(String test, Map<String, Long> states) throws IOException {
        TestInfo info = TestList.tests().contains(test) ? TestList.getInfo(test)
                : new TestInfo(test, test, "a test of another class path", test + "_jcstress", 2,
                        List.of("writer", "reader"), false);
        Options options = new Options(new String[] {"-c", "2"}); // a CPU count given spares jcstress its CPU-burning probe
        options.parse();
        TestResult r = new TestResult(Status.NORMAL);
        r.setConfig(new TestConfig(options, info, 0, List.of(), 0, null));
        states.forEach(r::addState);
        return r;
    }

    /** Writes {@code results} into a jcstress binary result file. */
    private Path resultFile(TestResult... results) throws IOException {
        Path file = dir.resolve("jcstress-results-test.bin.gz");
        DiskWriteCollector writer = new DiskWriteCollector(file.toString());
        for (TestResult r : results) {
            writer.add(r);
        }
        writer.close();
        return file;
    }

    @Test
    void shouldFailAForbiddenOutcomeInTheFile() throws Exception {
        Path file = resultFile(result(MP, Map.of("0, 1", 500L, "1, 0", 3L)));
        Outcome o = gate("--judge", file.toString(), "-t", "MessagePassingLitmus.ReleaseAcquire");
        assertEquals(1, o.status(), o.out());
        assertTrue(o.out().contains("FAIL " + MP + ": FORBIDDEN [1, 0] x3"), o.out());
        assertTrue(o.out().endsWith("0 passed, 1 failed" + System.lineSeparator()), o.out());
    }

    @Test
    void shouldFailWhenTheFilterMatchesNoTestOfTheFile() throws Exception {
        Path file = resultFile(result(MP, Map.of("0, 1", 500L)));
        Outcome o = gate("--judge", file.toString(), "-t", "NoSuchTest");
        assertEquals(1, o.status(), o.out());
        assertTrue(o.out().contains("FAIL no test in " + file + " matches -t NoSuchTest"), o.out());
        assertTrue(o.out().contains("0 passed, 1 failed"), o.out());
    }

    @Test
    void shouldFailAFileThatHoldsNoResult() throws Exception {
        Outcome o = gate("--judge", dir.resolve("missing.bin.gz").toString());
        assertEquals(1, o.status(), o.out());
        assertTrue(o.out().contains("0 passed, 1 failed"), o.out());
    }

    @Test
    void shouldFailATestOfTheFileThatThisClassPathDoesNotList() throws Exception {
        Path file = resultFile(result(MAILBOX, Map.of("42, 43", 100L, "42, 0", 2L)));
        Outcome o = gate("--judge", file.toString(), "-t", "Mailbox");
        assertEquals(1, o.status(), o.out());
        assertTrue(o.out().contains("FAIL " + MAILBOX + ": is not a test of this class path"), o.out());
        assertTrue(o.out().contains("0 passed, 1 failed"), o.out());
    }

    @Test
    void shouldJudgeOnlyTheTestsTheFileHolds() throws Exception {
        Path file = resultFile(result(MP, Map.of("0, 1", 500L, "1, 1", 20L)));
        Outcome o = gate("--judge", file.toString(), "-t", "MessagePassingLitmus");
        assertEquals(0, o.status(), o.out());
        assertTrue(o.out().contains("PASS " + MP + ": 520 samples in 1 run"), o.out());
        assertTrue(!o.out().contains(MP_RELAXED), o.out());
        assertTrue(o.out().contains("1 passed, 0 failed"), o.out());
    }

    @Test
    void shouldJudgeEveryTestOfTheFileWithoutAFilter() throws Exception {
        Path file = resultFile(result(MP, Map.of("0, 1", 500L)), result(MP_RELAXED, Map.of("1, 0", 7L)));
        Outcome o = gate("--judge", file.toString());
        assertEquals(0, o.status(), o.out());
        assertTrue(o.out().contains("PASS " + MP_RELAXED + ": 7 samples in 1 run; interesting [1, 0] x7"), o.out());
        assertTrue(o.out().contains("2 passed, 0 failed"), o.out());
    }
}
