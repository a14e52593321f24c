package org.hsa4j.benchmarks.report;

import java.awt.Color;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

import org.hsa4j.benchmarks.report.Figure.Source;
import org.hsa4j.benchmarks.report.JmhResult.Metric;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;

import joptsimple.OptionException;
import joptsimple.OptionParser;
import joptsimple.OptionSet;
import joptsimple.OptionSpec;

/**
 * Runs JMH and writes docs/PERFORMANCE.md from its results: the machine, the exact command, a summary
 * table of every {@link Figure} (value, baseline from the same run, ratio, goal with its issue,
 * met or not), then per figure its detail (for SampleTime latencies the distribution: mean,
 * median, p90, p99, p99.9, p99.99, max), the scaling curves (vector add and dispatch throughput
 * against compute units and problem size, as tables), the run settings of every benchmark, and what
 * each benchmark measures.
 *
 * <p>Which number a figure is judged on: a SampleTime latency by its median (on a shared 2-core
 * machine the mean of a sub-microsecond round trip is dominated by the rare times a thread is
 * descheduled, which the tail rows show separately); a throughput or single-shot score by JMH's
 * score; an {@code @AuxCounters} value by its mean over all measured iterations of all forks (JMH
 * itself sums such counters over iterations, so its "score" for them is not used).
 *
 * <p>A run with one measured iteration per benchmark (what {@code ./hsa4j bench --quick} does) or
 * started with {@code --smoke} is headed as a provisional smoke run.
 *
 * <p>It runs JMH itself ({@link Runner}) and reads the {@link RunResult}s JMH hands back, so there
 * is no JSON to parse; the JSON file JMH writes with {@code -rf json -rff FILE} is for other tools.
 *
 * <pre>usage: PerformanceReport --report OUTPUT.md [--command CMD] [--smoke] -- JMH ARGS...</pre>
 */
public final class PerformanceReport {
    private static final double[] PERCENTILES = {50.0, 90.0, 99.0, 99.9, 99.99, 100.0};

    /** What each benchmark class measures, for the report's last section. */
    private static final Map<String, String> MEASURES = descriptions();

    private final List<JmhResult> results;
    private final String resultsPath;
    private final String command;
    private final String jmhCommand;
    private final boolean smoke;
    private final String load;
    /** {@link CrossCoreProbe}'s readings before and after the run, or null. */
    private final String crossCore;
    private String verdict = "";
    /** True once {@link #PLOT_FILE} was written beside the report for this run. */
    private boolean plotted;
    /** The compute-unit curves as a PNG, written beside the report. */
    static final String PLOT_FILE = "compute-units.png";

    private PerformanceReport(List<JmhResult> results, String resultsPath, String command, String jmhCommand,
                              boolean smoke, String load, String crossCore) {
        this.load = load;
        this.crossCore = crossCore;
        this.results = results;
        this.resultsPath = resultsPath;
        this.command = command;
        this.jmhCommand = jmhCommand;
        // every entry, not any: a full run has single-shot entries of one fork too (Aparapi's tiled matmul)
        this.smoke = smoke || !results.isEmpty()
                && results.stream().allMatch(r -> r.measurementIterations() <= 1 && r.forks() <= 1);
    }

    /**
     * Runs JMH in this JVM with the arguments after {@code --} (JMH's own command line, parsed by
     * JMH) and writes the Markdown report of the results it hands back to {@code --report}.
     */
    public static void main(String[] args) throws Exception {
        OptionParser parser = new OptionParser();
        OptionSpec<String> reportOpt = parser.accepts("report", "where the Markdown report goes")
                .withRequiredArg().required();
        OptionSpec<String> commandOpt = parser.accepts("command", "the command line the user typed, for the report")
                .withRequiredArg();
        OptionSpec<Void> smokeOpt = parser.accepts("smoke", "head the report as a provisional smoke run");
        OptionSpec<String> jmhArgs = parser.nonOptions("JMH's arguments, after --");
        OptionSet options;
        try {
            options = parser.parse(args);
        } catch (OptionException e) {
            System.err.println("hsa4j bench: " + e.getMessage());
            parser.printHelpOn(System.err);
            System.exit(2);
            return;
        }
        String[] jmh = options.valuesOf(jmhArgs).toArray(String[]::new);
        CommandLineOptions jmhOptions;
        try {
            jmhOptions = new CommandLineOptions(jmh);
        } catch (CommandLineOptionException e) {
            System.err.println("hsa4j bench: " + e.getMessage());
            System.exit(2);
            return;
        }
        String loadBefore = loadAverage();
        String crossCoreBefore = CrossCoreProbe.measure();
        Collection<RunResult> runs = new Runner(jmhOptions).run();
        String load = loadBefore + " before the run, " + loadAverage() + " after";
        String crossCore = crossCoreBefore + " before the run, " + CrossCoreProbe.measure() + " after";
        if (runs.isEmpty()) {
            System.err.println("hsa4j bench: JMH ran no benchmark");
            System.exit(1);
        }
        String resultsPath = jmhOptions.getResult().orElse("(in-process JMH results)");
        PerformanceReport report = new PerformanceReport(JmhResult.ofAll(runs), resultsPath,
                options.valueOf(commandOpt), equivalentCommand(jmh), options.has(smokeOpt), load, crossCore);
        Path out = Path.of(options.valueOf(reportOpt));
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        report.plotted = report.plotComputeUnits(out.resolveSibling(PLOT_FILE));
        Files.writeString(out, report.render() + keptSection(out));
        System.out.println("hsa4j: wrote " + out + ": " + report.verdict + (report.smoke ? " (smoke run)" : ""));
    }

