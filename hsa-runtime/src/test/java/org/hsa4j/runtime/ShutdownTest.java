package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.signal.Signal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** Closing the runtime while packets are running and queued. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShutdownTest {
    /** Longest a close with a stuck kernel may take (the runtime waits a grace period for it). */
    static final Duration CLOSE_BOUND = Duration.ofSeconds(15);

    /** Marks itself started and spins on a flag nobody sets, bounded so a broken runtime cannot keep it forever. */
    static void spinForever(WorkItem wi) {
        long flag = wi.kernarg().get(ValueLayout.JAVA_LONG, 0);
        long started = wi.kernarg().get(ValueLayout.JAVA_LONG, 8);
        wi.svm().atomicStoreInt(started, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (wi.svm().atomicLoadInt(flag, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) == 0
                && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
    }

    @Test
    void shouldFailEveryWaiterOfRunningAndQueuedPacketsWhenClosed() throws InterruptedException {
        HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build());
        long spin = rt.createExecutable().define("spin", KernelDescriptor.withKernarg(16), ShutdownTest::spinForever)
                .define("noop", KernelDescriptor.EMPTY, wi -> { }).freeze().symbol("spin").kernelObject();
        long flag = rt.hostMalloc(8);
        long started = rt.hostMalloc(8);
        long kernarg = rt.kernargPool().allocate(16);
        rt.svm().setLong(kernarg, flag);
        rt.svm().setLong(kernarg + 8, started);
        Queue q = rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
        Queue cpuQueue = rt.cpuAgent().createQueue(16, QueueType.MULTI, null);
        Signal gate = rt.createSignal(1);
        List<Signal> pending = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            pending.add(rt.createSignal(1));
        }
        Submit.kernel(q, spin).kernarg(kernarg).completion(pending.get(0)).submit();
        Submit.kernel(q, spin).kernarg(kernarg).completion(pending.get(1)).barrier(true).submit();
        Submit.barrierAnd(q, pending.get(2), gate.handle());
        Submit.barrierAnd(cpuQueue, pending.get(3), gate.handle());
        Submit.barrierAnd(cpuQueue, pending.get(4));
        Await.until(() -> rt.svm().atomicLoadInt(started, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) == 1,
                "the spinning kernel to start");

        AtomicReferenceArray<Throwable> outcomes = new AtomicReferenceArray<>(pending.size());
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < pending.size(); i++) {
            int n = i;
            waiters.add(Thread.ofPlatform().name("waiter-" + i).start(() -> {
                try {
                    Await.completion(pending.get(n));
                    outcomes.set(n, new AssertionError("completed although nothing released it"));
                } catch (Throwable t) {
                    outcomes.set(n, t);
                }
            }));
        }
        for (Thread w : waiters) {
            Await.until(() -> w.getState() == Thread.State.TIMED_WAITING || w.getState() == Thread.State.WAITING,
                    w.getName() + " to wait");
        }

        long t0 = System.nanoTime();
        rt.close();
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertTrue(took.compareTo(CLOSE_BOUND) < 0, "close took " + took);

        for (Thread w : waiters) {
            w.join(Await.DEFAULT.toMillis());
            assertFalse(w.isAlive(), w.getName() + " still waits after close");
        }
        for (int i = 0; i < pending.size(); i++) {
            Throwable outcome = outcomes.get(i);
            HsaException e = assertInstanceOf(HsaException.class, outcome, () -> stackTrace(outcome));
            assertEquals(HsaStatus.NOT_INITIALIZED, e.status(), "waiter " + i + ": " + e.getMessage());
        }
    }

    private static String stackTrace(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    @Test
    void shouldStopTheComputeUnitOfAKernelStuckAtClose() {
        HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        long spin = rt.createExecutable().define("spin", KernelDescriptor.withKernarg(16), ShutdownTest::spinForever)
                .freeze().symbol("spin").kernelObject();
        long flag = rt.hostMalloc(8);
        long started = rt.hostMalloc(8);
        long kernarg = rt.kernargPool().allocate(16);
        rt.svm().setLong(kernarg, flag);
        rt.svm().setLong(kernarg + 8, started);
        Queue q = rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
        Submit.kernel(q, spin).kernarg(kernarg).completion(rt.createSignal(1)).submit();
        Await.until(() -> rt.svm().atomicLoadInt(started, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) == 1,
                "the spinning kernel to start");
        Thread unit = rt.gpuAgent().computeUnitThreads()[0];
        rt.close();
        Await.until(() -> !unit.isAlive(), "the stuck kernel's compute unit to stop once its memory is gone");
    }
}
