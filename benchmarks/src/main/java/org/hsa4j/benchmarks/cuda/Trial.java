package org.hsa4j.benchmarks.cuda;

import java.util.ArrayDeque;
import java.util.Deque;

import org.hsa4j.cuda.CudaStream;
import org.hsa4j.kernel.Kernel;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;

/**
 * What one benchmark trial opens, whichever side it measures: a runtime, and the CUDA agent with
 * its queue and a raw stream, or a queue on the runtime's CPU-pool agent, plus anything the
 * benchmark hands to {@link #own}. {@link #close} checks that the CUDA queue reported no error, then
 * closes everything in the reverse order of opening, the runtime last, even when a step fails.
 */
final class Trial implements AutoCloseable {
    final HsaRuntime runtime = HsaRuntime.init();
    private final Deque<AutoCloseable> owned = new ArrayDeque<>();
    private CudaBench gpu;

    /** Closes {@code resource} with the trial (before whatever was owned earlier); returns it. */
    <T extends AutoCloseable> T own(T resource) {
        owned.push(resource);
        return resource;
    }

    /** The CUDA agent on device 0 with a queue of {@code queueSize} packets (fails the trial without a device). */
    CudaBench gpu(int queueSize) {
        gpu = own(CudaBench.open(runtime, queueSize));
        return gpu;
    }

    /** A raw stream on the trial's CUDA agent: the RAW_CUDA baselines. */
    CudaStream stream() {
        return own(CudaStream.open(gpu.agent));
    }

    /** A queue of {@code size} packets on the CPU-pool GPU agent (destroyed with the runtime). */
    Queue cpuQueue(int size) {
        return runtime.gpuAgent().createQueue(size, QueueType.SINGLE, null);
    }

    /** The kernel object of a Java kernel for the CPU-pool agent. */
    long cpuKernel(String name, Kernel code) {
        return runtime.createExecutable().define(name, KernelDescriptor.EMPTY, code).freeze().symbol(name).kernelObject();
    }

    @Override
    public void close() {
        RuntimeException first = null;
        if (gpu != null) {
            try {
                gpu.checkQueue();
            } catch (RuntimeException e) {
                first = e;
            }
        }
        while (!owned.isEmpty()) {
            try {
                owned.pop().close();
            } catch (Exception e) {
                first = suppress(first, e);
            }
        }
        try {
            runtime.close();
        } catch (RuntimeException e) {
            first = suppress(first, e);
        }
        if (first != null) {
            throw first;
        }
    }

    private static RuntimeException suppress(RuntimeException first, Exception e) {
        RuntimeException r = e instanceof RuntimeException re ? re : new IllegalStateException(e);
        if (first == null) {
            return r;
        }
        first.addSuppressed(r);
        return first;
    }
}