    /** Marks the start of a hand-recorded part of the report that every regeneration keeps. */
    static final String KEPT_MARKER = "<!-- kept by PerformanceReport: hand-recorded A/B runs below -->";

    /**
     * The hand-recorded part of an existing report: its text from {@link #KEPT_MARKER} on, with a
     * blank line before it, or nothing. A/B comparisons of two builds (two jars, one run each)
     * cannot come from one JMH run, so they live there and survive a new full run.
     */
    static String keptSection(Path existing) throws IOException {
        if (!Files.exists(existing)) {
            return "";
        }
        String text = Files.readString(existing);
        int at = text.indexOf(KEPT_MARKER);
        return at < 0 ? "" : "\n" + text.substring(at);
    }

    /** The plain JMH command that runs the same benchmarks with the same JVM flags. */
    private static String equivalentCommand(String[] jmh) {
        List<String> words = new ArrayList<>(List.of("java"));
        words.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        words.add("-jar");
        words.add("benchmarks/target/benchmarks.jar");
        words.addAll(List.of(jmh));
        return String.join(" ", words);
    }

    /** The 1, 5 and 15 minute load averages as /proc/loadavg gives them, or "unknown". */
    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    // ---- rendering ------------------------------------------------------------------------------

    String render() {
        StringBuilder md = new StringBuilder();
        md.append("# hsa4j performance\n\n");
        if (smoke) {
            md.append("> **PROVISIONAL: smoke run.** These numbers come from a quick run (1 fork, one short\n"
                    + "> warmup and measurement iteration per benchmark). They only show that every benchmark\n"
                    + "> runs; they are not measurements. Regenerate this file from a full run: `./hsa4j bench`.\n");
            if (load != null) {
                md.append("> Load average (1, 5, 15 min) on this machine: ").append(load).append(".\n");
            }
            md.append('\n');
        }
        md.append("Generated ").append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
                .append(" by `org.hsa4j.benchmarks.report.PerformanceReport` from the results of the JMH run it started\n(JMH's JSON of the same run: `").append(resultsPath)
                .append("`).\nEvery baseline was measured in the same JMH run as the figure it judges, so both saw the same\n"
                        + "machine, load and JIT. Goals come from the issue named beside them.\n\n");
        md.append("How to read it:\n\n"
                + "- Round trips are JMH SampleTime distributions. A round-trip goal is judged on the median: on a\n"
                + "  2-core machine the mean of a sub-microsecond round trip is dominated by the rare times a thread\n"
                + "  is descheduled, which the mean, p99, p99.9 and max rows of each figure show separately.\n"
                + "- Throughputs are JMH scores (packets or tasks per second, 256 per invocation).\n"
                + "- Idle CPU and footprints are JMH auxiliary counters, one value per single-shot iteration; the\n"
                + "  figure is their mean over all iterations of all forks (min and max are in its detail).\n"
                + "- Scaling rows are information (short runs: one fork, three 0.5 s iterations per configuration):\n"
                + "  2 compute units against 1; the whole curve is in the tables under \"Scaling curves\".\n"
                + "- Ratio is value / baseline; \"-\" where the baseline is 0 or missing.\n\n");
        machine(md);
        summary(md);
        details(md);
        scalingCurves(md);
        settings(md);
        measures(md);
        return md.toString();
    }

