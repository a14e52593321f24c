package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueErrorCallback;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Aborting running kernels (issue 17, item 15): queue inactivate and destroy, runtime close and the
 * kernel time limit stop a kernel at its next SVM access, signal operation or barrier, report it on
 * its completion signal and its queue's error callback, and leave the compute unit serving.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KernelAbortTest {
    /** A runtime with one GPU compute unit running a kernel that spins on SVM until aborted. */
    private static final class Stuck implements AutoCloseable {
        final HsaRuntime rt;
        final long spin;
        final long noop;
        final long waitsOnSignal;
        final long pureLoop;
        final long started;
        final long kernarg;
        final List<HsaException> errors = new CopyOnWriteArrayList<>();
        final QueueErrorCallback callback = (e, q) -> errors.add(e);
        final AtomicBoolean releasePureLoop = new AtomicBoolean();
        Signal never;

        Stuck(RuntimeConfig.Builder config) {
            rt = HsaRuntime.init(config.computeUnits(1).build());
            never = rt.createSignal(1);
            long neverHandle = never.handle();
            spin = kernel("spin", KernelDescriptor.withKernarg(16), ShutdownTest::spinForever);
            noop = kernel("noop", KernelDescriptor.EMPTY, wi -> { });
            waitsOnSignal = kernel("waits", KernelDescriptor.withKernarg(16), wi -> {
                long startedAt = wi.kernarg().get(ValueLayout.JAVA_LONG, 8);
                wi.svm().atomicStoreInt(startedAt, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
                rt.signal(neverHandle).waitScacquire(SignalCondition.EQ, 0, TimeUnit.SECONDS.toNanos(60),
                        WaitState.BLOCKED);
            });
            pureLoop = kernel("pure_loop", KernelDescriptor.withKernarg(16), wi -> {
                long startedAt = wi.kernarg().get(ValueLayout.JAVA_LONG, 8);
                wi.svm().atomicStoreInt(startedAt, 1, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!releasePureLoop.get() && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
            });
            long flag = rt.hostMalloc(8);
            started = rt.hostMalloc(8);
            kernarg = rt.kernargPool().allocate(16);
            rt.svm().setLong(kernarg, flag);
            rt.svm().setLong(kernarg + 8, started);
        }

        private long kernel(String name, KernelDescriptor d, org.hsa4j.kernel.Kernel k) {
            return rt.createExecutable().define(name, d, k).freeze().symbol(name).kernelObject();
        }

        /** Dispatches {@code kernel} on a new queue and waits until it runs; returns its completion signal. */
        Signal start(Queue q, long kernel) {
            rt.svm().atomicStoreInt(started, 0, MemoryOrder.RELEASE, MemoryScope.SYSTEM);
            Signal done = rt.createSignal(1);
            Submit.kernel(q, kernel).kernarg(kernarg).completion(done).submit();
            Await.until(() -> rt.svm().atomicLoadInt(started, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM) == 1,
                    "the kernel to start");
            return done;
        }

        Queue queue() {
            return rt.gpuAgent().createQueue(16, QueueType.MULTI, callback);
        }

        /** The single compute unit still serves: a dispatch on a fresh queue completes. */
        void assertUnitServes() {
            Queue fresh = rt.gpuAgent().createQueue(16, QueueType.MULTI, null);
            Signal done = rt.createSignal(1);
            Submit.kernel(fresh, noop).completion(done).submit();
            Await.completion(done);
        }

        @Override
        public void close() {
            releasePureLoop.set(true);
            rt.close();
        }
    }

    private static HsaStatus failure(Signal done) {
        return assertThrows(HsaException.class, () -> Await.completion(done)).status();
    }

    @Test
    void shouldAbortARunningKernelWhenItsQueueIsDestroyed() {
        try (Stuck s = new Stuck(RuntimeConfig.builder())) {
            Queue q = s.queue();
            Signal done = s.start(q, s.spin);
            q.destroy();
            assertEquals(HsaStatus.INVALID_QUEUE, failure(done));
            assertEquals(1, s.errors.size(), s.errors.toString());
            assertEquals(HsaStatus.INVALID_QUEUE, s.errors.get(0).status());
            s.assertUnitServes();
        }
    }

    @Test
    void shouldAbortARunningKernelWhenItsQueueIsInactivated() {
        try (Stuck s = new Stuck(RuntimeConfig.builder())) {
            Queue q = s.queue();
            Signal done = s.start(q, s.spin);
            q.inactivate();
            assertEquals(HsaStatus.INVALID_QUEUE, failure(done));
            assertEquals(HsaStatus.INVALID_QUEUE, s.errors.get(0).status());
            s.assertUnitServes();
        }
    }

    @Test
    void shouldAbortAKernelWaitingOnASignalWhenItsQueueIsDestroyed() {
        try (Stuck s = new Stuck(RuntimeConfig.builder())) {
            Queue q = s.queue();
            Signal done = s.start(q, s.waitsOnSignal);
            q.destroy();
            assertEquals(HsaStatus.INVALID_QUEUE, failure(done));
            s.assertUnitServes();
        }
    }

    @Test
    void shouldLeaveNoComputeUnitAliveWhenCloseReturnsAfterAbortingAKernel() {
        Stuck s = new Stuck(RuntimeConfig.builder());
        Signal done = s.start(s.queue(), s.spin);
        s.rt.close();
        List<Thread> alive = s.rt.agents().stream().flatMap(a -> Arrays.stream(a.computeUnitThreads()))
                .filter(Thread::isAlive).toList();
        assertEquals(List.of(), alive);
        assertEquals(HsaStatus.NOT_INITIALIZED, failure(done));
        assertEquals(HsaStatus.NOT_INITIALIZED, s.errors.get(0).status());
    }

    @Test
    void shouldLeaveNoComputeUnitAliveWhenCloseReturnsAfterAbortingASignalWait() {
        Stuck s = new Stuck(RuntimeConfig.builder());
        Signal done = s.start(s.queue(), s.waitsOnSignal);
        s.rt.close();
        assertTrue(Arrays.stream(s.rt.gpuAgent().computeUnitThreads()).noneMatch(Thread::isAlive));
        assertEquals(HsaStatus.NOT_INITIALIZED, failure(done));
    }

    @Test
    void shouldReturnFromCloseAndFailTheWaiterOfAKernelThatNeverReachesAnAbortPoint() {
        Stuck s = new Stuck(RuntimeConfig.builder());
        Signal done = s.start(s.queue(), s.pureLoop);
        Thread unit = s.rt.gpuAgent().computeUnitThreads()[0];
        s.rt.close();
        assertEquals(HsaStatus.NOT_INITIALIZED, failure(done));
        assertTrue(unit.isDaemon(), "an abandoned unit must not keep the JVM alive");
        s.releasePureLoop.set(true);
        Await.until(() -> !unit.isAlive(), "the abandoned unit to end once its loop returns");
    }

    @Test
    void shouldAbortAKernelThatRunsPastTheTimeLimitWithException() {
        try (Stuck s = new Stuck(RuntimeConfig.builder().kernelTimeLimitMillis(100))) {
            Signal done = s.rt.createSignal(1);
            Submit.kernel(s.queue(), s.spin).kernarg(s.kernarg).completion(done).submit();
            assertEquals(HsaStatus.EXCEPTION, failure(done));
            assertEquals(HsaStatus.EXCEPTION, s.errors.get(0).status());
            assertTrue(s.errors.get(0).getMessage().contains("time limit"), s.errors.get(0).getMessage());
            s.assertUnitServes();
        }
    }

    @Test
    void shouldStopTheWatchdogThreadWithTheRuntime() {
        Stuck s = new Stuck(RuntimeConfig.builder().kernelTimeLimitMillis(100));
        List<Thread> watchdogs = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("hsa4j-") && t.getName().endsWith("-watchdog")).toList();
        assertFalse(watchdogs.isEmpty());
        s.rt.close();
        assertTrue(watchdogs.stream().noneMatch(Thread::isAlive), "watchdogs alive after close: " + watchdogs);
    }
}
