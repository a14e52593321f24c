package org.hsa4j.stress.gate;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.infra.Status;
import org.openjdk.jcstress.infra.collectors.DiskReadCollector;
import org.openjdk.jcstress.infra.collectors.InProcessCollector;
import org.openjdk.jcstress.infra.collectors.TestResult;
import org.openjdk.jcstress.infra.grading.GradingResult;
import org.openjdk.jcstress.infra.grading.ReportUtils;
import org.openjdk.jcstress.infra.grading.TestGrading;
import org.openjdk.jcstress.infra.runners.TestList;

/**
 * The CI gate over the jcstress suite ({@code ./hsa4j stress --gate}).
 *
 * <p>jcstress alone cannot be trusted to fail a build: on a machine with fewer CPUs than a test
 * has actors it skips the test without a word, a test whose API check fails is filed as
 * "API mismatch" and left out of the error count, and a selection that matches nothing prints
 * "No matching tests" and exits 0. So the gate works out the selected tests itself (jcstress's
 * own rule: the {@code -t} regexp found in the test name), runs jcstress in a child JVM in a fresh
 * directory under a time budget, reads the binary result file jcstress leaves there with
 * jcstress's own reader, and judges every selected test: it fails when the test has no result
 * (skipped, or the run was cut off), no samples, a status other than NORMAL (an exception, a
 * crashed or hung fork, an API mismatch) or any FORBIDDEN outcome. It prints one line per test,
 * with the ACCEPTABLE_INTERESTING outcomes it saw and their counts, and ends with exactly one line
 * "N passed, N failed". The exit status is 0 only when nothing failed.
 *
 * <p>Usage: {@code StressGate [--budget SECONDS] [--dir DIR] [JCSTRESS OPTIONS]}. Without options
 * the run is quick mode ({@code -m quick}), one fork per test on the default JVM configuration
 * ({@code -sc false}, {@code -strideCount 4} and {@code -jvmArgs} set to this JVM's flags), every test in the jar; any
 * option given replaces the default of the same name. {@code StressGate --judge FILE [-t REGEXP]}
 * runs nothing and judges the result file of an earlier run (such as a full
 * {@code ./hsa4j stress} run) by the same rules: the tests judged are those the file holds (those
 * the regexp finds, when given), a test the class path does not list fails (its expectations are
 * unknown), and a selection that is empty fails.
 *
 * <p>The tests judged are those of the first {@code META-INF/TestList} on the class path (jcstress
 * reads only that one), so {@code ./hsa4j stress --gate --examples} runs this gate over the
 * examples' jcstress tests by putting their test classes first, and the gate's own classes after.
 */
public final class StressGate {
    /** Default time budget for the jcstress run. */
    static final Duration DEFAULT_BUDGET = Duration.ofSeconds(540);
    /** Default test selection: every test in the jar. */
    static final String DEFAULT_FILTER = "^org\\.hsa4j\\.";

    private final PrintStream out;

    StressGate(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        System.exit(new StressGate(System.out).run(args));
    }

    /** One test's verdict. */
    record Verdict(String test, boolean passed, String detail) {
    }

