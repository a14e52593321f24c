package org.hsa4j.examples;

import static org.hsa4j.examples.KernelLaunch.arg;

import java.io.PrintStream;
import java.util.Arrays;

import org.hsa4j.agent.Agent;
import org.hsa4j.memory.FpAtomicDiagnostics;
import org.hsa4j.memory.FpAtomics;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;

/**
 * The ROCm seed's floating-point atomics table: many work-items atomically add 1.0f to one float
 * in fine-grained (hipHostMalloc) or coarse-grained (hipMalloc) memory, with hardware-style
 * ("unsafe", {@link FpAtomics#UNSAFE}) or CAS-loop atomics. As on an MI250X, the hardware atomics
 * are silently lost on fine-grained memory and right on coarse-grained memory; the CAS loop is right
 * on both. Speeds are relative to the CAS loop on coarse-grained memory. Here both paths on
 * coarse-grained memory are the same compare-and-swap loop (Java has no float fetch-add), so their
 * speeds differ only by noise; the lost adds on fine-grained memory are fast because they do nothing.
 * A last line shows what {@link FpAtomics#UNSAFE_DIAGNOSE} reports for the wrong cell.
 */
public final class FpAtomicsTable implements Example {
    @Override
    public String name() {
        return "fp_atomics";
    }

    @Override
    public String description() {
        return "the seed's FP atomics table: {fine, coarse} x {hardware (unsafe), CAS loop} float adds, right/WRONG and speed";
    }

    /** One cell of the table: what the kernel left in the float and how long a run took. */
    private record Cell(String memory, String atomics, long expected, float got, double msPerRun) {
        boolean right() {
            return got == expected;
        }
    }

    @Override
    public void run(PrintStream out, boolean small) {
        int items = small ? 1 << 14 : 1 << 20;
        int runs = small ? 3 : 5;
        Cell[] cells = {
            cell(false, FpAtomics.UNSAFE, items, runs),
            cell(false, FpAtomics.CAS_LOOP, items, runs),
            cell(true, FpAtomics.UNSAFE, items, runs),
            cell(true, FpAtomics.CAS_LOOP, items, runs),
        };
        double base = cells[3].msPerRun();
        out.printf("fp_atomics: %,d work-items each atomically add 1.0f to one float (median of %d runs after a warm-up run;"
                + " baseline: CAS loop on coarse-grained memory)%n", items, runs);
        out.printf("  %-8s %-18s %10s %12s %-7s %9s %s%n", "memory", "atomics", "expected", "got", "result", "ms/run",
                "vs CAS on coarse");
        for (Cell c : cells) {
            out.printf("  %-8s %-18s %10d %12.0f %-7s %9.2f %.2fx%n", c.memory(), c.atomics(), c.expected(), c.got(),
                    c.right() ? "right" : "WRONG", c.msPerRun(), c.msPerRun() / base);
        }
        long reported = diagnose(items);
        out.printf("  UNSAFE_DIAGNOSE on fine: the adds are performed and all %,d that UNSAFE would lose are reported%n",
                reported);
        if (cells[0].right() || !cells[1].right() || !cells[2].right() || !cells[3].right() || reported != items) {
            throw new AssertionError("fp_atomics: expected only hardware atomics on fine-grained memory to be wrong");
        }
    }

    private static Cell cell(boolean coarse, FpAtomics atomics, int items, int runs) {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().fpAtomics(atomics).build())) {
            Agent gpu = rt.gpuAgent();
            long target = coarse ? rt.deviceMalloc(gpu, 4) : rt.hostMalloc(4);
            Queue queue = gpu.createQueue(64, QueueType.SINGLE, null);
            double[] ms = new double[runs];
            float got = 0;
            try {
                for (int r = -1; r < runs; r++) {
                    gpu.svm().setFloat(target, 0);
                    long start = System.nanoTime();
                    addOnes(rt, queue, target, items);
                    long elapsed = System.nanoTime() - start;
                    got = gpu.svm().getFloat(target);
                    if (r >= 0) {
                        ms[r] = elapsed / 1e6;
                    }
                }
            } finally {
                queue.destroy();
            }
            Arrays.sort(ms);
            String name = atomics == FpAtomics.UNSAFE ? "hardware (UNSAFE)" : "CAS loop";
            return new Cell(coarse ? "coarse" : "fine", name, items, got, ms[runs / 2]);
        }
    }

    private static void addOnes(HsaRuntime rt, Queue queue, long target, int items) {
        KernelLaunch.run(rt, queue,
                wi -> wi.svm().atomicAddFloat(arg(wi, 0), 1.0f, MemoryOrder.RELAXED, MemoryScope.AGENT), items, 256,
                target);
    }

    /** Runs the fine-grained cell under UNSAFE_DIAGNOSE; checks the adds happened; returns how many were reported. */
    private static long diagnose(int items) {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().fpAtomics(FpAtomics.UNSAFE_DIAGNOSE).build())) {
            long target = rt.hostMalloc(4);
            Queue queue = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
            try {
                addOnes(rt, queue, target, items);
            } finally {
                queue.destroy();
            }
            FpAtomicDiagnostics d = rt.fpAtomicDiagnostics();
            if (rt.svm().getFloat(target) != items || d.reports().isEmpty() || d.reports().get(0).address() != target) {
                throw new AssertionError("fp_atomics: UNSAFE_DIAGNOSE lost an add or reported the wrong address");
            }
            return d.count();
        }
    }
}
