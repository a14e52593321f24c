package org.hsa4j.examples;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.hsa4j.amp.AcceleratorView;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CompletionFuture;
import org.hsa4j.amp.Extent;
import org.hsa4j.cuda.CudaAgent;
import org.hsa4j.cuda.CudaBuffer;
import org.hsa4j.cuda.CudaCodeObject;
import org.hsa4j.cuda.CudaKernel;
import org.hsa4j.cuda.CudaModule;
import org.hsa4j.cuda.CudaStream;
import org.hsa4j.kernel.KernargWriter;

/**
 * async_chain across agents (issue 18 parts 6 and 7): k1 (CUDA C {@code hsa4j_chain_iota}, a[i] = i)
 * on the GPU, k2 (a Java kernel, b[i] = 2 a[i]) on the CPU pool, k3 (CUDA C {@code hsa4j_chain_add_one},
 * c[i] = b[i] + 1) on the GPU, on pinned buffers both sides see at the same addresses; chained two
 * ways through the C++AMP layer: with {@code thenCompose} (the continuation thread launches each
 * kernel when the one before completes), and with dependencies (barrier-AND packets on each agent's
 * queue naming the future before, so the whole chain is queued at once and the agents resolve it).
 */
final class CudaAsyncChain {
    private CudaAsyncChain() {
    }

    /** Runs {@code chains} chains of each form over {@code n} ints on {@code gpu}; throws AssertionError when a c[i] is wrong. */
    static void run(Amp amp, CudaAgent gpu, int n, int chains, PrintStream out) {
        CudaModule m = gpu.load(CudaCodeObject.fromResource("org/hsa4j/cuda/kernels/hsa4j_kernels.ptx"));
        CudaKernel iota = m.kernel("hsa4j_chain_iota");
        CudaKernel addOne = m.kernel("hsa4j_chain_add_one");
        try (CudaBuffer a = gpu.allocatePinned(4L * n); CudaBuffer b = gpu.allocatePinned(4L * n);
             CudaBuffer c = gpu.allocatePinned(4L * n)) {
            MemorySegment as = a.hostSegment();
            MemorySegment bs = b.hostSegment();
            MemorySegment cs = c.hostSegment();
            Extent e = new Extent(n);
            AcceleratorView gpuView = amp.accelerator(gpu.hsaAgent()).createView();
            AcceleratorView cpuView = amp.defaultAccelerator().createView();
            KernargWriter k1Args = KernargWriter.slots(new long[] {a.address()}, n);
            KernargWriter k3Args = KernargWriter.slots(new long[] {b.address(), c.address()}, n);
            try {
                long start = System.nanoTime();
                for (int k = 0; k < chains; k++) {
                    cs.fill((byte) -1);
                    CompletionFuture chain = gpuView.parallelForEach(iota, e, 256, k1Args)
                            .thenCompose(() -> cpuView.parallelForEach(e, idx -> bs.setAtIndex(JAVA_INT, idx.get(0),
                                    2 * as.getAtIndex(JAVA_INT, idx.get(0)))))
                            .thenCompose(() -> gpuView.parallelForEach(addOne, e, 256, k3Args));
                    Bounded.await(chain, "thenCompose chain " + k);
                    check(cs, n, "thenCompose chain " + k);
                }
                long thenNanos = System.nanoTime() - start;
                start = System.nanoTime();
                for (int k = 0; k < chains; k++) {
                    cs.fill((byte) -1);
                    CompletionFuture k1 = gpuView.parallelForEach(iota, e, 256, k1Args);
                    CompletionFuture k2 = cpuView.parallelForEachAfter(k1, e, idx -> bs.setAtIndex(JAVA_INT, idx.get(0),
                            2 * as.getAtIndex(JAVA_INT, idx.get(0))));
                    CompletionFuture k3 = gpuView.parallelForEachAfter(k2, addOne, e, 256, k3Args);
                    Bounded.await(k3, "barrier-packet chain " + k);
                    check(cs, n, "barrier-packet chain " + k);
                }
                long depNanos = System.nanoTime() - start;
                out.printf("async_chain: %d chains of k1 (CUDA, %s) -> k2 (Java, %s) -> k3 (CUDA) over %d ints of "
                        + "pinned memory in each form; every c[i] = 2i + 1%n", chains, gpu.name(),
                        amp.defaultAccelerator().description(), n);
                // baseline: the same chain by hand on this thread: launch + synchronize, a Java loop, launch + synchronize
                long handNanos;
                int blocks = (n + 255) / 256;
                try (Arena arena = Arena.ofConfined(); CudaStream stream = CudaStream.open(gpu)) {
                    MemorySegment k1Bytes = arena.allocate(32, 8);
                    MemorySegment k3Bytes = arena.allocate(32, 8);
                    k1Args.write(k1Bytes);
                    k3Args.write(k3Bytes);
                    start = System.nanoTime();
                    for (int k = 0; k < chains; k++) {
                        cs.fill((byte) -1);
                        stream.launch(iota, blocks, 256, k1Bytes);
                        stream.synchronize();
                        for (int i = 0; i < n; i++) {
                            bs.setAtIndex(JAVA_INT, i, 2 * as.getAtIndex(JAVA_INT, i));
                        }
                        stream.launch(addOne, blocks, 256, k3Bytes);
                        stream.synchronize();
                        check(cs, n, "chain by hand " + k);
                    }
                    handNanos = System.nanoTime() - start;
                }
                out.printf("async_chain: thenCompose: %.1f us per kernel; barrier-AND packets: %.1f us per kernel; baseline: "
                        + "the same chain by hand (cuLaunchKernel + cuStreamSynchronize, a Java loop on this thread) %.1f us "
                        + "per kernel%n", thenNanos / 1e3 / (3 * chains), depNanos / 1e3 / (3 * chains),
                        handNanos / 1e3 / (3 * chains));
            } finally {
                gpuView.close();
                cpuView.close();
            }
        }
    }

    private static void check(MemorySegment c, int n, String what) {
        for (int i = 0; i < n; i++) {
            int v = c.getAtIndex(JAVA_INT, i);
            if (v != 2 * i + 1) {
                throw new AssertionError(what + ": c[" + i + "] = " + v + ", expected " + (2 * i + 1));
            }
        }
    }
}
