package org.hsa4j.examples;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.hsa4j.cuda.CudaPlatform;
import org.hsa4j.cuda.CudaReport;
import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.SystemReport;

/** The command behind {@code ./hsa4j info}, {@code ./hsa4j run NAME|all} and {@code ./hsa4j soak}. */
public final class Hsa4jMain {
    /** Every example, in the order {@code run all} runs them. */
    static final List<Example> EXAMPLES = List.of(new HsaDispatch(), new Sync1Way(), new Sync2Way(), new PingPong(),
            new AtomicInt(), new VectorAddSvm(), new AsyncChain(), new SyscallExample(), new Fibonacci(),
            new BinaryTreeInsert(), new MallocBench(), new HeatPde(), new ManagedMemory(), new FpAtomicsTable());

    private Hsa4jMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs one launcher command; the exit status. A bad configuration (an environment variable
     * out of range, say) is one line naming the variable and its status, not a stack trace.
     */
    static int run(String[] args, PrintStream out, PrintStream err) {
        try {
            return command(args, out, err);
        } catch (HsaException e) {
            err.println("hsa4j: " + e.getMessage());
            return 2;
        }
    }

    private static int command(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            return usage(err);
        }
        switch (args[0]) {
            case "info" -> {
                boolean json = args.length > 1 && args[1].equals("--json");
                if (args.length > (json ? 2 : 1)) {
                    return usage(err);
                }
                try (HsaRuntime rt = HsaRuntime.init()) {
                    if (json) {
                        SystemReport.writeJson(rt, out);
                        return 0;
                    }
                    SystemReport.write(rt, out);
                    for (String note : rt.providerNotes()) {
                        out.println("Agent provider " + note);
                    }
                }
                // CUDA devices (HSA4J_CUDA=required without one is one line and status 2, as any bad setting)
                CudaReport.write(CudaPlatform.discover(), out);
                return 0;
            }
            case "list" -> {
                for (Example e : EXAMPLES) {
                    out.printf("%-20s %s%n", e.name(), e.description());
                }
                return 0;
            }
            case "run" -> {
                if (args.length < 2) {
                    return usage(err);
                }
                boolean small = args.length > 2 && args[2].equals("--small");
                return runExamples(args[1], small, out, err);
            }
            case "soak" -> {
                return Soak.run(args, out, err);
            }
            default -> {
                err.println("unknown command: " + args[0]);
                return usage(err);
            }
        }
    }

    private static int runExamples(String which, boolean small, PrintStream out, PrintStream err) {
        Map<String, Example> byName = new LinkedHashMap<>();
        for (Example e : EXAMPLES) {
            byName.put(e.name(), e);
        }
        List<Example> chosen;
        if (which.equals("all")) {
            chosen = EXAMPLES;
        } else if (byName.containsKey(which)) {
            chosen = List.of(byName.get(which));
        } else {
            err.println("no example named " + which + "; known: " + String.join(", ", byName.keySet()));
            return 2;
        }
        int failed = 0;
        long start = System.nanoTime();
        for (Example e : chosen) {
            try {
                e.run(out, small);
            } catch (Throwable t) {
                failed++;
                err.println(e.name() + ": FAILED: " + t);
                t.printStackTrace(err);
            }
        }
        out.printf("%d passed, %d failed (%.1f s)%n", chosen.size() - failed, failed, (System.nanoTime() - start) / 1e9);
        return failed == 0 ? 0 : 1;
    }

    private static int usage(PrintStream err) {
        err.println("usage: hsa4j info [--json] | list | run NAME|all [--small] | soak [--minutes M | --seconds S] [--threads N] [--seed S]");
        return 2;
    }
}
