package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.queue.Queue;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/** A runtime, a CUDA agent on device 0 and hsa4j's kernels loaded into it: what the GPU tests share. */
final class GpuFixture implements AutoCloseable {
    static final String KERNELS_CU = "org/hsa4j/cuda/kernels/hsa4j_kernels.cu";
    static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    final HsaRuntime runtime;
    final CudaAgent agent;
    final CudaModule kernels;

    GpuFixture() {
        runtime = HsaRuntime.init();
        // the agent HsaRuntime.init() registered; opened here when HSA4J_CUDA=off kept it out
        List<CudaAgent> registered = CudaAgent.in(runtime);
        agent = registered.isEmpty() ? CudaAgent.open(runtime, Gpu.platform(), 0) : registered.get(0);
        kernels = agent.load(CudaCodeObject.fromResource(CudaCodeObjectTest.KERNELS_PTX));
    }

    static String kernelSource() {
        try (var in = GpuFixture.class.getClassLoader().getResourceAsStream(KERNELS_CU)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A kernarg segment in the runtime's kernarg pool holding {@code longs} then {@code ints}. */
    long kernarg(long[] longs, int... ints) {
        return kernarg(runtime, longs, ints);
    }

    /** A kernarg segment in {@code runtime}'s kernarg pool holding {@code longs} then {@code ints}. */
    static long kernarg(HsaRuntime runtime, long[] longs, int... ints) {
        long bytes = Math.max(16, 8L * longs.length + 8L * ints.length);
        long address = runtime.allocate(runtime.kernargPool(), bytes);
        MemorySegment s = runtime.cpuAgent().svm().segment(address, bytes);
        long at = 0;
        for (long v : longs) {
            s.set(java.lang.foreign.ValueLayout.JAVA_LONG, at, v);
            at += 8;
        }
        for (int v : ints) {
            s.set(java.lang.foreign.ValueLayout.JAVA_INT, at, v);
            at += 4;
        }
        return address;
    }

    /** Submits a 1-dimensional dispatch with the queue's launch call (the test's kernarg and signal); returns the packet id. */
    static long dispatch(Queue q, CudaKernel k, int workgroup, int grid, long kernarg, Signal completion, boolean barrier) {
        return q.launch(k.kernelObject()).grid(grid).workgroup(workgroup).kernarg(kernarg).completion(completion)
                .barrier(barrier).dispatch().packetId();
    }

    /**
     * c = a + b on {@code n} floats in {@code agent}'s SVM through {@code q} with {@code vectorAdd}
     * (hsa4j_vector_add), checked element by element; the buffers are freed after.
     */
    static void vectorAdd(HsaRuntime runtime, CudaAgent agent, CudaKernel vectorAdd, Queue q, int n) {
        long bytes = 4L * n;
        long a = agent.svmPool().allocate(bytes);
        long b = agent.svmPool().allocate(bytes);
        long c = agent.svmPool().allocate(bytes);
        try {
            MemorySegment sa = runtime.cpuAgent().svm().segment(a, bytes);
            MemorySegment sb = runtime.cpuAgent().svm().segment(b, bytes);
            MemorySegment sc = runtime.cpuAgent().svm().segment(c, bytes);
            for (int i = 0; i < n; i++) {
                sa.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i, i);
                sb.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i, 2 * i + 1);
            }
            Signal done = runtime.createSignal(1);
            dispatch(q, vectorAdd, 256, n, kernarg(runtime, new long[] {a, b, c}, n), done, false);
            awaitZero(done);
            for (int i = 0; i < n; i++) {
                assertEquals(3f * i + 1, sc.getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i), "element " + i);
            }
        } finally {
            agent.svmPool().free(a);
            agent.svmPool().free(b);
            agent.svmPool().free(c);
        }
    }

    /** Waits (bounded) until {@code s} is 0. */
    static void awaitZero(Signal s) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        long v;
        while ((v = s.waitScacquire(SignalCondition.EQ, 0, WAIT_NANOS, WaitState.BLOCKED)) != 0) {
            if (System.nanoTime() - deadline > 0) {
                fail("signal still " + v + " after 60 s");
            }
        }
        assertEquals(0, v);
    }

    @Override
    public void close() {
        agent.close();
        runtime.close();
    }
}
