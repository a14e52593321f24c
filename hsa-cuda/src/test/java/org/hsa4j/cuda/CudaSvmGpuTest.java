package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.Svm;
import org.hsa4j.memory.SvmAddress;
import org.hsa4j.queue.Queue;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real-address SVM on a GPU (issue 18 part 2): one address, the same bytes, on the host and in CUDA kernels. */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CudaSvmGpuTest extends GpuQueueTest {
    private void vectorAdd(MemoryPool pool, int n) {
        Svm svm = gpu.runtime.svm();
        long a = pool.allocate(4L * n);
        long b = pool.allocate(4L * n);
        long c = pool.allocate(4L * n);
        assertFalse(SvmAddress.tagged(a));
        for (int i = 0; i < n; i++) {
            svm.setFloat(a + 4L * i, i);
            svm.setFloat(b + 4L * i, 2 * i);
        }
        Signal done = gpu.runtime.createSignal(1);
        GpuFixture.dispatch(queue, gpu.kernels.kernel("hsa4j_vector_add"), 256, n,
                gpu.kernarg(new long[] {a, b, c}, n), done, false);
        GpuFixture.awaitZero(done);
        for (int i = 0; i < n; i++) {
            assertEquals(3f * i, svm.getFloat(c + 4L * i), "c[" + i + "]");
        }
        pool.free(a);
        pool.free(b);
        pool.free(c);
        assertFalse(error.isDone(), () -> "queue error: " + error.getNow(null));
    }

    @Test
    void aCudaKernelReadsAndWritesSvmPoolMemoryAtTheHostsAddresses() {
        vectorAdd(gpu.agent.svmPool(), 1000);
    }

    @Test
    void aSpanMappedAfterTheAgentOpenedIsRegisteredBeforeItIsHandedOut() {
        vectorAdd(gpu.agent.svmPool(), 3 << 20);   // 12 MiB each: spans of their own, mapped now
    }

    @Test
    void managedMemoryPrefetchedToTheDeviceAndBackKeepsWhatAKernelWrote() {
        int n = 4096;
        try (CudaBuffer m = gpu.agent.allocateManaged(4L * n)) {
            m.advise(0, 4L * n, org.hsa4j.memory.MemAdvice.SET_PREFERRED_LOCATION, true);
            m.prefetch(0, 4L * n, true);
            Signal done = gpu.runtime.createSignal(1);
            GpuFixture.dispatch(queue, gpu.kernels.kernel("hsa4j_mark"), 256, n, gpu.kernarg(new long[] {m.address()}, n),
                    done, false);
            GpuFixture.awaitZero(done);
            m.prefetch(0, 4L * n, false);
            m.advise(0, 4L * n, org.hsa4j.memory.MemAdvice.UNSET_PREFERRED_LOCATION, true);
            for (int i = 0; i < n; i++) {
                assertEquals(n, m.hostSegment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, i), "m[" + i + "]");
            }
        }
    }

    @Test
    void deviceLocalPoolMemoryIsReachedByKernelsAndIsAnApertureViolationForTheHost() {
        int n = 1024;
        MemoryPool svmPool = gpu.agent.svmPool();
        Svm svm = gpu.runtime.svm();
        long a = svmPool.allocate(4L * n);
        long zero = svmPool.allocate(4L * n);
        long out = svmPool.allocate(4L * n);
        long dev = gpu.agent.deviceLocalPool().allocate(4L * n);
        for (int i = 0; i < n; i++) {
            svm.setFloat(a + 4L * i, i);
            svm.setFloat(zero + 4L * i, 0);
        }
        Signal done = gpu.runtime.createSignal(2);
        CudaKernel add = gpu.kernels.kernel("hsa4j_vector_add");
        GpuFixture.dispatch(queue, add, 256, n, gpu.kernarg(new long[] {a, a, dev}, n), done, false);
        GpuFixture.dispatch(queue, add, 256, n, gpu.kernarg(new long[] {dev, zero, out}, n), done, true);
        GpuFixture.awaitZero(done);
        for (int i = 0; i < n; i++) {
            assertEquals(2f * i, svm.getFloat(out + 4L * i), "out[" + i + "]");
        }
        assertEquals(org.hsa4j.status.HsaStatus.MEMORY_APERTURE_VIOLATION,
                org.junit.jupiter.api.Assertions.assertThrows(org.hsa4j.memory.MemoryFaultException.class,
                        () -> svm.getFloat(dev)).status());
        gpu.agent.deviceLocalPool().free(dev);
        svmPool.free(a);
        svmPool.free(zero);
        svmPool.free(out);
    }

    @Test
    void managedPoolMemoryIsWrittenByAKernelAfterAPrefetchAndReadByTheHostAtTheSameAddress() {
        int n = 4096;
        MemoryPool managed = gpu.agent.managedPool();
        Svm svm = gpu.runtime.svm();
        long m = managed.allocate(4L * n);
        svm.setInt(m, -1);
        gpu.agent.memAdvise(m, 4L * n, org.hsa4j.memory.MemAdvice.SET_PREFERRED_LOCATION, true);
        gpu.agent.memPrefetch(m, 4L * n, true);
        Signal done = gpu.runtime.createSignal(1);
        GpuFixture.dispatch(queue, gpu.kernels.kernel("hsa4j_mark"), 256, n, gpu.kernarg(new long[] {m}, n), done, false);
        GpuFixture.awaitZero(done);
        gpu.agent.memPrefetch(m, 4L * n, false);
        for (int i = 0; i < n; i++) {
            assertEquals(n, svm.getInt(m + 4L * i), "m[" + i + "]");
        }
        managed.free(m);
    }

    @Test
    void prefetchOfPinnedMemoryIsRefused() {
        try (CudaBuffer p = gpu.agent.allocatePinned(4096)) {
            assertEquals(org.hsa4j.status.HsaStatus.INVALID_ARGUMENT,
                    org.junit.jupiter.api.Assertions.assertThrows(HsaException.class, () -> p.prefetch(0, 4096, true)).status());
        }
    }

    @Test
    void gpuAndHostThreadsInsertIntoOneTreeAndEveryKeyIsThereOnceInOrder() {
        CudaBinaryTree.Result r = CudaBinaryTree.run(gpu.runtime, gpu.agent, gpu.kernels, queue, 1 << 14, 2, 1 << 11);
        assertNull(r.problem());
        assertFalse(error.isDone(), () -> "queue error: " + error.getNow(null));
    }
}
