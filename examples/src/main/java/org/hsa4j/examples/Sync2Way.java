package org.hsa4j.examples;

import java.io.PrintStream;

import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CompletionFuture;
import org.hsa4j.amp.CppMemoryOrder;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.IndexKernel;
import org.hsa4j.amp.IntArrayView;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;

/**
 * CPU and GPU wait for each other. Work-item {@code i} waits until the host's turn flag says
 * {@code i}, then moves the single 1 of an SVM array from cell {@code i - 1} to cell {@code i}
 * and says so in an acknowledgement word; the host waits for that acknowledgement, checks that the
 * array holds exactly one 1 at {@code i}, and advances the flag. One compute unit runs the kernel,
 * so the host thread keeps the other core.
 */
public final class Sync2Way implements Example {
    @Override
    public String name() {
        return "sync_2way";
    }

    @Override
    public String description() {
        return "CPU and GPU wait for each other: work-items wait on a host-advanced flag and move a single 1 along an array";
    }

    @Override
    public void run(PrintStream out, boolean small) {
        int n = small ? 128 : 1024;
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build()); Amp amp = Amp.on(rt)) {
            IntArrayView cells = amp.defaultAccelerator().newInts(n);
            IntArrayView turn = amp.defaultAccelerator().newInts(1);
            IntArrayView ack = amp.defaultAccelerator().newInts(1);
            turn.set(0, -1);
            ack.set(0, -1);

            IndexKernel mover = idx -> {
                int i = idx.get(0);
                Bounded.spinUntil(() -> turn.atomicLoad(0, CppMemoryOrder.ACQUIRE) == i, Bounded.deadline(),
                        "the host to give work-item " + i + " its turn");
                if (i > 0) {
                    cells.set(i - 1, 0);
                }
                cells.set(i, 1);
                ack.atomicStore(0, i, CppMemoryOrder.RELEASE);
            };
            int runs = small ? 4 : 6;
            int warmups = 1;
            Timing.Figure run = Timing.rounds(runs, warmups, r -> {
                for (int j = 0; j < n; j++) {
                    cells.set(j, 0);
                }
                turn.atomicStore(0, -1, CppMemoryOrder.RELEASE);
                ack.atomicStore(0, -1, CppMemoryOrder.RELEASE);
                CompletionFuture kernel = amp.parallelForEach(new Extent(n), mover);
                long deadline = Bounded.deadline();
                for (int i = 0; i < n; i++) {
                    turn.atomicStore(0, i, CppMemoryOrder.RELEASE);
                    int step = i;
                    Bounded.spinUntil(() -> ack.atomicLoad(0, CppMemoryOrder.ACQUIRE) == step || kernel.isFailed(),
                            deadline, "work-item " + i + " to move the 1");
                    if (kernel.isFailed()) {
                        kernel.get();
                    }
                    checkSingleOne(cells, n, i);
                }
                Bounded.await(kernel, "the kernel");
                checkSingleOne(cells, n, n - 1);
            });
            double baseline = Timing.threadHandshakeNanos(Math.max(n, 1000));
            out.printf("sync_2way: host and %d work-items took %d turns each way through SVM flags, %d times; after every"
                    + " turn the array held a single 1, now at its end%n", n, n, runs);
            out.printf("sync_2way: steady state (median run after %d warm-up) %.2f us per host-GPU-host handshake "
                    + "(first run %.2f us); baseline: the same handshake between two host threads %.2f us%n", warmups,
                    run.steadyMicros() / n, run.firstMicros() / n, baseline / 1e3);
        }
    }

    private static void checkSingleOne(IntArrayView cells, int n, int at) {
        for (int j = 0; j < n; j++) {
            int expected = j == at ? 1 : 0;
            if (cells.get(j) != expected) {
                throw new AssertionError("after turn " + at + " cell " + j + " is " + cells.get(j));
            }
        }
    }
}
