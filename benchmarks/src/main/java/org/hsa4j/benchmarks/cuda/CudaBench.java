package org.hsa4j.benchmarks.cuda;

import java.lang.foreign.MemorySegment;

import org.hsa4j.benchmarks.Dispatches;
import org.hsa4j.cuda.CudaAgent;
import org.hsa4j.cuda.CudaCodeObject;
import org.hsa4j.cuda.CudaKernel;
import org.hsa4j.cuda.CudaModule;
import org.hsa4j.cuda.CudaPlatform;
import org.hsa4j.cuda.CudaResidentOptions;
import org.hsa4j.cuda.CudaResidentProgram;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;

/**
 * The CUDA agent, its kernels and one AQL queue for a benchmark trial, opened beside a runtime.
 * {@link #open} fails the trial with a clear message where there is no CUDA device, so a run that
 * selects the {@code Cuda} benchmarks on a machine without one stops at once instead of measuring
 * nothing ({@code ./hsa4j bench} leaves them out there).
 */
final class CudaBench implements AutoCloseable {
    /** The kernels shipped with hsa-cuda ({@code hsa4j_kernels.cu}, built to PTX with nvcc). */
    static final String KERNELS = "org/hsa4j/cuda/kernels/hsa4j_kernels.ptx";

    final HsaRuntime runtime;
    final CudaAgent agent;
    final CudaModule kernels;
    final Queue queue;
    /** True when this bench opened the agent (no registered one): it closes it. */
    private final boolean ownsAgent;
    private volatile RuntimeException queueError;
    /** The GPU-resident queue and its program, made on first use ({@link #resident}). */
    private Queue resident;
    private CudaResidentProgram program;

    private CudaBench(HsaRuntime runtime, CudaAgent agent, int queueSize, boolean ownsAgent) {
        this.runtime = runtime;
        this.agent = agent;
        this.ownsAgent = ownsAgent;
        this.kernels = agent.load(CudaCodeObject.fromResource(KERNELS));
        this.queue = agent.createQueue(queueSize, QueueType.SINGLE, (e, q) -> queueError = e);
    }

    /**
     * Device 0's agent of {@code runtime} (the registered one, else one opened here) with a queue of
     * {@code queueSize} packets.
     *
     * @throws IllegalStateException naming why, where CUDA finds no device
     */
    static CudaBench open(HsaRuntime runtime, int queueSize) {
        CudaPlatform p = CudaPlatform.discover();
        if (!p.available()) {
            throw new IllegalStateException("no CUDA device: " + p.reason()
                    + " (the Cuda* benchmarks need an NVIDIA GPU; ./hsa4j bench leaves them out where there is none)");
        }
        boolean registered = !CudaAgent.in(runtime).isEmpty();
        CudaAgent agent = CudaAgent.inOrOpen(runtime, p, 0);
        try {
            return new CudaBench(runtime, agent, queueSize, !registered);
        } catch (RuntimeException e) {
            if (!registered) {
                agent.close();
            }
            throw e;
        }
    }

    /**
     * A GPU-resident queue of {@code size} packets on this agent (made once), running the built-in
     * resident kernels; its errors fail the trial as the AQL queue's do.
     */
    Queue resident(int size) {
        if (resident == null) {
            program = CudaResidentProgram.builtin(agent);
            resident = agent.createResidentQueue(size, QueueType.SINGLE, (e, q) -> queueError = e, program,
                    CudaResidentOptions.DEFAULTS);
        }
        return resident;
    }

    /** The kernel object of built-in resident kernel {@code name} ({@link #resident} first). */
    long residentKernel(String name) {
        return program.kernelObject(name);
    }

    CudaKernel kernel(String symbol) {
        return kernels.kernel(symbol);
    }

    /** A kernarg segment of {@code bytes} in the runtime's kernarg pool: its address for the packet. */
    long kernarg(long bytes) {
        return runtime.allocate(runtime.kernargPool(), Math.max(16, bytes));
    }

    /** The host view of the kernarg segment at {@code address}. */
    MemorySegment kernargBytes(long address, long bytes) {
        return runtime.svm().segment(address, bytes);
    }

    /** {@link Dispatches#submitOne} on this agent's queue. */
    void dispatch(CudaKernel kernel, int workgroup, int grid, long kernarg, Signal completion) {
        Dispatches.submitOne(queue, kernel.kernelObject(), workgroup, grid, kernarg, completion);
    }

    /** Throws the error the queue reported, if any. */
    void checkQueue() {
        RuntimeException e = queueError;
        if (e != null) {
            throw new IllegalStateException("the CUDA queue failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            if (resident != null) {
                resident.destroy();
            }
            queue.destroy();
        } finally {
            if (ownsAgent) {
                agent.close();   // the runtime closes the agent it registered
            }
        }
    }
}
