package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.Kernel;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.runtime.HsaRuntime;

/**
 * Dispatches a one-dimensional kernel with the queue's launch call ({@link Queue#dispatch}),
 * passing up to a few 64-bit kernel arguments (read them with {@link #arg}). For the memory tests,
 * which need a kernel to touch SVM.
 */
final class KernelLauncher {
    private KernelLauncher() {
    }

    /** Kernel argument {@code i} (a 64-bit value: an SVM address or a count). */
    static long arg(WorkItem wi, int i) {
        return wi.kernarg().get(ValueLayout.JAVA_LONG, 8L * i);
    }

    /** Launches {@code kernel} over {@code grid} work-items in workgroups of {@code workgroup} with the launch call; returns its completion. */
    static DispatchCompletion launch(HsaRuntime rt, Queue queue, Kernel kernel, int grid, int workgroup, long... args) {
        Executable exe = rt.createExecutable()
                .define("test_kernel", KernelDescriptor.withKernarg(8 * Math.max(1, args.length)), kernel).freeze();
        return queue.dispatch(exe.symbol("test_kernel").kernelObject(), grid, workgroup, args);
    }

    /** Host side: waits (bounded by 20 s, then fails the test) until the int at {@code flag} is {@code value}, with acquire loads. */
    static void hostAwait(HsaRuntime rt, long flag, int value) {
        long end = System.nanoTime() + 20_000_000_000L;
        while (rt.svm().loadIntAcquire(flag) != value) {
            if (System.nanoTime() - end > 0) {
                fail("the kernel never set its flag");
            }
            Thread.onSpinWait();
        }
    }

    /** Waits until the dispatch ended; its failure throws; an interrupt (test timeout) fails the test. */
    static void await(DispatchCompletion done) {
        while (!done.join(100, TimeUnit.MILLISECONDS)) {
            if (Thread.currentThread().isInterrupted()) {
                fail("interrupted while waiting for a kernel");
            }
        }
    }
}