    private void machine(StringBuilder md) {
        JmhResult any = results.isEmpty() ? null : results.get(0);
        md.append("## Machine and command\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| CPU | ").append(cpuModel()).append(", ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores available to the JVM |\n");
        md.append("| Memory | ").append(totalMemory()).append(" |\n");
        md.append("| OS | ").append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"))
                .append(" (").append(System.getProperty("os.arch")).append(") |\n");
        if (any != null) {
            md.append("| JDK | ").append(any.vm().jdkVersion()).append(", ").append(any.vm().vmName()).append(' ')
                    .append(any.vm().vmVersion()).append(" |\n");
            md.append("| JVM arguments | `").append(String.join(" ", any.vm().jvmArgs())).append("` |\n");
            md.append("| JMH | ").append(any.vm().jmhVersion()).append(" |\n");
        }
        if (load != null) {
            md.append("| Load average (1, 5, 15 min) | ").append(load).append(" |\n");
        }
        if (crossCore != null) {
            md.append("| Cross-core round trip (two spinning threads, median of ten 50 ms windows; about 100 ns or 420 ns on "
                    + "this VM by where its vCPUs sit, see CrossCoreProbe) | ").append(crossCore).append(" |\n");
        }
        md.append("| Command | `").append(command != null ? command : "(not recorded)").append("` |\n");
        if (jmhCommand != null) {
            md.append("| JMH command | `").append(jmhCommand).append("` |\n");
        }
        md.append('\n');
    }

    private void summary(StringBuilder md) {
        md.append("## Summary\n\n");
        md.append("| Figure | Value | Baseline | Ratio | Goal (issue) | Met |\n");
        md.append("|---|---:|---:|---:|---|---|\n");
        int met = 0;
        int missed = 0;
        int notRun = 0;
        for (Figure f : Figure.ALL) {
            JmhResult v = find(f.value());
            JmhResult b = f.baseline() == null ? null : find(f.baseline());
            double value = v == null ? Double.NaN : judged(v, f.value());
            double base = b == null ? Double.NaN : judged(b, f.baseline());
            String unit = v == null ? "" : unit(v, f.value());
            Boolean ok = f.goal().met(value, base);
            if (v == null) {
                notRun++;
            } else if (ok != null) {
                if (ok) {
                    met++;
                } else {
                    missed++;
                }
            }
            md.append("| ").append(f.name()).append(judgedNote(v, f.value()))
                    .append(" | ").append(v == null ? "not run" : format(value, unit))
                    .append(" | ").append(f.baseline() == null ? "-" : b == null ? "not run" : format(base, unit))
                    .append(" | ").append(ratio(value, base))
                    .append(" | ").append(f.goal().text()).append(f.goal().kind() == Figure.Kind.NONE ? "" : " (" + f.issue() + ")")
                    .append(" | ").append(v == null ? "not run" : ok == null ? "-" : ok ? "yes" : "**no**")
                    .append(" |\n");
        }
        verdict = met + " goals met, " + missed + " missed, " + notRun + " figures not run";
        md.append("\n").append(verdict).append(smoke ? " (smoke run: not meaningful)" : "").append(".\n\n");
    }

    private static String judgedNote(JmhResult r, Source s) {
        if (r != null && s.counter() == null && "sample".equals(r.mode())) {
            return " (median)";
        }
        return "";
    }

    private void details(StringBuilder md) {
        String section = null;
        for (Figure f : Figure.ALL) {
            if (!f.section().equals(section)) {
                section = f.section();
                md.append("## ").append(section).append("\n\n");
            }
            JmhResult v = find(f.value());
            JmhResult b = f.baseline() == null ? null : find(f.baseline());
            md.append("### ").append(f.name()).append("\n\n");
            md.append("Value: `").append(f.value().label()).append('`');
            if (f.baseline() != null) {
                md.append("; baseline: `").append(f.baseline().label()).append('`');
            }
            md.append("; goal: ").append(f.goal().text());
            if (f.goal().kind() != Figure.Kind.NONE) {
                md.append(" (issue ").append(f.issue()).append(')');
            }
            md.append(".\n\n");
            if (v == null) {
                md.append("Not run.\n\n");
                continue;
            }
            String unit = unit(v, f.value());
            md.append("| Statistic | Value | Baseline | Ratio |\n|---|---:|---:|---:|\n");
            Metric vm = metric(v, f.value());
            Metric bm = b == null ? null : metric(b, f.baseline());
            if (f.value().counter() == null && "sample".equals(v.mode())) {
                row(md, "mean ± 99.9% error", vm.score(), vm.scoreError(), bm == null ? Double.NaN : bm.score(),
                        bm == null ? Double.NaN : bm.scoreError(), unit);
                for (double p : PERCENTILES) {
                    row(md, p == 100.0 ? "max" : p == 50.0 ? "median (p50)" : "p" + trim(p), vm.percentile(p), Double.NaN,
                            bm == null ? Double.NaN : bm.percentile(p), Double.NaN, unit);
                }
                md.append("| samples | ").append(vm.samples()).append(" | ").append(bm == null ? "-" : bm.samples())
                        .append(" | |\n");
            } else if (f.value().counter() == null) {
                row(md, "score ± 99.9% error", vm.score(), vm.scoreError(), bm == null ? Double.NaN : bm.score(),
                        bm == null ? Double.NaN : bm.scoreError(), unit);
            } else {
                row(md, "mean over iterations", vm.iterationMean(), Double.NaN,
                        bm == null ? Double.NaN : bm.iterationMean(), Double.NaN, unit);
                row(md, "min", min(vm.iterations()), Double.NaN, bm == null ? Double.NaN : min(bm.iterations()),
                        Double.NaN, unit);
                row(md, "max", max(vm.iterations()), Double.NaN, bm == null ? Double.NaN : max(bm.iterations()),
                        Double.NaN, unit);
                md.append("| iterations | ").append(vm.iterations().size()).append(" | ")
                        .append(bm == null ? "-" : bm.iterations().size()).append(" | |\n");
            }
            md.append('\n');
        }
    }

