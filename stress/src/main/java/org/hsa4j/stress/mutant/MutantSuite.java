package org.hsa4j.stress.mutant;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs every twin of {@link MutantCatalogue} many times in fidelity mode, alternating the correct
 * and the weakened form, and checks the promise of fidelity mode: the weakened form shows the
 * forbidden outcome in every run and the correct form in none. With {@code --normal} it also runs
 * the weakened forms in normal mode, where on x86 they pass as silently as on a real machine they
 * would not. Prints one row per twin and ends with "N caught, N missed"; exits 1 on any miss.
 *
 * <p>Usage: {@code MutantSuite [--runs N] [--normal]} (default 100 runs of each form).
 */
public final class MutantSuite {
    /** One twin's counts. */
    public record Row(ProtocolTwin twin, int runs, int weakenedForbidden, int correctForbidden, int normalForbidden,
                      String weakenedSeen, String correctSeen) {
        /** True when fidelity mode caught the weakened form every time and never flagged the correct one. */
        public boolean caught() {
            return weakenedForbidden == runs && correctForbidden == 0;
        }
    }

    private MutantSuite() {
    }

    /** Runs every twin {@code runs} times per form; {@code normal} adds the normal-mode column (else -1). */
    public static List<Row> run(int runs, boolean normal) {
        List<Row> rows = new ArrayList<>();
        List<ProtocolTwin> twins = MutantCatalogue.twins();
        try (TwinRig rig = TwinRig.start(true)) {
            for (ProtocolTwin twin : twins) {
                int weak = 0;
                int correct = 0;
                String weakSeen = "";
                String correctSeen = "";
                for (int i = 0; i < runs; i++) {
                    ProtocolTwin.Outcome w = twin.runOnce(rig, true);
                    ProtocolTwin.Outcome c = twin.runOnce(rig, false);
                    weak += w.forbidden() ? 1 : 0;
                    correct += c.forbidden() ? 1 : 0;
                    weakSeen = w.seen();
                    correctSeen = c.seen();
                }
                rows.add(new Row(twin, runs, weak, correct, -1, weakSeen, correctSeen));
            }
        }
        if (normal) {
            List<ProtocolTwin> fresh = MutantCatalogue.twins();
            try (TwinRig rig = TwinRig.start(false)) {
                for (int t = 0; t < rows.size(); t++) {
                    int seen = 0;
                    for (int i = 0; i < runs; i++) {
                        seen += fresh.get(t).runOnce(rig, true).forbidden() ? 1 : 0;
                    }
                    Row r = rows.get(t);
                    rows.set(t, new Row(r.twin(), runs, r.weakenedForbidden(), r.correctForbidden(), seen,
                            r.weakenedSeen(), r.correctSeen()));
                }
            }
        }
        return rows;
    }

    /** Prints {@code rows} as a Markdown table and the summary line; returns the number missed. */
    public static int print(List<Row> rows, PrintStream out) {
        out.println("| twin | twin of | weakening | forbidden | weakened, fidelity | correct, fidelity | weakened, normal mode |");
        out.println("| --- | --- | --- | --- | --- | --- | --- |");
        int missed = 0;
        for (Row r : rows) {
            missed += r.caught() ? 0 : 1;
            out.printf("| %s | %s | %s | %s | %d/%d forbidden (%s) | %d/%d forbidden (%s) | %s |%n",
                    r.twin().name(), r.twin().twinOf(), r.twin().weakening(), r.twin().forbidden(),
                    r.weakenedForbidden(), r.runs(), r.weakenedSeen(), r.correctForbidden(), r.runs(), r.correctSeen(),
                    r.normalForbidden() < 0 ? "-" : r.normalForbidden() + "/" + r.runs() + " forbidden");
        }
        out.println();
        out.println((rows.size() - missed) + " caught, " + missed + " missed");
        return missed;
    }

    /** Command-line entry: {@code [--runs N] [--normal]}. */
    public static void main(String[] args) {
        int runs = 100;
        boolean normal = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--normal" -> normal = true;
                default -> {
                    System.err.println("usage: MutantSuite [--runs N] [--normal]");
                    System.exit(2);
                }
            }
        }
        if (runs < 1) {
            System.err.println("--runs must be at least 1");
            System.exit(2);
        }
        int missed = print(run(runs, normal), System.out);
        System.exit(missed == 0 ? 0 : 1);
    }
}
