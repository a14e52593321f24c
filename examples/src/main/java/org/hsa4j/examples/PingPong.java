package org.hsa4j.examples;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.HdrHistogram.Histogram;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CompletionFuture;
import org.hsa4j.amp.CppMemoryOrder;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.IntArrayView;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;

/**
 * A 1 bounces between the two ends of an SVM array: the host end (cell 0) and the GPU end (the
 * last cell). The host moves it to the GPU end with a release store; one work-item, waiting with
 * acquire loads, moves it back. Each round trip is timed into an HdrHistogram.
 */
public final class PingPong implements Example {
    private static final int CELLS = 8;

    @Override
    public String name() {
        return "pingpong";
    }

    @Override
    public String description() {
        return "a 1 bounces between the host end and the GPU end of an SVM array; round-trip latency median and p99";
    }

    @Override
    public void run(PrintStream out, boolean small) {
        int rounds = small ? 2_000 : 50_000;
        int gpuEnd = CELLS - 1;
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build()); Amp amp = Amp.on(rt)) {
            IntArrayView cells = amp.defaultAccelerator().newInts(CELLS);
            cells.set(0, 1);

            CompletionFuture gpu = amp.parallelForEach(new Extent(1), idx -> {
                long deadline = Bounded.deadline();
                for (int r = 0; r < rounds; r++) {
                    Bounded.spinUntil(() -> cells.atomicLoad(gpuEnd, CppMemoryOrder.ACQUIRE) == 1, deadline,
                            "the host's ping");
                    cells.set(gpuEnd, 0);
                    cells.atomicStore(0, 1, CppMemoryOrder.RELEASE);
                }
            });

            Histogram latency = new Histogram(3);
            int warmups = rounds / 5;
            long first = 0;
            long deadline = Bounded.deadline();
            long start = System.nanoTime();
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                cells.set(0, 0);
                cells.atomicStore(gpuEnd, 1, CppMemoryOrder.RELEASE);
                Bounded.spinUntil(() -> cells.atomicLoad(0, CppMemoryOrder.ACQUIRE) == 1 || gpu.isFailed(), deadline,
                        "the GPU's pong in round " + r);
                if (gpu.isFailed()) {
                    gpu.get();
                }
                long took = System.nanoTime() - t0;
                if (r == 0) {
                    first = took;
                } else if (r > warmups) {
                    latency.recordValue(took);
                }
            }
            long elapsed = System.nanoTime() - start;
            Bounded.await(gpu, "the pong kernel");
            for (int j = 0; j < CELLS; j++) {
                if (cells.get(j) != (j == 0 ? 1 : 0)) {
                    throw new AssertionError("cell " + j + " is " + cells.get(j) + " after the last round");
                }
            }
            if (latency.getTotalCount() != rounds - 1 - warmups) {
                throw new AssertionError(latency.getTotalCount() + " round trips timed, expected " + (rounds - 1 - warmups));
            }
            Histogram threads = hostThreadPingPong(rounds, warmups);
            out.printf("pingpong: the 1 made %,d round trips between host and GPU ends and is back home%n", rounds);
            out.printf("pingpong: round trip after %,d warm-up rounds: median %.2f us, p99 %.2f us, max %.2f us "
                    + "(%.1f ms in all; first round %.2f us); baseline: two host threads through a volatile, median %.2f us%n",
                    warmups, latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(99) / 1e3,
                    latency.getMaxValue() / 1e3, elapsed / 1e6, first / 1e3, threads.getValueAtPercentile(50) / 1e3);
        }
    }

    /** The baseline: the same ping-pong between two plain Java threads through an AtomicIntegerArray. */
    private static Histogram hostThreadPingPong(int rounds, int warmups) {
        AtomicIntegerArray ends = new AtomicIntegerArray(CELLS);
        int far = CELLS - 1;
        Thread other = new Thread(() -> {
            long deadline = Bounded.deadline();
            for (int r = 0; r < rounds; r++) {
                Bounded.spinUntil(() -> ends.get(far) == 1, deadline, "the baseline's ping");
                ends.setPlain(far, 0);
                ends.set(0, 1);
            }
        }, "pingpong-baseline");
        other.setDaemon(true);
        other.start();
        Histogram h = new Histogram(3);
        long deadline = Bounded.deadline();
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            ends.setPlain(0, 0);
            ends.set(far, 1);
            Bounded.spinUntil(() -> ends.get(0) == 1, deadline, "the baseline's pong");
            if (r > warmups) {
                h.recordValue(System.nanoTime() - t0);
            }
        }
        return h;
    }
}