    int run(String[] args) throws IOException, InterruptedException {
        Duration budget = DEFAULT_BUDGET;
        Path dir = null;
        Path judge = null;
        List<String> jcstress = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--budget" -> budget = Duration.ofSeconds(Long.parseLong(requireValue(args, ++i, "--budget")));
                case "--dir" -> dir = Path.of(requireValue(args, ++i, "--dir"));
                case "--judge" -> judge = Path.of(requireValue(args, ++i, "--judge"));
                default -> jcstress.add(args[i]);
            }
        }
        if (judge != null) {
            return judge(judge, jcstress.contains("-t") ? valueOf(jcstress, "-t") : "");
        }
        addDefault(jcstress, "-m", "quick");
        addDefault(jcstress, "-sc", "false");
        // an epoch of at most 4 strides (1,024 samples), so a test whose samples slow to milliseconds
        // on a loaded machine (the RPC tests) still ends its epoch well inside jcstress's 30 s limit
        addDefault(jcstress, "-strideCount", "4");
        addDefault(jcstress, "-jvmArgs", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        addDefault(jcstress, "-t", DEFAULT_FILTER);
        String filter = valueOf(jcstress, "-t");

        if (dir == null) {
            dir = Path.of("stress", "target", "stress-gate",
                    LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HH-mm-ss")));
        }
        Files.createDirectories(dir);
        jcstress.add("-r");
        jcstress.add(dir.toAbsolutePath().resolve("results").toString());

        SortedSet<String> selected = select(filter);
        out.println("stress gate: " + selected.size() + " tests match -t " + filter + "; budget " + budget.toSeconds()
                + " s; jcstress " + String.join(" ", jcstress));
        out.println("stress gate: working directory " + dir.toAbsolutePath());
        if (selected.isEmpty()) {
            return failEmpty("no test matches -t " + filter + ": nothing would run");
        }

        long started = System.nanoTime();
        boolean finished = runJcstress(jcstress, dir, budget);
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        out.println();
        out.println("stress gate: jcstress " + (finished ? "finished" : "was stopped at the budget") + " after "
                + seconds + " s");

        return report(selected, readResults(dir), finished);
    }

    /**
     * Judges the tests of the result file {@code file} whose names contain a match of {@code filter}
     * (all of them for ""): the file, not the class path, says which tests ran, and a selection
     * that is empty (a wrong {@code -t}, an unreadable or empty file) fails.
     */
    private int judge(Path file, String filter) {
        Collection<TestResult> results = Files.isRegularFile(file) ? read(List.of(file)) : List.of();
        Pattern pattern = Pattern.compile(filter);
        SortedSet<String> selected = new TreeSet<>();
        for (TestResult r : results) {
            if (pattern.matcher(r.getName()).find()) {
                selected.add(r.getName());
            }
        }
        out.println("stress gate: judging " + file + ": " + results.size() + " results, " + selected.size()
                + " tests match -t " + (filter.isEmpty() ? "(any)" : filter));
        if (selected.isEmpty()) {
            return failEmpty(results.isEmpty() ? file + " holds no result (missing, empty or not a jcstress result file)"
                    : "no test in " + file + " matches -t " + filter + ": nothing to judge");
        }
        return report(selected, results, true);
    }

    /** Reports an empty selection as one failure; the exit status. */
    private int failEmpty(String why) {
        out.println("FAIL " + why);
        out.println("0 passed, 1 failed");
        return 1;
    }

    /** Prints a verdict per selected test and the final count line; the exit status. */
    private int report(SortedSet<String> selected, Collection<TestResult> results, boolean finished) {
        List<Verdict> verdicts = judge(selected, results, finished);
        int passed = 0;
        int failed = 0;
        for (Verdict v : verdicts) {
            out.println((v.passed() ? "PASS " : "FAIL ") + v.test() + (v.detail().isEmpty() ? "" : ": " + v.detail()));
            if (v.passed()) {
                passed++;
            } else {
                failed++;
            }
        }
        out.println(passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }

    private static String requireValue(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    /** Adds {@code option value} unless the option is already there. */
    static void addDefault(List<String> args, String option, String value) {
        if (!args.contains(option)) {
            args.add(option);
            args.add(value);
        }
    }

    /** The value following {@code option}. */
    static String valueOf(List<String> args, String option) {
        int i = args.lastIndexOf(option);
        return args.get(i + 1);
    }

    /** The tests of the jar that jcstress would select with {@code -t filter}. */
    static SortedSet<String> select(String filter) {
        Pattern pattern = Pattern.compile(filter);
        SortedSet<String> selected = new TreeSet<>();
        for (String test : TestList.tests()) {
            if (pattern.matcher(test).find()) {
                selected.add(test);
            }
        }
        return selected;
    }

    /** Runs jcstress in a child JVM in {@code dir}; false when it had to be stopped at the budget. */
    private boolean runJcstress(List<String> jcstressArgs, Path dir, Duration budget)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-cp");
        command.add(absoluteClassPath(System.getProperty("java.class.path")));
        command.add("org.openjdk.jcstress.Main");
        command.addAll(jcstressArgs);
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        Thread pump = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader reader = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    out.println(line);
                }
            } catch (IOException e) {
                out.println("stress gate: lost jcstress's output: " + e.getMessage());
            }
        });
        boolean finished = process.waitFor(budget.toMillis(), TimeUnit.MILLISECONDS);
        if (!finished) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
        pump.join(TimeUnit.SECONDS.toMillis(10));
        return finished;
    }

    /**
     * {@code classPath} with every entry made absolute, since the child JVM runs in another
     * directory (the examples' gate has several entries, the suite's jar one).
     */
    static String absoluteClassPath(String classPath) {
        StringJoiner absolute = new StringJoiner(File.pathSeparator);
        for (String entry : classPath.split(Pattern.quote(File.pathSeparator))) {
            if (!entry.isEmpty()) {
                absolute.add(Path.of(entry).toAbsolutePath().toString());
            }
        }
        return absolute.toString();
    }

    /** Every result in the binary result file jcstress wrote into {@code dir} (none if there is none). */
    private Collection<TestResult> readResults(Path dir) throws IOException {
        try (Stream<Path> listing = Files.list(dir)) {
            return read(listing.filter(p -> p.getFileName().toString().matches("jcstress-results-.*\\.bin\\.gz")).toList());
        }
    }

    /** Every result in the given jcstress result files; a file cut short yields what it holds. */
    private Collection<TestResult> read(List<Path> files) {
        InProcessCollector collector = new InProcessCollector();
        for (Path file : files) {
            try {
                DiskReadCollector reader = new DiskReadCollector(file.toString(), collector);
                try {
                    reader.dump();
                } finally {
                    reader.close();
                }
            } catch (IOException | ClassNotFoundException e) {
                out.println("stress gate: " + file + " is cut short (" + e + "); judging what it holds");
            }
        }
        return collector.getTestResults();
    }

    /** Judges every selected test against its results. */
    static List<Verdict> judge(SortedSet<String> selected, Collection<TestResult> results, boolean finished) {
        Map<String, List<TestResult>> byTest = new TreeMap<>();
        for (TestResult r : results) {
            byTest.computeIfAbsent(r.getName(), k -> new ArrayList<>()).add(r);
        }
        List<Verdict> verdicts = new ArrayList<>();
        for (String test : selected) {
            List<TestResult> runs = byTest.getOrDefault(test, List.of());
            verdicts.add(judge(test, runs, finished));
        }
        return verdicts;
    }

    private static Verdict judge(String test, List<TestResult> runs, boolean finished) {
        if (runs.isEmpty()) {
            return new Verdict(test, false, finished
                    ? "has no result: jcstress did not run it (more actors than CPUs, or no scheduling class)"
                    : "has no result: the run was stopped at the time budget first");
        }
        if (!TestList.tests().contains(test)) {
            return new Verdict(test, false, "is not a test of this class path, so its outcomes cannot be graded "
                    + "(judge a run of the examples' tests with --examples)");
        }
        List<String> problems = new ArrayList<>();
        long samples = 0;
        for (TestResult r : runs) {
            samples += r.getTotalCount();
            if (r.status() != Status.NORMAL) {
                problems.add(describeError(r));
            }
        }
        if (!problems.isEmpty()) {
            return new Verdict(test, false, String.join("; ", problems));
        }
        TestResult merged = ReportUtils.mergedByName(runs).get(0);
        TestGrading grading = merged.grading();
        Map<String, Long> forbidden = new TreeMap<>();
        Map<String, Long> interesting = new TreeMap<>();
        for (GradingResult g : grading.gradingResults.values()) {
            if (g.count > 0 && g.expect == Expect.FORBIDDEN) {
                forbidden.merge(g.id, g.count, Long::sum);
            } else if (g.count > 0 && g.expect == Expect.ACCEPTABLE_INTERESTING) {
                interesting.merge(g.id, g.count, Long::sum);
            }
        }
        if (samples == 0) {
            return new Verdict(test, false, "ran but recorded no samples");
        }
        if (!forbidden.isEmpty() || !grading.isPassed) {
            String what = forbidden.isEmpty() ? String.join("; ", grading.failureMessages) : "FORBIDDEN " + counts(forbidden);
            return new Verdict(test, false, String.format("%s in %,d samples", what, samples));
        }
        String detail = String.format("%,d samples in %d run%s", samples, runs.size(), runs.size() == 1 ? "" : "s");
        if (!interesting.isEmpty()) {
            detail += "; interesting " + counts(interesting);
        }
        return new Verdict(test, true, detail);
    }

    private static String describeError(TestResult r) {
        StringBuilder s = new StringBuilder(r.status().toString());
        if (r.status() == Status.API_MISMATCH) {
            s.append(" (the test did not run: its API check failed)");
        }
        int lines = 0;
        for (String m : r.getMessages()) {
            if (lines++ == 3) {
                s.append(" ...");
                break;
            }
            s.append(lines == 1 ? ": " : " | ").append(m.strip());
        }
        return s.toString();
    }

    private static String counts(Map<String, Long> outcomes) {
        StringBuilder s = new StringBuilder();
        outcomes.forEach((id, n) -> s.append(s.isEmpty() ? "" : ", ").append('[').append(id).append("] x")
                .append(String.format("%,d", n)));
        return s.toString();
    }
}
