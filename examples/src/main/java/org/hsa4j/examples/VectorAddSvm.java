package org.hsa4j.examples;

import java.io.PrintStream;

import org.hsa4j.amp.Accelerator;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.IndexKernel;
import org.hsa4j.memory.FloatView;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;

/**
 * A kernel adds two host arrays by address, with no copies: the arrays come from plain system
 * malloc ({@code systemMalloc}), which a GPU may touch once XNACK is on; the kernel captures the
 * three addresses and reads and writes through the GPU agent's view of the same SVM, and the host
 * reads the sums in place afterwards.
 */
public final class VectorAddSvm implements Example {
    @Override
    public String name() {
        return "vector_add_svm";
    }

    @Override
    public String description() {
        return "a kernel adds host (system malloc) arrays by address, with no copies, through shared virtual memory";
    }

    @Override
    public void run(PrintStream out, boolean small) {
        int n = small ? 1 << 12 : 1 << 21;
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().xnack(true).build()); Amp amp = Amp.on(rt)) {
            long a = rt.systemMalloc(4L * n);
            long b = rt.systemMalloc(4L * n);
            long c = rt.systemMalloc(4L * n);
            FloatView av = rt.svm().floats(a, n);
            FloatView bv = rt.svm().floats(b, n);
            for (int i = 0; i < n; i++) {
                av.set(i, i);
                bv.set(i, 0.5f * i);
            }

            Accelerator gpu = amp.defaultAccelerator();
            Svm gpuSvm = gpu.svm();
            IndexKernel add = idx -> {
                long offset = 4L * idx.get(0);
                gpuSvm.setFloat(c + offset, gpuSvm.getFloat(a + offset) + gpuSvm.getFloat(b + offset));
            };
            int rounds = small ? 5 : 10;
            int warmups = 2;
            Timing.Figure kernel = Timing.rounds(rounds, warmups, k ->
                    Bounded.await(amp.parallelForEach(new Extent(n), add), "the vector add kernel"));
            // baseline: one plain host loop over the same memory
            FloatView hostA = rt.svm().floats(a, n);
            FloatView hostB = rt.svm().floats(b, n);
            FloatView hostC = rt.svm().floats(c, n);
            Timing.Figure loop = Timing.rounds(rounds, warmups, k -> {
                for (int i = 0; i < n; i++) {
                    hostC.set(i, hostA.get(i) + hostB.get(i));
                }
            });

            FloatView cv = rt.svm().floats(c, n);
            for (int i = 0; i < n; i++) {
                if (cv.get(i) != 1.5f * i) {
                    throw new AssertionError("c[" + i + "] = " + cv.get(i) + ", expected " + 1.5f * i);
                }
            }
            out.printf("vector_add_svm: %s added two system-malloc arrays of %,d floats at 0x%x and 0x%x into 0x%x "
                    + "by address; no copy in either direction; all sums correct%n", gpu.description(), n, a, b, c);
            out.printf("vector_add_svm: steady state (median after %d warm-ups) %.2f ms, %.2f GB/s of SVM traffic "
                    + "(first run %.2f ms); baseline: one host loop over the same memory %.2f ms%n", warmups,
                    kernel.steadyMillis(), 12.0 * n / kernel.steadyNanos(), kernel.firstMillis(), loop.steadyMillis());
        }
    }
}