    private static final String SCALING_AMP = "VectorAddScalingBenchmark.ampParallelForEach";
    private static final String SCALING_FLOOR = "VectorAddScalingBenchmark.sequentialSegmentPass";
    private static final String SCALING_DISPATCH = "DispatchScalingBenchmark.batch";
    private static final String SCALING_REAL_WORK = "DispatchScalingBenchmark.realWork";
    private static final String EXECUTOR_BATCH = "ExecutorBaselineBenchmark.executeBatch";
    /** DispatchScalingBenchmark's counters shown per packet. */
    private static final String[] DISPATCH_COUNTERS = {"wakeUps", "roleHandoffs", "casRetries", "parks"};

    /**
     * The scaling results as two compact tables (a curve in rows and columns): vector add time per
     * op and elements/s for every size and compute-unit count beside the sequential floor at the same
     * size, and dispatch packets/s for every compute-unit count. Whatever sizes and counts the run
     * had are shown, so a machine with more processors gets more columns.
     */
    private void scalingCurves(StringBuilder md) {
        Set<Integer> units = new TreeSet<>();
        Set<Long> sizes = new TreeSet<>();
        for (JmhResult r : results) {
            if (r.benchmark().equals(SCALING_AMP) || r.benchmark().equals(SCALING_DISPATCH)) {
                units.add(Integer.valueOf(r.params().get("computeUnits")));
            }
            if (r.benchmark().equals(SCALING_AMP) || r.benchmark().equals(SCALING_FLOOR)) {
                sizes.add(Long.valueOf(r.params().get("elements")));
            }
        }
        if (units.isEmpty() && sizes.isEmpty()) {
            return;
        }
        md.append("## Scaling curves\n\n");
        if (!sizes.isEmpty()) {
            md.append("Vector add c = a + b over floats through `parallelForEach` (one dispatch per op, waited for), "
                    + "time per op and elements per second, against the GPU agent's compute units and the vector "
                    + "size; beside it one sequential pass over off-heap segments of the same size (the floor). "
                    + "Last column: the floor's time / the best time through the runtime (> 1: faster than the "
                    + "floor).\n\n");
            md.append("| Elements | sequential pass |");
            for (int u : units) {
                md.append(' ').append(u).append(u == 1 ? " compute unit" : " compute units").append(" |");
            }
            md.append(" floor / best |\n|---:|---:|");
            md.append("---:|".repeat(units.size())).append("---:|\n");
            for (long n : sizes) {
                JmhResult floor = findScaling(SCALING_FLOOR, n, -1);
                double floorNs = floor == null ? Double.NaN : floor.primary().score();
                md.append("| ").append(String.format(Locale.ROOT, "%,d", n)).append(" | ").append(perElement(floorNs, n));
                double best = Double.NaN;
                for (int u : units) {
                    JmhResult r = findScaling(SCALING_AMP, n, u);
                    double ns = r == null ? Double.NaN : r.primary().score();
                    md.append(" | ").append(perElement(ns, n));
                    if (!Double.isNaN(ns) && (Double.isNaN(best) || ns < best)) {
                        best = ns;
                    }
                }
                md.append(" | ").append(ratio(floorNs, best)).append(" |\n");
            }
            md.append('\n');
        }
        boolean dispatch = results.stream().anyMatch(r -> r.benchmark().equals(SCALING_DISPATCH));
        if (dispatch) {
            md.append("Empty-kernel dispatch throughput (256 empty 1-work-item dispatches per doorbell, packets/s) "
                    + "against the GPU agent's compute units, against 1 compute unit and against "
                    + "`ExecutorBaselineBenchmark.executeBatch` of the same run (issue 20's goals: >= 0.9x one unit "
                    + "and >= 1.5x executeBatch at every count); the work per packet the counters saw; and a dispatch "
                    + "of 64 workgroups of about 20 us each (`realWork`, dispatches/s; goal: 2 units >= 1.8x one).\n\n");
            md.append("| |");
            for (int u : units) {
                md.append(' ').append(u).append(u == 1 ? " compute unit" : " compute units").append(" |");
            }
            md.append("\n|---|").append("---:|".repeat(units.size())).append('\n');
            JmhResult one = findScaling(SCALING_DISPATCH, -1, 1);
            double base = one == null ? Double.NaN : one.primary().score();
            JmhResult executor = find(Source.primary(EXECUTOR_BATCH, ""));
            double executorRate = executor == null ? Double.NaN : executor.primary().score();
            JmhResult workOne = findScaling(SCALING_REAL_WORK, -1, 1);
            double workBase = workOne == null ? Double.NaN : workOne.primary().score();
            StringBuilder rates = new StringBuilder("| packets/s |");
            StringBuilder ratios = new StringBuilder("| against 1 compute unit |");
            StringBuilder executorRatios = new StringBuilder("| against executeBatch |");
            StringBuilder work = new StringBuilder("| 64 workgroups of ~20 us, against 1 compute unit |");
            StringBuilder[] perPacket = new StringBuilder[DISPATCH_COUNTERS.length];
            for (int c = 0; c < perPacket.length; c++) {
                perPacket[c] = new StringBuilder("| " + DISPATCH_COUNTERS[c] + " per packet |");
            }
            for (int u : units) {
                JmhResult r = findScaling(SCALING_DISPATCH, -1, u);
                double v = r == null ? Double.NaN : r.primary().score();
                rates.append(' ').append(r == null ? "not run" : format(v, r.primary().unit())).append(" |");
                ratios.append(' ').append(ratio(v, base)).append(" |");
                executorRatios.append(' ').append(ratio(v, executorRate)).append(" |");
                JmhResult w = findScaling(SCALING_REAL_WORK, -1, u);
                work.append(' ').append(ratio(w == null ? Double.NaN : w.primary().score(), workBase)).append(" |");
                for (int c = 0; c < perPacket.length; c++) {
                    perPacket[c].append(' ').append(perPacket(r, DISPATCH_COUNTERS[c])).append(" |");
                }
            }
            md.append(rates).append('\n').append(ratios).append('\n').append(executorRatios).append('\n');
            for (StringBuilder row : perPacket) {
                md.append(row).append('\n');
            }
            md.append(work).append("\n\n");
        }
        if (plotted) {
            md.append("The same curves as a plot (").append(PLOT_FILE).append(", written by this run):\n\n![compute units](")
                    .append(PLOT_FILE).append(")\n\n");
        }
    }

