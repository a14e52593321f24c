package org.hsa4j.benchmarks.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One entry of JMH's JSON result file: a benchmark method with one set of parameters, its run
 * settings, its primary metric and its secondary metrics (SampleTime percentiles and
 * {@code @AuxCounters}).
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
 * @param raw                   the entry's remaining top-level fields (jdkVersion, vmName, ...)
 */
record JmhResult(String benchmark, Map<String, String> params, String mode, int forks, int warmupIterations,
                 String warmupTime, int measurementIterations, String measurementTime, Metric primary,
                 Map<String, Metric> secondary, Map<String, Object> raw) {

    /**
     * A metric: JMH's score with its error and unit, the percentiles when JMH sampled it, and the
     * per-iteration values (all forks together) when JMH recorded them.
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

        /** The percentile {@code p} (0-100) when JMH recorded it, else NaN. */
        double percentile(double p) {
            Double v = percentiles.get(p);
            return v != null ? v : Double.NaN;
        }
    }

    /** Reads every entry of a JMH JSON result file's text. */
    @SuppressWarnings("unchecked")
    static List<JmhResult> parseAll(String json) {
        List<JmhResult> out = new ArrayList<>();
        for (Object o : (List<Object>) Json.parse(json)) {
            out.add(of((Map<String, Object>) o));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static JmhResult of(Map<String, Object> m) {
        String full = (String) m.get("benchmark");
        String[] parts = full.split("\\.");
        String simple = parts.length >= 2 ? parts[parts.length - 2] + "." + parts[parts.length - 1] : full;
        Map<String, String> params = new TreeMap<>();
        Object p = m.get("params");
        if (p instanceof Map<?, ?> pm) {
            pm.forEach((k, v) -> params.put((String) k, String.valueOf(v)));
        }
        Map<String, Metric> secondary = new LinkedHashMap<>();
        Object s = m.get("secondaryMetrics");
        if (s instanceof Map<?, ?> sm) {
            sm.forEach((k, v) -> secondary.put((String) k, metric((Map<String, Object>) v)));
        }
        return new JmhResult(simple, params, (String) m.get("mode"), (int) Json.number(m.get("forks")),
                (int) Json.number(m.get("warmupIterations")), String.valueOf(m.get("warmupTime")),
                (int) Json.number(m.get("measurementIterations")), String.valueOf(m.get("measurementTime")),
                metric((Map<String, Object>) m.get("primaryMetric")), secondary, m);
    }

    @SuppressWarnings("unchecked")
    private static Metric metric(Map<String, Object> m) {
        Map<Double, Double> percentiles = new TreeMap<>();
        Object p = m.get("scorePercentiles");
        if (p instanceof Map<?, ?> pm) {
            pm.forEach((k, v) -> percentiles.put(Double.parseDouble((String) k), Json.number(v)));
        }
        List<Double> iterations = new ArrayList<>();
        Object raw = m.get("rawData");
        if (raw instanceof List<?> forks) {
            for (Object fork : forks) {
                for (Object v : (List<Object>) fork) {
                    iterations.add(Json.number(v));
                }
            }
        }
        long samples = 0;
        Object hist = m.get("rawDataHistogram");
        if (hist instanceof List<?> forks) {
            for (Object fork : forks) {
                for (Object iteration : (List<Object>) fork) {
                    for (Object bucket : (List<Object>) iteration) {
                        samples += (long) Json.number(((List<Object>) bucket).get(1));
                    }
                }
            }
        } else {
            samples = iterations.size();
        }
        return new Metric(Json.number(m.get("score")), Json.number(m.get("scoreError")),
                String.valueOf(m.get("scoreUnit")), percentiles, iterations, samples);
    }

    /** A string field of the entry, or "?" when absent. */
    String field(String name) {
        Object v = raw.get(name);
        return v == null ? "?" : String.valueOf(v);
    }
}
