package org.hsa4j.memory;

import static org.hsa4j.memory.KernelLauncher.arg;
import static org.hsa4j.memory.KernelLauncher.await;
import static org.hsa4j.memory.KernelLauncher.launch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import org.hsa4j.memory.coherence.CacheGeometry;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fidelity mode through the typed views, whose element accesses take a lease on the L1 sector they
 * touched last ({@link SectorCursor}): a lease must give exactly what the cache gives, so every
 * change of the line (an acquire dropping it, an eviction, the end of a workgroup) must end it,
 * and a view shared by two compute units must never serve one unit from the other's L1.
 */
@Timeout(60)
class ViewSectorLeaseTest {
    private static final long SPIN_LIMIT_NANOS = 20_000_000_000L;
    private static final int OLD = 0;
    private static final int NEW = 42;

    private HsaRuntime rt;
    private Queue queue;

    @AfterEach
    void close() {
        if (rt != null) {
            rt.close();
        }
    }

    private void start(int units) {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(units).fidelity(true).build());
        queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
    }

    /** Kernel side: waits (bounded) until the int at {@code flag} is {@code value}, acquiring at {@code scope}. */
    private static void kernelAwait(Svm svm, long flag, int value, MemoryScope scope) {
        long end = System.nanoTime() + SPIN_LIMIT_NANOS;
        while (svm.atomicLoadInt(flag, MemoryOrder.ACQUIRE, scope) != value) {
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException("flag " + flag + " never became " + value);
            }
            Thread.onSpinWait();
        }
    }

    /**
     * The kernel reads element 0 through a view (leasing its line), the host then writes NEW and
     * raises a flag, the kernel acquires the flag at {@code scope} and reads element 0 again through
     * the same view; returns that second read.
     */
    private int viewRereadAfterAcquire(MemoryScope scope) {
        long data = rt.hostMalloc(64);
        long flags = rt.hostMalloc(64);
        DispatchCompletion done = launch(rt, queue, wi -> {
            Svm svm = wi.svm();
            IntView view = svm.ints(arg(wi, 0), 16);
            int first = view.get(0);
            long f = arg(wi, 1);
            svm.atomicStoreInt(f, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            kernelAwait(svm, f + 4, 1, scope);
            svm.atomicStoreInt(f + 8, view.get(0) + first, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        }, 1, 1, data, flags);
        KernelLauncher.hostAwait(rt, flags, 1);
        rt.svm().setInt(data, NEW);
        rt.svm().storeIntRelease(flags + 4, 1);
        await(done);
        return rt.svm().getInt(flags + 8);
    }

    @Test
    void shouldKeepServingTheLeasedLineAfterANarrowAcquire() {
        start(1);
        assertEquals(OLD, viewRereadAfterAcquire(MemoryScope.WORKGROUP));
    }

    @Test
    void shouldEndTheLeaseWhenASystemAcquireDropsTheLine() {
        start(1);
        assertEquals(NEW, viewRereadAfterAcquire(MemoryScope.SYSTEM));
    }

    /** A kernel writes NEW through a view, releases a flag at {@code scope}, and waits until the host has read; returns the host's read. */
    private int hostReadOfViewStoreAfterRelease(MemoryScope scope) {
        long data = rt.hostMalloc(64);
        long flags = rt.hostMalloc(64);
        DispatchCompletion done = launch(rt, queue, wi -> {
            Svm svm = wi.svm();
            svm.ints(arg(wi, 0), 16).set(3, NEW);
            long f = arg(wi, 1);
            svm.atomicStoreInt(f, 1, MemoryOrder.RELEASE, scope);
            kernelAwait(svm, f + 4, 1, MemoryScope.WORKGROUP);
        }, 1, 1, data, flags);
        KernelLauncher.hostAwait(rt, flags, 1);
        int seen = rt.svm().getInt(data + 12);
        rt.svm().storeIntRelease(flags + 4, 1);
        await(done);
        return seen;
    }

    @Test
    void shouldKeepALeasedStoreFromTheHostUntilASystemRelease() {
        start(1);
        assertEquals(OLD, hostReadOfViewStoreAfterRelease(MemoryScope.AGENT));
    }

    @Test
    void shouldShowALeasedStoreToTheHostAfterASystemRelease() {
        start(1);
        assertEquals(NEW, hostReadOfViewStoreAfterRelease(MemoryScope.SYSTEM));
    }

    @Test
    void shouldNeverServeOneComputeUnitFromAnotherUnitsLease() {
        start(2);
        // words: 0 arrival counter, 1 writer done, 2 what the reader saw, 3/4 units of writer and reader, 5 reader done
        long m = rt.hostMalloc(64);
        long data = rt.hostMalloc(64);
        IntView shared = rt.svm().ints(data, 16);
        await(launch(rt, queue, wi -> {
            Svm svm = wi.svm();
            long base = arg(wi, 0);
            int unit = ComputeUnitThread.current().computeUnit();
            if (svm.atomicAddInt(base, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM) == 0) {
                svm.atomicStoreInt(base + 12, unit, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
                kernelAwait(svm, base, 2, MemoryScope.WORKGROUP);
                shared.set(0, shared.get(0) + NEW);
                svm.atomicStoreInt(base + 4, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
                kernelAwait(svm, base + 20, 1, MemoryScope.WORKGROUP);
            } else {
                svm.atomicStoreInt(base + 16, unit, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
                kernelAwait(svm, base + 4, 1, MemoryScope.WORKGROUP);
                svm.atomicStoreInt(base + 8, shared.get(0), MemoryOrder.RELAXED, MemoryScope.SYSTEM);
                svm.atomicStoreInt(base + 20, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            }
        }, 2, 1, m));
        assertNotEquals(rt.svm().getInt(m + 12), rt.svm().getInt(m + 16), "both workgroups ran on one compute unit");
        assertEquals(OLD, rt.svm().getInt(m + 8), "the reader saw the writer's unreleased store");
        assertEquals(NEW, shared.get(0), "the writer's store was lost at kernel end");
    }

    @Test
    void shouldEndTheLeaseWithTheWorkgroup() {
        start(1);
        long data = rt.hostMalloc(64);
        IntView shared = rt.svm().ints(data, 16);
        long out = rt.hostMalloc(64);
        await(launch(rt, queue, wi -> shared.set(0, shared.get(0) + 1), 1, 1));
        rt.svm().setInt(data, NEW);
        await(launch(rt, queue, wi -> wi.svm().setInt(arg(wi, 0), shared.get(0)), 1, 1, out));
        assertEquals(NEW, rt.svm().getInt(out), "the second kernel read through the first kernel's lease");
    }

    @Test
    void shouldNeverLoseLeasedStoresWhenLinesAreEvicted() {
        start(1);
        int count = 4 * CacheGeometry.DEFAULT_L2_LINES * CacheGeometry.LINE_SIZE / Integer.BYTES / 8;
        long data = rt.hostMalloc(4L * count);
        long other = rt.hostMalloc(4L * count);
        await(launch(rt, queue, wi -> {
            Svm svm = wi.svm();
            IntView a = svm.ints(arg(wi, 0), count);
            IntView b = svm.ints(arg(wi, 1), count);
            for (int i = 0; i < count; i++) {
                a.set(i, i);
                b.set(count - 1 - i, a.get(i) * 3);
            }
        }, 1, 1, data, other));
        for (int i = 0; i < count; i++) {
            if (rt.svm().getInt(data + 4L * i) != i || rt.svm().getInt(other + 4L * (count - 1 - i)) != 3 * i) {
                fail("element " + i + " was lost: " + rt.svm().getInt(data + 4L * i) + ", "
                        + rt.svm().getInt(other + 4L * (count - 1 - i)));
            }
        }
    }

    /**
     * The kernel reads element 0 through a view (leasing its sector), the host frees the
     * allocation and raises a flag, the kernel acquires the flag at WORKGROUP scope (ordered after
     * the free, yet no line is dropped, so the lease is not revoked by the acquire) and reads
     * element 1 of the same sector through the same view; returns 1 when that read faulted.
     */
    private int viewReadAfterFree() {
        long data = rt.hostMalloc(64);
        long flags = rt.hostMalloc(64);
        DispatchCompletion done = launch(rt, queue, wi -> {
            Svm svm = wi.svm();
            IntView view = svm.ints(arg(wi, 0), 16);
            view.get(0);
            long f = arg(wi, 1);
            svm.atomicStoreInt(f, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            kernelAwait(svm, f + 4, 1, MemoryScope.WORKGROUP);
            int faulted;
            try {
                view.get(1);
                faulted = 0;
            } catch (MemoryFaultException e) {
                faulted = e.status() == HsaStatus.MEMORY_FAULT ? 1 : 2;
            }
            svm.atomicStoreInt(f + 8, faulted, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        }, 1, 1, data, flags);
        KernelLauncher.hostAwait(rt, flags, 1);
        rt.free(data);
        rt.svm().storeIntRelease(flags + 4, 1);
        await(done);
        return rt.svm().getInt(flags + 8);
    }

    @Test
    void shouldFaultALeasedElementAccessOrderedAfterTheFree() {
        start(1);
        assertEquals(1, viewReadAfterFree(), "the read through the view's lease did not fault");
    }

    @Test
    void shouldFaultAHostElementAccessAfterTheFree() {
        start(1);
        long data = rt.hostMalloc(64);
        IntView view = rt.svm().ints(data, 16);
        view.set(2, NEW);
        rt.free(data);
        MemoryFaultException e = assertThrows(MemoryFaultException.class, () -> view.get(2));
        assertEquals(data + 8, e.address());
    }

    @Test
    void shouldReadHomeThroughAViewOnTheHost() {
        start(1);
        long data = rt.hostMalloc(64);
        IntView view = rt.svm().ints(data, 16);
        rt.svm().setInt(data + 8, NEW);
        assertEquals(NEW, view.get(2));
        view.set(2, NEW + 1);
        assertEquals(NEW + 1, rt.svm().getInt(data + 8));
    }
}