    /** {@code counter} of {@code r} divided by its packets counter, or "-" where either is missing. */
    private static String perPacket(JmhResult r, String counter) {
        if (r == null || r.secondary().get(counter) == null || r.secondary().get("packets") == null) {
            return "-";
        }
        double packets = r.secondary().get("packets").score();
        return packets > 0 ? String.format(Locale.ROOT, "%.4f", r.secondary().get(counter).score() / packets) : "-";
    }

    /**
     * Draws the compute-unit curves of this run to {@code png}: dispatch throughput beside
     * executeBatch and the goal lines, and every curve against its 1-unit figure. False (and no
     * file) when the run had no scaling benchmark.
     */
    boolean plotComputeUnits(Path png) throws IOException {
        SortedMap<Integer, Double> batch = new TreeMap<>();
        SortedMap<Integer, Double> batchRatio = new TreeMap<>();
        SortedMap<Integer, Double> workRatio = new TreeMap<>();
        SortedMap<Integer, Double> vectorRatio = new TreeMap<>();
        JmhResult one = findScaling(SCALING_DISPATCH, -1, 1);
        JmhResult workOne = findScaling(SCALING_REAL_WORK, -1, 1);
        long largest = results.stream().filter(r -> r.benchmark().equals(SCALING_AMP))
                .mapToLong(r -> Long.parseLong(r.params().get("elements"))).max().orElse(-1);
        JmhResult vectorOne = largest < 0 ? null : findScaling(SCALING_AMP, largest, 1);
        for (JmhResult r : results) {
            String cu = r.params().get("computeUnits");
            if (cu == null) {
                continue;
            }
            int u = Integer.parseInt(cu);
            double v = r.primary().score();
            if (r.benchmark().equals(SCALING_DISPATCH)) {
                batch.put(u, v / 1e6);
                if (one != null) {
                    batchRatio.put(u, v / one.primary().score());
                }
            } else if (r.benchmark().equals(SCALING_REAL_WORK) && workOne != null) {
                workRatio.put(u, v / workOne.primary().score());
            } else if (r.benchmark().equals(SCALING_AMP) && vectorOne != null
                    && String.valueOf(largest).equals(r.params().get("elements"))) {
                vectorRatio.put(u, vectorOne.primary().score() / v);
            }
        }
        SortedMap<Integer, Double> allUnits = new TreeMap<>(batch);
        allUnits.putAll(workRatio);
        allUnits.putAll(vectorRatio);
        JmhResult executor = find(Source.primary(EXECUTOR_BATCH, ""));
        List<ScalingPlot.Series> throughput = new ArrayList<>();
        throughput.add(new ScalingPlot.Series("hsa4j, 256 empty dispatches per doorbell", new Color(0, 90, 180), false, batch));
        if (executor != null) {
            double e = executor.primary().score() / 1e6;
            throughput.add(new ScalingPlot.Series("ExecutorService executeBatch (baseline)", Color.GRAY, true,
                    flat(allUnits, e)));
            throughput.add(new ScalingPlot.Series("goal: 1.5x executeBatch", new Color(200, 60, 40), true,
                    flat(allUnits, 1.5 * e)));
        }
        if (one != null) {
            throughput.add(new ScalingPlot.Series("goal: 0.9x one unit", new Color(230, 150, 30), true,
                    flat(allUnits, 0.9 * one.primary().score() / 1e6)));
        }
        List<ScalingPlot.Series> relative = new ArrayList<>();
        relative.add(new ScalingPlot.Series("empty dispatches", new Color(0, 90, 180), false, batchRatio));
        relative.add(new ScalingPlot.Series("64 workgroups of ~20 us", new Color(30, 150, 60), false, workRatio));
        relative.add(new ScalingPlot.Series(String.format(Locale.ROOT, "vector add, %,d floats", largest),
                new Color(140, 60, 160), false, vectorRatio));
        relative.add(new ScalingPlot.Series("goal for 64 workgroups at 2 units: 1.8x", new Color(200, 60, 40), true,
                flat(allUnits, 1.8)));
        relative.add(new ScalingPlot.Series("goal for empty dispatches: 0.9x", new Color(230, 150, 30), true,
                flat(allUnits, 0.9)));
        return ScalingPlot.write(png, List.of(
                new ScalingPlot.Panel("Dispatch throughput against compute units", "M packets/s", throughput),
                new ScalingPlot.Panel("Against 1 compute unit (> 1: faster)", "speed-up", relative)));
    }

