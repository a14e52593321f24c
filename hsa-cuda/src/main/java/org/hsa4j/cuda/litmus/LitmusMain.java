package org.hsa4j.cuda.litmus;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.hsa4j.cuda.CudaAgent;
import org.hsa4j.cuda.CudaPlatform;
import org.hsa4j.runtime.HsaRuntime;

/**
 * Runs the litmus catalogue on the first CUDA device and prints docs/MEMORY-MODEL.md's table:
 * per test and placement, the weak outcome, whether hsa4j's model allows it, and how often the
 * H100 showed it, without and with stress. Exit status 1 when an outcome both HSA and PTX forbid
 * was seen, 2 without a device.
 * <p>Usage: {@code LitmusMain [hostRounds [gpuRounds [instances]]]} (defaults 50000, 2000, 1024).
 */
public final class LitmusMain {
    private LitmusMain() {
    }

    public static void main(String[] args) {
        int hostRounds = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
        int gpuRounds = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        int instances = args.length > 2 ? Integer.parseInt(args[2]) : 1024;
        CudaPlatform p = CudaPlatform.discover();
        if (!p.available()) {
            System.out.println("no CUDA: " + p.reason());
            System.exit(2);
        }
        List<LitmusResult> results = new ArrayList<>();
        try (HsaRuntime rt = HsaRuntime.init(); CudaAgent agent = CudaAgent.inOrOpen(rt, p, 0);
             LitmusRunner runner = LitmusRunner.onGpu(agent, instances, 64L << 20)) {
            System.out.println("device: " + agent.name() + ", driver CUDA " + p.driverVersion());
            long seed = 1;
            for (LitmusTest t : LitmusCatalogue.all()) {
                for (Placement pl : t.runIn()) {
                    int rounds = pl.hostRoles().isEmpty() ? gpuRounds : hostRounds;
                    for (int stress : new int[] {0, 128}) {
                        LitmusResult r = runner.run(t, pl, rounds, instances, stress, seed++);
                        results.add(r);
                        System.out.printf("%-16s %-4s %-6s weak %-16s %8d / %-9d %-7s %6.0f ms  %s%n", t.name(),
                                pl.code(), r.stress() ? "stress" : "quiet", t.weakText(), r.weak(), r.instances(),
                                r.verdict(), r.nanos() / 1e6, top(r.outcomes()));
                    }
                }
            }
        }
        print(results, System.out);
        boolean violation = results.stream().anyMatch(r -> r.verdict() == LitmusResult.Verdict.VIOLATION);
        System.out.println(violation ? "FAILED: an outcome HSA and PTX both forbid was seen" : "PASSED");
        System.exit(violation ? 1 : 0);
    }

    private static String top(Map<String, Long> outcomes) {
        return outcomes.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).collect(Collectors.joining(", "));
    }

    /** The markdown table: one row per test and placement, weak counts quiet and under stress. */
    static void print(List<LitmusResult> results, PrintStream out) {
        out.println();
        out.println("| test | twin of | roles | placement | weak outcome | HSA model | PTX | weak seen, quiet | weak seen, stress | verdict |");
        out.println("|---|---|---|---|---|---|---|---|---|---|");
        for (int i = 0; i < results.size(); i++) {
            LitmusResult quiet = results.get(i);
            LitmusResult stressed = i + 1 < results.size() && results.get(i + 1).test() == quiet.test()
                    && results.get(i + 1).placement().equals(quiet.placement()) ? results.get(++i) : null;
            LitmusTest t = quiet.test();
            LitmusResult.Verdict v = stressed != null && stressed.verdict().compareTo(quiet.verdict()) > 0
                    ? stressed.verdict() : quiet.verdict();
            out.printf("| %s | %s | `%s` | %s | %s | %s | %s | %d / %d | %s | %s |%n", t.name(),
                    t.twinOf() == null ? "" : t.twinOf(), t.program(),
                    quiet.placement().code(), t.weakText(), t.allowed() ? "allowed" : "forbidden",
                    t.ptxAllows() ? "allowed" : "forbidden", quiet.weak(), quiet.instances(),
                    stressed == null ? "-" : stressed.weak() + " / " + stressed.instances(), v);
        }
    }
}
