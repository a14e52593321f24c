package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.Kernel;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fidelity mode: GPU compute units see memory through write-back caches, so a missing fence, a
 * too-narrow scope or coarse-grained data read mid-kernel gives stale data every time. The
 * mid-kernel tests keep the kernel alive (bounded) until the host has read, so the packet's
 * end-of-kernel release fence cannot hide the stale value.
 */
@Timeout(60)
class FidelityModeTest {
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

    private void start(boolean fidelity, int gpus, int units) {
        rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(gpus).computeUnits(units).fidelity(fidelity).build());
        queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
    }

    private static long arg(WorkItem wi, int i) {
        return wi.kernarg().get(ValueLayout.JAVA_LONG, 8L * i);
    }

    /** Launches a 1-D kernel with the given packet fences through the launch call; returns its completion. */
    private DispatchCompletion launch(Queue q, Kernel kernel, int grid, int workgroup, FenceScope acquire,
                                      FenceScope release, long... args) {
        Executable exe = rt.createExecutable().define("fidelity_kernel",
                KernelDescriptor.withKernarg(8 * Math.max(1, args.length)), kernel).freeze();
        return q.launch(exe.symbol("fidelity_kernel").kernelObject()).grid(grid).workgroup(workgroup)
                .fences(acquire, release).args(args).dispatch();
    }

    private DispatchCompletion launch(Kernel kernel, long... args) {
        return launch(queue, kernel, 1, 1, FenceScope.SYSTEM, FenceScope.SYSTEM, args);
    }

    private static void await(DispatchCompletion done) {
        while (!done.join(100, TimeUnit.MILLISECONDS)) {
            if (Thread.currentThread().isInterrupted()) {
                fail("interrupted while waiting for a kernel");
            }
        }
    }

    /** Kernel side: waits (bounded, relaxed: no acquire that could change the caches) until the int at {@code flag} is {@code value}. */
    private static void kernelAwait(Svm svm, long flag, int value) {
        long end = System.nanoTime() + SPIN_LIMIT_NANOS;
        while (svm.atomicLoadInt(flag, MemoryOrder.RELAXED, MemoryScope.SYSTEM) != value) {
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException("the host never set its flag");
            }
            Thread.onSpinWait();
        }
    }

    /**
     * A kernel writes NEW to {@code data} with a plain store and then publishes the fine-grained
     * flag with a release of {@code scope}; the host acquires the flag, reads the data, and only
     * then lets the kernel end. Returns what the host read.
     */
    private int hostReadAfterKernelRelease(long data, MemoryScope scope) {
        long flags = rt.hostMalloc(64);
        DispatchCompletion done = launch(wi -> {
            Svm svm = wi.svm();
            svm.setInt(arg(wi, 0), NEW);
            svm.atomicStoreInt(arg(wi, 1), 1, MemoryOrder.RELEASE, scope);
            kernelAwait(svm, arg(wi, 1) + 4, 1);
        }, data, flags);
        KernelLauncher.hostAwait(rt, flags, 1);
        int seen = rt.svm().getInt(data);
        rt.svm().storeIntRelease(flags + 4, 1);
        await(done);
        return seen;
    }

    private long coarseVisibleToHost(long bytes) {
        long data = rt.deviceMalloc(rt.gpuAgent(), bytes);
        rt.allowAccess(data, rt.cpuAgent());
        return data;
    }

    @Test
    void shouldHideAgentScopeReleaseFromHost() {
        start(true, 1, 2);
        assertEquals(OLD, hostReadAfterKernelRelease(rt.hostMalloc(64), MemoryScope.AGENT));
    }

    @Test
    void shouldShowSystemScopeReleaseOnFineGrainedToHost() {
        start(true, 1, 2);
        assertEquals(NEW, hostReadAfterKernelRelease(rt.hostMalloc(64), MemoryScope.SYSTEM));
    }

    @Test
    void shouldHideCoarseGrainedDataFromHostUntilKernelEnd() {
        start(true, 1, 2);
        assertEquals(OLD, hostReadAfterKernelRelease(coarseVisibleToHost(64), MemoryScope.SYSTEM));
    }

    @Test
    void shouldShowCoarseGrainedDataToHostAfterKernelEnd() {
        start(true, 1, 2);
        long data = coarseVisibleToHost(64);
        hostReadAfterKernelRelease(data, MemoryScope.SYSTEM);
        assertEquals(NEW, rt.svm().getInt(data));
    }

    @Test
    void shouldShowSystemScopeReleaseOnManagedMemoryToHost() {
        start(true, 1, 2);
        assertEquals(NEW, hostReadAfterKernelRelease(rt.managedMalloc(64), MemoryScope.SYSTEM));
    }

    /** Managed memory whose pages were advised coarse-grained for the GPU agent. */
    private long managedAdvisedCoarse(long bytes) {
        long data = rt.managedMalloc(bytes);
        rt.memAdvise(data, bytes, MemAdvice.SET_COARSE_GRAIN, rt.gpuAgent());
        return data;
    }

    @Test
    void shouldHideManagedMemoryAdvisedCoarseGrainFromHostMidKernel() {
        start(true, 1, 2);
        assertEquals(OLD, hostReadAfterKernelRelease(managedAdvisedCoarse(64), MemoryScope.SYSTEM));
    }

    @Test
    void shouldShowManagedMemoryAdvisedCoarseGrainToHostAfterKernelEnd() {
        start(true, 1, 2);
        long data = managedAdvisedCoarse(64);
        hostReadAfterKernelRelease(data, MemoryScope.SYSTEM);
        assertEquals(NEW, rt.svm().getInt(data));
    }

    @Test
    void shouldBehaveAsBeforeWhenOff() {
        start(false, 1, 2);
        assertEquals(NEW, hostReadAfterKernelRelease(rt.hostMalloc(64), MemoryScope.WORKGROUP));
    }

    @Test
    void shouldHideWorkgroupScopeReleaseFromOtherComputeUnit() {
        start(true, 1, 2);
        // words: 0 arrival counter, 1 flag, 2 data, 3 value the reader saw, 4/5 compute unit of writer/reader,
        // 6 reader done (the writer's workgroup end would write its L1 back)
        long m = rt.hostMalloc(64);
        await(launch(queue, wi -> {
            Svm svm = wi.svm();
            long base = arg(wi, 0);
            int unit = ComputeUnitThread.current().computeUnit();
            int arrival = svm.atomicAddInt(base, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            if (arrival == 0) {
                svm.atomicStoreInt(base + 16, unit, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
                kernelAwait(svm, base, 2);
                svm.setInt(base + 8, NEW);
                svm.atomicStoreInt(base + 4, 1, MemoryOrder.RELEASE, MemoryScope.WORKGROUP);
                kernelAwait(svm, base + 24, 1);
            } else {
                svm.atomicStoreInt(base + 20, unit, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
                long end = System.nanoTime() + SPIN_LIMIT_NANOS;
                while (svm.atomicLoadInt(base + 4, MemoryOrder.ACQUIRE, MemoryScope.WORKGROUP) != 1) {
                    if (System.nanoTime() - end > 0) {
                        throw new IllegalStateException("the writer never published");
                    }
                    Thread.onSpinWait();
                }
                svm.atomicStoreInt(base + 12, svm.getInt(base + 8), MemoryOrder.RELAXED, MemoryScope.SYSTEM);
                svm.atomicStoreInt(base + 24, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            }
        }, 2, 1, FenceScope.SYSTEM, FenceScope.SYSTEM, m));
        assertNotEquals(rt.svm().getInt(m + 16), rt.svm().getInt(m + 20), "both workgroups ran on one compute unit");
        assertEquals(OLD, rt.svm().getInt(m + 12));
    }

    @Test
    void shouldShowAgentScopeReleaseToOtherComputeUnitAfterAgentAcquire() {
        start(true, 1, 2);
        long m = rt.hostMalloc(64);
        await(launch(queue, wi -> {
            Svm svm = wi.svm();
            long base = arg(wi, 0);
            int arrival = svm.atomicAddInt(base, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            if (arrival == 0) {
                kernelAwait(svm, base, 2);
                svm.setInt(base + 8, NEW);
                svm.atomicStoreInt(base + 4, 1, MemoryOrder.RELEASE, MemoryScope.AGENT);
            } else {
                long end = System.nanoTime() + SPIN_LIMIT_NANOS;
                while (svm.atomicLoadInt(base + 4, MemoryOrder.ACQUIRE, MemoryScope.AGENT) != 1) {
                    if (System.nanoTime() - end > 0) {
                        throw new IllegalStateException("the writer never published");
                    }
                    Thread.onSpinWait();
                }
                svm.atomicStoreInt(base + 12, svm.getInt(base + 8), MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            }
        }, 2, 1, FenceScope.SYSTEM, FenceScope.SYSTEM, m));
        assertEquals(NEW, rt.svm().getInt(m + 12));
    }

    /**
     * The kernel reads the data (caching its line), the host then writes it and raises a flag, and
     * the kernel acquires the flag at {@code scope} and reads the data again; returns that read.
     */
    private int kernelRereadAfterAcquire(MemoryScope scope) {
        long data = rt.hostMalloc(64);
        long flags = rt.hostMalloc(64);
        DispatchCompletion done = launch(wi -> {
            Svm svm = wi.svm();
            long d = arg(wi, 0);
            long f = arg(wi, 1);
            int first = svm.getInt(d);
            svm.atomicStoreInt(f, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            long end = System.nanoTime() + SPIN_LIMIT_NANOS;
            while (svm.atomicLoadInt(f + 4, MemoryOrder.ACQUIRE, scope) != 1) {
                if (System.nanoTime() - end > 0) {
                    throw new IllegalStateException("the host never published");
                }
                Thread.onSpinWait();
            }
            svm.atomicStoreInt(f + 8, svm.getInt(d) + first, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        }, data, flags);
        KernelLauncher.hostAwait(rt, flags, 1);
        rt.svm().setInt(data, NEW);
        rt.svm().storeIntRelease(flags + 4, 1);
        await(done);
        return rt.svm().getInt(flags + 8);
    }

    @Test
    void shouldServeStaleLineAfterNarrowAcquire() {
        start(true, 1, 2);
        assertEquals(OLD, kernelRereadAfterAcquire(MemoryScope.WORKGROUP));
    }

    @Test
    void shouldServeFreshLineAfterSystemAcquire() {
        start(true, 1, 2);
        assertEquals(NEW, kernelRereadAfterAcquire(MemoryScope.SYSTEM));
    }

    private int hostReadAfterKernelWithReleaseFence(FenceScope release) {
        return hostReadAfterKernelWithReleaseFence(coarseVisibleToHost(64), release);
    }

    private int hostReadAfterKernelWithReleaseFence(long data, FenceScope release) {
        await(launch(queue, wi -> wi.svm().setInt(arg(wi, 0), NEW), 1, 1, FenceScope.SYSTEM, release, data));
        return rt.svm().getInt(data);
    }

    @Test
    void shouldWriteBackAtKernelEndWithSystemFence() {
        start(true, 1, 2);
        assertEquals(NEW, hostReadAfterKernelWithReleaseFence(FenceScope.SYSTEM));
    }

    @Test
    void shouldKeepDataInL2WithAgentReleaseFence() {
        start(true, 1, 2);
        assertEquals(OLD, hostReadAfterKernelWithReleaseFence(FenceScope.AGENT));
    }

    @Test
    void shouldKeepFineGrainedDataInL2WithAgentReleaseFenceDespiteTheCompletionSignal() {
        start(true, 1, 2);
        assertEquals(OLD, hostReadAfterKernelWithReleaseFence(rt.hostMalloc(64), FenceScope.AGENT));
    }

    @Test
    void shouldShowAgentFencedDataToNextKernelOnSameAgent() {
        start(true, 1, 2);
        long data = coarseVisibleToHost(64);
        long out = rt.hostMalloc(64);
        await(launch(queue, wi -> wi.svm().setInt(arg(wi, 0), NEW), 1, 1, FenceScope.SYSTEM, FenceScope.AGENT, data));
        await(launch(queue, wi -> wi.svm().setInt(arg(wi, 1), wi.svm().getInt(arg(wi, 0))), 1, 1,
                FenceScope.AGENT, FenceScope.SYSTEM, data, out));
        assertEquals(NEW, rt.svm().getInt(out));
    }

    @Test
    void shouldNeverLoseWritesOnEviction() {
        start(true, 1, 2);
        int n = 1 << 20;
        long a = rt.hostMalloc(4L * n);
        long b = coarseVisibleToHost(4L * n);
        long c = rt.hostMalloc(4L * n);
        for (int i = 0; i < n; i++) {
            rt.svm().setInt(a + 4L * i, i);
            rt.svm().setInt(b + 4L * i, 3 * i);
        }
        int chunk = 256;
        await(launch(queue, wi -> {
            Svm svm = wi.svm();
            long count = arg(wi, 3);
            IntView x = svm.ints(arg(wi, 0), count);
            IntView y = svm.ints(arg(wi, 1), count);
            IntView z = svm.ints(arg(wi, 2), count);
            long first = wi.flatGlobalId() * chunk;
            for (long i = first; i < first + chunk; i++) {
                z.set(i, x.get(i) + y.get(i));
            }
        }, n / chunk, 64, FenceScope.SYSTEM, FenceScope.SYSTEM, a, b, c, n));
        for (int i = 0; i < n; i++) {
            if (rt.svm().getInt(c + 4L * i) != 4 * i) {
                fail("element " + i + " is " + rt.svm().getInt(c + 4L * i) + ", not " + 4 * i);
            }
        }
    }

    @Test
    void shouldShowFineGrainedDataAfterKernelScreleaseSignal() {
        start(true, 1, 2);
        assertEquals(NEW, hostReadAfterKernelSignal(rt.hostMalloc(64)));
    }

    @Test
    void shouldHideCoarseGrainedDataAfterKernelScreleaseSignal() {
        start(true, 1, 2);
        assertEquals(OLD, hostReadAfterKernelSignal(coarseVisibleToHost(64)));
    }

    /** sync_1way: the kernel writes the data, then signals with screlease; the host waits, reads, lets the kernel end. */
    private int hostReadAfterKernelSignal(long data) {
        Signal ready = rt.createSignal(1);
        long flags = rt.hostMalloc(64);
        DispatchCompletion done = launch(wi -> {
            wi.svm().setInt(arg(wi, 0), NEW);
            ready.subtractScrelease(1);
            kernelAwait(wi.svm(), arg(wi, 1), 1);
        }, data, flags);
        while (ready.waitScacquire(SignalCondition.EQ, 0, 100_000_000L, WaitState.BLOCKED) != 0) {
            assertTrue(!Thread.currentThread().isInterrupted(), "interrupted");
        }
        int seen = rt.svm().getInt(data);
        rt.svm().storeIntRelease(flags, 1);
        await(done);
        return seen;
    }

    @Test
    void shouldHideSystemScopeAtomicOnCoarseGrainedMemoryFromHostMidKernel() {
        start(true, 1, 2);
        long data = coarseVisibleToHost(64);
        long flags = rt.hostMalloc(64);
        DispatchCompletion done = launch(wi -> {
            wi.svm().atomicAddInt(arg(wi, 0), NEW, MemoryOrder.SEQ_CST, MemoryScope.SYSTEM);
            wi.svm().atomicStoreInt(arg(wi, 1), 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
            kernelAwait(wi.svm(), arg(wi, 1) + 4, 1);
        }, data, flags);
        KernelLauncher.hostAwait(rt, flags, 1);
        int seen = rt.svm().atomicLoadInt(data, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
        rt.svm().storeIntRelease(flags + 4, 1);
        await(done);
        assertEquals(OLD, seen);
    }

    @Test
    void shouldShowSystemScopeAtomicOnFineGrainedMemoryToHostMidKernel() {
        start(true, 1, 2);
        long data = rt.hostMalloc(64);
        long flags = rt.hostMalloc(64);
        DispatchCompletion done = launch(wi -> {
            wi.svm().atomicAddInt(arg(wi, 0), NEW, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            wi.svm().atomicStoreInt(arg(wi, 1), 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
            kernelAwait(wi.svm(), arg(wi, 1) + 4, 1);
        }, data, flags);
        KernelLauncher.hostAwait(rt, flags, 1);
        int seen = rt.svm().atomicLoadInt(data, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
        rt.svm().storeIntRelease(flags + 4, 1);
        await(done);
        assertEquals(NEW, seen);
    }

    @Test
    void shouldLetAKernelReadItsOwnStoreBeforeAnAtomicOnTheSameWord() {
        start(true, 1, 2);
        long data = rt.hostMalloc(64);
        long out = rt.hostMalloc(64);
        await(launch(wi -> {
            Svm svm = wi.svm();
            svm.setInt(arg(wi, 0), 40);
            int before = svm.atomicAddInt(arg(wi, 0), 2, MemoryOrder.RELAXED, MemoryScope.AGENT);
            svm.setInt(arg(wi, 1), before * 1000 + svm.getInt(arg(wi, 0)));
        }, data, out));
        assertEquals(40 * 1000 + NEW, rt.svm().getInt(out));
    }

    @Test
    void shouldRoundTripAccessesThatStraddleTwoLines() {
        start(true, 1, 2);
        long data = rt.hostMalloc(256);
        long value = 0x1122_3344_5566_7788L;
        await(launch(wi -> {
            Svm svm = wi.svm();
            svm.setLong(arg(wi, 0) + 60, value);
            svm.setLong(arg(wi, 0) + 128, svm.getLong(arg(wi, 0) + 60));
            svm.copy(arg(wi, 0) + 190, arg(wi, 0) + 128, 8);
        }, data));
        assertEquals(value, rt.svm().getLong(data + 60));
        assertEquals(value, rt.svm().getLong(data + 190));
    }

    @Test
    void shouldLeaveTheHostCoherentWithHomeMemory() {
        start(true, 1, 2);
        long data = rt.hostMalloc(64);
        rt.svm().setInt(data, NEW);
        assertEquals(NEW, rt.svm().getInt(data));
        Svm.fence(MemoryOrder.SEQ_CST, MemoryScope.SYSTEM);
        assertEquals(NEW, rt.svm().segment(data, 4).get(ValueLayout.JAVA_INT, 0));
    }
}