    /** {@code value} at every unit count of {@code units}: a horizontal line. */
    private static SortedMap<Integer, Double> flat(SortedMap<Integer, Double> units, double value) {
        SortedMap<Integer, Double> line = new TreeMap<>();
        for (Integer u : units.keySet()) {
            line.put(u, value);
        }
        return line;
    }

    /** The entry of {@code benchmark} with {@code elements} and {@code computeUnits} (-1: not a parameter). */
    private JmhResult findScaling(String benchmark, long elements, int computeUnits) {
        for (JmhResult r : results) {
            if (r.benchmark().equals(benchmark)
                    && (elements < 0 || String.valueOf(elements).equals(r.params().get("elements")))
                    && (computeUnits < 0 || String.valueOf(computeUnits).equals(r.params().get("computeUnits")))) {
                return r;
            }
        }
        return null;
    }

    /** "time (elements/s)" for one op of {@code ns} nanoseconds over {@code n} elements. */
    private static String perElement(double ns, long n) {
        if (Double.isNaN(ns)) {
            return "not run";
        }
        double perSecond = n / (ns / 1e9);
        String rate = perSecond >= 1e9 ? String.format(Locale.ROOT, "%.2f G/s", perSecond / 1e9) : rate(perSecond);
        return time(ns) + " (" + rate + ")";
    }

    private static void row(StringBuilder md, String label, double v, double vErr, double b, double bErr, String unit) {
        md.append("| ").append(label).append(" | ").append(format(v, unit));
        if (!Double.isNaN(vErr)) {
            md.append(" ± ").append(format(vErr, unit));
        }
        md.append(" | ").append(format(b, unit));
        if (!Double.isNaN(bErr) && !Double.isNaN(b)) {
            md.append(" ± ").append(format(bErr, unit));
        }
        md.append(" | ").append(ratio(v, b)).append(" |\n");
    }

