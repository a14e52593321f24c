package org.hsa4j.benchmarks.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.util.Statistics;

/**
 * What the report needs of one JMH {@link RunResult}: a benchmark method with one set of
 * parameters, its run settings, its primary metric and its secondary metrics (SampleTime
 * percentiles and {@code @AuxCounters}), read from JMH's own result objects.
 *
 * @param benchmark             simple name, {@code Class.method}
 * @param params                the {@code @Param} values of this entry, sorted by name
 * @param mode                  JMH mode code: thrpt, avgt, sample, ss
 * @param forks                 forks run
 * @param warmupIterations      warmup iterations per fork
 * @param warmupTime            warmup iteration time as JMH prints it
 * @param measurementIterations measured iterations per fork
 * @param measurementTime       measured iteration time as JMH prints it
 * @param primary               the primary metric
 * @param secondary             secondary metrics by name
 * @param vm                    the JVM and JMH that ran it
 */
record JmhResult(String benchmark, Map<String, String> params, String mode, int forks, int warmupIterations,
                 String warmupTime, int measurementIterations, String measurementTime, Metric primary,
                 Map<String, Metric> secondary, Vm vm) {

    /** Percentiles a SampleTime metric keeps for the report. */
    static final double[] PERCENTILES = {0.0, 50.0, 90.0, 95.0, 99.0, 99.9, 99.99, 99.999, 99.9999, 100.0};

    /**
     * A metric: JMH's score with its error and unit, the percentiles of its samples, and the
     * per-iteration values of all forks together.
     */
    record Metric(double score, double scoreError, String unit, Map<Double, Double> percentiles,
                  List<Double> iterations, long samples) {

        /** Mean of the per-iteration values (JMH sums {@code @AuxCounters} events over iterations instead). */
        double iterationMean() {
            if (iterations.isEmpty()) {
                return score;
            }
            double sum = 0;
            for (double v : iterations) {
                sum += v;
            }
            return sum / iterations.size();
        }

        /** The percentile {@code p} (0-100) when it was kept, else NaN. */
        double percentile(double p) {
            Double v = percentiles.get(p);
            return v != null ? v : Double.NaN;
        }
    }

    /** The JVM and JMH of a run, and the JVM arguments of its forks. */
    record Vm(String jdkVersion, String vmName, String vmVersion, String jmhVersion, List<String> jvmArgs) {
    }

    /** The report's view of one JMH run result. */
    static JmhResult of(RunResult run) {
        BenchmarkParams p = run.getParams();
        String full = p.getBenchmark();
        String[] parts = full.split("\\.");
        String simple = parts.length >= 2 ? parts[parts.length - 2] + "." + parts[parts.length - 1] : full;
        Map<String, String> params = new TreeMap<>();
        for (String key : p.getParamsKeys()) {
            params.put(key, p.getParam(key));
        }
        List<IterationResult> iterations = new ArrayList<>();
        for (BenchmarkResult fork : run.getBenchmarkResults()) {
            iterations.addAll(fork.getIterationResults());
        }
        List<Double> primaryValues = new ArrayList<>();
        for (IterationResult it : iterations) {
            primaryValues.add(it.getPrimaryResult().getScore());
        }
        Map<String, Metric> secondary = new LinkedHashMap<>();
        for (Map.Entry<String, Result> e : run.getSecondaryResults().entrySet()) {
            List<Double> values = new ArrayList<>();
            for (IterationResult it : iterations) {
                Result r = it.getSecondaryResults().get(e.getKey());
                if (r != null) {
                    values.add(r.getScore());
                }
            }
            secondary.put(e.getKey(), metric(e.getValue(), values));
        }
        Vm vm = new Vm(p.getJdkVersion(), p.getVmName(), p.getVmVersion(), p.getJmhVersion(), List.copyOf(p.getJvmArgs()));
        return new JmhResult(simple, params, p.getMode().shortLabel(), p.getForks(), p.getWarmup().getCount(),
                p.getWarmup().getTime().toString(), p.getMeasurement().getCount(), p.getMeasurement().getTime().toString(),
                metric(run.getPrimaryResult(), primaryValues), secondary, vm);
    }

    /** Every run result of a JMH run, in JMH's order. */
    static List<JmhResult> ofAll(Iterable<RunResult> runs) {
        List<JmhResult> out = new ArrayList<>();
        for (RunResult r : runs) {
            out.add(of(r));
        }
        return out;
    }

    private static Metric metric(Result<?> r, List<Double> iterations) {
        Statistics s = r.getStatistics();
        Map<Double, Double> percentiles = new TreeMap<>();
        for (double q : PERCENTILES) {
            percentiles.put(q, s.getPercentile(q));
        }
        return new Metric(r.getScore(), r.getScoreError(), r.getScoreUnit(), percentiles, List.copyOf(iterations),
                s.getN());
    }
}
