package org.hsa4j.memory;

import static org.hsa4j.memory.KernelLauncher.arg;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fidelity mode's adversarial L2 (issue 21 part 2): a line the agent's caches do not hold is read
 * as home stood at the agent's last system-scope invalidation, as if it had been resident since,
 * so an agent-scope acquire does not make the host's newer data visible even for a line the
 * kernel never read; a system-scope acquire does, and the agent always reads its own writes.
 */
@Timeout(60)
class AdversarialL2Test {
    private static final long SPIN_LIMIT_NANOS = 20_000_000_000L;
    private static final int OLD = 7;
    private static final int NEW = 42;
    /** Four times the L2: streaming through it evicts every line of both cache levels. */
    private static final long EVICTING_BYTES = 8L * 1024 * 1024;

    private HsaRuntime rt;
    private Queue queue;

    @AfterEach
    void close() {
        if (rt != null) {
            rt.close();
        }
    }

    private void start(int gpus) {
        rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(gpus).computeUnits(2).fidelity(true).build());
        queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
    }

    /** Kernel side: a bounded spin until the int at {@code flag} is 1, with an acquire load of {@code scope}. */
    private static void kernelAcquire(Svm svm, long flag, MemoryScope scope) {
        long end = System.nanoTime() + SPIN_LIMIT_NANOS;
        while (svm.atomicLoadInt(flag, MemoryOrder.ACQUIRE, scope) != 1) {
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException("the host never published");
            }
            Thread.onSpinWait();
        }
    }

    /**
     * The data holds OLD before the launch; the running kernel says it started, the host writes NEW
     * and releases a flag at system scope, the kernel acquires the flag at {@code scope} and reads the
     * data for the first time. Returns what it read.
     */
    private int firstReadAfterAcquire(MemoryScope scope) {
        long data = rt.hostMalloc(256);
        long flags = rt.hostMalloc(64);
        rt.svm().setInt(data, OLD);
        DispatchCompletion done = KernelLauncher.launch(rt, queue, wi -> {
            Svm svm = wi.svm();
            long f = arg(wi, 1);
            svm.atomicStoreInt(f, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            kernelAcquire(svm, f + 4, scope);
            svm.atomicStoreInt(f + 8, svm.getInt(arg(wi, 0)), MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        }, 1, 1, data, flags);
        KernelLauncher.hostAwait(rt, flags, 1);
        rt.svm().setInt(data, NEW);
        rt.svm().storeIntRelease(flags + 4, 1);
        KernelLauncher.await(done);
        return rt.svm().getInt(flags + 8);
    }

    @Test
    void shouldServeAStaleLineNeverCachedAfterAgentScopeAcquire() {
        start(1);
        assertEquals(OLD, firstReadAfterAcquire(MemoryScope.AGENT));
    }

    @Test
    void shouldServeAFreshLineNeverCachedAfterSystemScopeAcquire() {
        start(1);
        assertEquals(NEW, firstReadAfterAcquire(MemoryScope.SYSTEM));
    }

    @Test
    void shouldShowTheHostsWritesToTheNextLaunchWithSystemAcquireFence() {
        start(1);
        long data = rt.hostMalloc(256);
        long out = rt.hostMalloc(64);
        rt.svm().setInt(data, OLD);
        KernelLauncher.await(KernelLauncher.launch(rt, queue, wi -> wi.svm().getInt(arg(wi, 0)), 1, 1, data));
        rt.svm().setInt(data, NEW);
        KernelLauncher.await(KernelLauncher.launch(rt, queue,
                wi -> wi.svm().setInt(arg(wi, 1), wi.svm().getInt(arg(wi, 0))), 1, 1, data, out));
        assertEquals(NEW, rt.svm().getInt(out));
    }

    /** The kernel's plain store (released home) and its home atomic stay visible to it once evicted, beside the host's write it never synchronized with. */
    @Test
    void shouldReadItsOwnWritesBackAfterTheyLeftTheCaches() {
        start(1);
        long data = rt.hostMalloc(256);
        long flags = rt.hostMalloc(64);
        rt.svm().setInt(data, OLD);
        DispatchCompletion done = KernelLauncher.launch(rt, queue, wi -> {
            Svm svm = wi.svm();
            long d = arg(wi, 0);
            long f = arg(wi, 1);
            svm.atomicStoreInt(f, 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            kernelAcquire(svm, f + 4, MemoryScope.AGENT);
            svm.setInt(d + 4, NEW);
            Svm.fence(MemoryOrder.RELEASE, MemoryScope.SYSTEM);
            svm.atomicAddInt(d + 8, 5, MemoryOrder.RELAXED, MemoryScope.SYSTEM);
            long other = arg(wi, 2);
            for (long a = other; a < other + EVICTING_BYTES; a += 256) {
                svm.getInt(a);
            }
            svm.atomicStoreInt(f + 8, svm.getInt(d + 4) + svm.getInt(d + 8), MemoryOrder.RELAXED, MemoryScope.SYSTEM);
        }, 1, 1, data, flags, rt.hostMalloc(EVICTING_BYTES));
        KernelLauncher.hostAwait(rt, flags, 1);
        rt.svm().setInt(data + 8, 100);
        rt.svm().storeIntRelease(flags + 4, 1);
        KernelLauncher.await(done);
        assertEquals(NEW + 105, rt.svm().getInt(flags + 8));
    }
}