    private void settings(StringBuilder md) {
        md.append("## Run settings\n\n");
        md.append("Every benchmark entry of the run, with JMH's own score (for SampleTime the mean).\n\n");
        md.append("| Benchmark | Params | Mode | Forks | Warmup | Measurement | Samples | JMH score |\n");
        md.append("|---|---|---|---:|---|---|---:|---:|\n");
        for (JmhResult r : results) {
            md.append("| ").append(r.benchmark()).append(" | ").append(r.params().isEmpty() ? "-" : paramString(r.params()))
                    .append(" | ").append(r.mode()).append(" | ").append(r.forks())
                    .append(" | ").append(iterations(r, r.warmupIterations(), r.warmupTime()))
                    .append(" | ").append(iterations(r, r.measurementIterations(), r.measurementTime()))
                    .append(" | ").append(r.primary().samples())
                    .append(" | ").append(format(r.primary().score(), r.primary().unit()))
                    .append(Double.isNaN(r.primary().scoreError()) ? "" : " ± " + format(r.primary().scoreError(), r.primary().unit()))
                    .append(" |\n");
        }
        md.append('\n');
    }

    private static String iterations(JmhResult r, int count, String time) {
        return "ss".equals(r.mode()) ? count + " single shot" + (count == 1 ? "" : "s") : count + " x " + time;
    }

    private void measures(StringBuilder md) {
        md.append("## What each benchmark measures\n\n");
        Set<String> classes = new LinkedHashSet<>(MEASURES.keySet());
        for (String c : classes) {
            md.append("- **").append(c).append("**: ").append(MEASURES.get(c)).append('\n');
        }
        md.append("\nThe long comment at the top of each class in `benchmarks/src/main/java/org/hsa4j/benchmarks`\n"
                + "says what it measures and why the comparison is fair.\n");
    }

    // ---- numbers --------------------------------------------------------------------------------

    private JmhResult find(Source s) {
        for (JmhResult r : results) {
            if (r.benchmark().equals(s.benchmark()) && matches(r.params(), s.params())) {
                return r;
            }
        }
        return null;
    }

    private static boolean matches(Map<String, String> params, String wanted) {
        if (wanted.isEmpty()) {
            return true;
        }
        for (String pair : wanted.split(",")) {
            String[] kv = pair.split("=", 2);
            if (!kv[1].equals(params.get(kv[0]))) {
                return false;
            }
        }
        return true;
    }

    private static Metric metric(JmhResult r, Source s) {
        if (s.counter() == null) {
            return r.primary();
        }
        Metric m = r.secondary().get(s.counter());
        if (m == null) {
            throw new IllegalStateException(r.benchmark() + " has no counter " + s.counter());
        }
        return m;
    }

    /** The number a figure is judged on (see the class comment). */
    private static double judged(JmhResult r, Source s) {
        Metric m = metric(r, s);
        if (s.counter() != null) {
            return m.iterationMean();
        }
        if ("sample".equals(r.mode())) {
            return m.percentile(50.0);
        }
        return m.score();
    }

    private static String unit(JmhResult r, Source s) {
        if (s.counter() == null) {
            return r.primary().unit();
        }
        String c = s.counter().toLowerCase(Locale.ROOT);
        if (c.contains("percent")) {
            return "%";
        }
        if (c.contains("bytes")) {
            return "B";
        }
        return "";
    }

    private static String ratio(double v, double b) {
        if (Double.isNaN(v) || Double.isNaN(b) || b == 0) {
            return "-";
        }
        double r = v / b;
        return String.format(Locale.ROOT, r >= 100 ? "%.0fx" : r >= 10 ? "%.1fx" : r >= 0.1 ? "%.2fx" : "%.4fx", r);
    }

