package org.hsa4j.examples;

import java.io.IOException;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.hsa4j.amp.Amp;
import org.hsa4j.cuda.CudaAgent;
import org.hsa4j.cuda.CudaPlatform;
import org.hsa4j.cuda.CudaReport;
import org.hsa4j.cuda.CudaSeeds;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.SystemReport;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** The command behind {@code ./hsa4j info}, {@code ./hsa4j run NAME|all} and {@code ./hsa4j soak}. */
public final class Hsa4jMain {
    /** Every example, in the order {@code run all} runs them. */
    static final List<Example> EXAMPLES = List.of(new HsaDispatch(), new Sync1Way(), new Sync2Way(), new PingPong(),
            new AtomicInt(), new VectorAddSvm(), new AsyncChain(), new SyscallExample(), new Fibonacci(),
            new BinaryTreeInsert(), new MallocBench(), new HeatPde(), new ManagedMemory(), new FpAtomicsTable());

    /**
     * The examples with a CUDA version (issue 18 part 7), by example name: the seed of {@link CudaSeeds}
     * that runs it, {@link #CUDA_ASYNC_CHAIN} for the cross-agent chain of {@link CudaAsyncChain}, or
     * {@link #CUDA_SYSCALL} and {@link #CUDA_FIBONACCI} for {@link CudaServiceSeeds} (issue 19 part 2).
     */
    static final Map<String, String> CUDA_VERSIONS = Map.of("sync_1way", "sync_1way", "sync_2way", "sync_2way",
            "pingpong", "pingpong", "atomic_int", "atomic_int", "vector_add_svm", "vector_add", "async_chain",
            "async_chain", "managed_memory", "managed_memory", "syscall", "cuda_syscall", "fibonacci", "cuda_fibonacci",
            "hsa_dispatch", "resident");
    private static final String CUDA_ASYNC_CHAIN = "async_chain";
    private static final String CUDA_SYSCALL = "cuda_syscall";
    private static final String CUDA_FIBONACCI = "cuda_fibonacci";

    /** {@code run --agent}: where the examples with a CUDA version run. */
    enum AgentChoice {
        /** On the CUDA agent when one is present, else on the CPU pool (the default). */
        AUTO,
        /** On the CUDA agent; without one, status 2 saying why. */
        GPU,
        /** On the CPU pool. */
        CPU
    }

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
                boolean small = false;
                AgentChoice agent = AgentChoice.AUTO;
                for (int i = 2; i < args.length; i++) {
                    if (args[i].equals("--small")) {
                        small = true;
                    } else if (args[i].equals("--agent") && i + 1 < args.length) {
                        agent = parseAgent(args[++i]);
                    } else {
                        return usage(err);
                    }
                }
                return runExamples(args[1], small, agent, out, err);
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

    private static AgentChoice parseAgent(String value) {
        return switch (value) {
            case "auto" -> AgentChoice.AUTO;
            case "gpu", "cuda" -> AgentChoice.GPU;
            case "cpu" -> AgentChoice.CPU;
            default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT, "--agent " + value
                    + " is not one of auto, gpu, cpu");
        };
    }

    private static int runExamples(String which, boolean small, AgentChoice agent, PrintStream out, PrintStream err) {
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
        // where the examples with a CUDA version run: asked once (HSA4J_CUDA=required without a device
        // is one line and status 2, as any bad setting)
        String noGpu = agent == AgentChoice.CPU ? "--agent cpu" : null;
        if (noGpu == null) {
            CudaPlatform p = CudaPlatform.discover();
            noGpu = p.available() ? null : "no CUDA: " + p.reason();
        }
        if (agent == AgentChoice.GPU && noGpu != null) {
            err.println("hsa4j: --agent gpu, but there is no CUDA agent (" + noGpu + ")");
            return 2;
        }
        int failed = 0;
        long start = System.nanoTime();
        for (Example e : chosen) {
            try {
                String cuda = CUDA_VERSIONS.get(e.name());
                if (cuda != null && noGpu == null) {
                    runOnCuda(e.name(), cuda, small, out);
                } else {
                    out.println("== " + e.name() + " on the CPU pool (" + (cuda == null ? "no CUDA version"
                            : noGpu) + ")");
                    e.run(out, small);
                }
            } catch (Throwable t) {
                failed++;
                err.println(e.name() + ": FAILED: " + t);
                t.printStackTrace(err);
            }
        }
        out.printf("%d passed, %d failed (%.1f s)%n", chosen.size() - failed, failed, (System.nanoTime() - start) / 1e9);
        return failed == 0 ? 0 : 1;
    }

    /** Runs example {@code name}'s CUDA version on the first agent HsaRuntime.init() registered, saying which. */
    private static void runOnCuda(String name, String version, boolean small, PrintStream out) throws IOException {
        try (HsaRuntime rt = HsaRuntime.init()) {
            List<CudaAgent> gpus = CudaAgent.in(rt);
            if (gpus.isEmpty()) {
                throw new AssertionError(name + ": the CUDA agent went away: " + rt.providerNotes());
            }
            CudaAgent gpu = gpus.get(0);
            out.println("== " + name + " on " + gpu.name() + " (CUDA agent " + gpu.hsaAgent().index() + ")");
            if (version.equals(CUDA_ASYNC_CHAIN)) {
                try (Amp amp = Amp.on(rt)) {
                    CudaAsyncChain.run(amp, gpu, 1 << 16, small ? 20 : 300, out);
                }
            } else if (version.equals(CUDA_SYSCALL)) {
                CudaServiceSeeds.syscall(rt, gpu, small ? 64 : 1024, out);
            } else if (version.equals(CUDA_FIBONACCI)) {
                CudaServiceSeeds.fibonacci(rt, gpu, small ? 1024 : 4096, out);
            } else if (!CudaSeeds.run(version, gpu, out)) {
                throw new AssertionError(name + ": the CUDA version's check failed (see above)");
            }
        }
    }

    private static int usage(PrintStream err) {
        err.println("usage: hsa4j info [--json] | list | run NAME|all [--small] [--agent auto|gpu|cpu] | soak [--minutes M | --seconds S] [--threads N] [--seed S]");
        return 2;
    }
}