    static String format(double v, String unit) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return switch (unit) {
            case "ns/op" -> time(v);
            case "ops/s" -> rate(v);
            case "ms/op" -> String.format(Locale.ROOT, "%.1f ms", v);
            case "%" -> String.format(Locale.ROOT, "%.2f%%", v);
            case "B" -> bytes(v);
            default -> Math.abs(v - Math.rint(v)) < 1e-9 ? String.format(Locale.ROOT, "%,.0f", v)
                    : String.format(Locale.ROOT, "%,.2f", v) + (unit.isEmpty() ? "" : " " + unit);
        };
    }

    private static String time(double ns) {
        if (ns < 10_000) {
            return String.format(Locale.ROOT, "%,.0f ns", ns);
        }
        if (ns < 1_000_000) {
            return String.format(Locale.ROOT, "%,.1f \u00b5s", ns / 1e3);
        }
        return String.format(Locale.ROOT, "%,.2f ms", ns / 1e6);
    }

    private static String rate(double perSecond) {
        if (perSecond >= 1e6) {
            return String.format(Locale.ROOT, "%.2f M/s", perSecond / 1e6);
        }
        if (perSecond >= 1e3) {
            return String.format(Locale.ROOT, "%.1f k/s", perSecond / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f /s", perSecond);
    }

    private static String bytes(double b) {
        if (Math.abs(b) < 10_000) {
            return String.format(Locale.ROOT, Math.abs(b - Math.rint(b)) < 0.05 ? "%,.0f B" : "%,.1f B", b);
        }
        if (Math.abs(b) < 1 << 20) {
            return String.format(Locale.ROOT, "%,.0f B (%.1f KiB)", b, b / 1024);
        }
        return String.format(Locale.ROOT, "%,.0f B (%.1f MiB)", b, b / (1 << 20));
    }

    private static String trim(double p) {
        return p == Math.rint(p) ? String.valueOf((long) p) : String.valueOf(p);
    }

    private static double min(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    private static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    private static String paramString(Map<String, String> params) {
        List<String> parts = new ArrayList<>();
        params.forEach((k, v) -> parts.add(k + "=" + v));
        return String.join(", ", parts);
    }

    // ---- machine --------------------------------------------------------------------------------

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: fall through to the architecture
        }
        return System.getProperty("os.arch");
    }

    private static String totalMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return String.format(Locale.ROOT, "%.1f GiB", os.getTotalMemorySize() / (double) (1L << 30));
        }
        return "?";
    }

    private static Map<String, String> descriptions() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("RawPingPongBenchmark", "BASELINE. One round trip of one off-heap cache line between two threads "
                + "(release store, acquire load, VarHandles over a MemorySegment): the floor for every round trip.");
        m.put("ExecutorBaselineBenchmark", "BASELINES. A single-thread ExecutorService: submit(noop).get(); "
                + "CompletableFuture.runAsync(noop, executor).join(); and 256 no-op tasks per batch, the last waited for "
                + "(tasks/s).");
        m.put("DispatchRoundTripBenchmark", "One empty 1-work-item kernel dispatch through the raw AQL protocol "
                + "(re-arm the signal, reserve the id, write the body, publish the header with the release store, "
                + "ring the doorbell, wait for the completion signal), with ACTIVE and with BLOCKED waits.");
        m.put("FidelityBenchmark", "Memory-model fidelity mode off and on: one vector-add dispatch over 1M "
                + "fine-grained floats through FloatViews (1024 elements per work-item, SYSTEM fences), and the empty "
                + "1-work-item dispatch round trip with an ACTIVE wait.");
        m.put("SignalPingPongBenchmark", "A persistent 1-work-item kernel answers each new value of signal A by "
                + "storing it into signal B, through the Signal API on both sides; one op is one host round trip.");
        m.put("BatchedPacketsBenchmark", "256 packets per doorbell into a 1024-slot queue, completion signal on the "
                + "last packet only; barrier-AND packets with no dependencies, and empty-kernel dispatches (the last "
                + "one with the barrier bit). Packets/s.");
        m.put("IdleCostBenchmark", "An initialized runtime (1 GPU agent, 1 queue) left idle for 1 s: process CPU "
                + "and the runtime threads' CPU as % of one core, off-heap bytes, heap retained after GC, threads. "
                + "Baseline: an idle started thread pool of as many threads.");
        m.put("DisruptorPingPongBenchmark", "BASELINE (information). One round trip through an LMAX Disruptor 4 "
                + "1P-1C pair of rings (ping ring consumed by a BatchEventProcessor that publishes on the pong ring), "
                + "bounded yielding waits with the raw ping-pong's spin/yield/park phases. Not DESIGN's published "
                + "160M ops/s, which is one-way batched throughput.");
        m.put("VectorAddScalingBenchmark", "SCALING. Vector add through parallelForEach at 1K..64M floats with 1, 2 "
                + "(and the machine's count of) compute units, beside one sequential pass at each size.");
        m.put("DispatchScalingBenchmark", "SCALING. The empty-kernel case of BatchedPacketsBenchmark with 1, 2, 4, 8 "
                + "and 16 (and the machine's count of) compute units, and 64 workgroups of ~20 us each (realWork); "
                + "wake-ups, role hand-offs, CAS retries and parks as counters.");
        m.put("MultiQueueBenchmark", "SCALING. The stream of DispatchScalingBenchmark into 1, 2, 4 and 8 queues of one "
                + "runtime, each fed by its own host thread: the JMH thread's packets/s, and the aggregate of every queue "
                + "as the counter aggregatePackets.");
        m.put("ScarceCoresBenchmark", "SCALING. The empty dispatch round trip (BLOCKED) beside ExecutorService "
                + "submit(noop).get(), with 0 and 2 busy background threads (sample time, p50).");
        m.put("SignalFootprintBenchmark", "1,000,000 signals created and kept alive: off-heap and heap bytes per "
                + "signal, threads created. Baseline: 1,000,000 AtomicLongs.");
        return m;
    }
}
