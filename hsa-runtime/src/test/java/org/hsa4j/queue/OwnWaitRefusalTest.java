package org.hsa4j.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * No silent deadlock (issue 22 part 4): a kernel's wait or close that could only end after the
 * kernel itself returns fails at once with ERROR, and the queue keeps serving.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OwnWaitRefusalTest {
    private HsaRuntime rt;
    private Queue queue;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build());
        queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    /** Runs {@code body} in a one-work-item kernel on {@code queue}; the status it threw, or SUCCESS. */
    private HsaStatus inKernel(Consumer<WorkItem> body) {
        AtomicReference<HsaStatus> seen = new AtomicReference<>();
        long k = rt.createExecutable().define("k", KernelDescriptor.withKernarg(8), wi -> {
            try {
                body.accept(wi);
                seen.set(HsaStatus.SUCCESS);
            } catch (HsaException e) {
                seen.set(e.status());
            }
        }).freeze().symbol("k").kernelObject();
        Signal done = rt.createSignal(1);
        queue.launch(k).args(done.handle()).completion(done).dispatch().join();
        return seen.get();
    }

    @Test
    void shouldFailAKernelThatWaitsOnItsOwnCompletionSignal() {
        assertEquals(HsaStatus.ERROR, inKernel(wi -> rt.signal(wi.arg(0)).waitScacquire(SignalCondition.EQ, 0,
                2_000_000_000L, WaitState.BLOCKED)));
    }

    @Test
    void shouldLetAKernelWaitOnItsOwnCompletionSignalForAValueItHoldsNow() {
        assertEquals(HsaStatus.SUCCESS, inKernel(wi -> rt.signal(wi.arg(0)).waitScacquire(SignalCondition.EQ, 1,
                2_000_000_000L, WaitState.BLOCKED)));
    }

    @Test
    void shouldFailAKernelThatDestroysItsOwnQueueAndKeepTheQueueServing() {
        assertEquals(HsaStatus.ERROR, inKernel(wi -> queue.destroy()));
        assertEquals(QueueState.ACTIVE, queue.state());
        assertEquals(HsaStatus.SUCCESS, inKernel(wi -> { }));
    }

    @Test
    void shouldFailAKernelThatInactivatesItsOwnQueue() {
        assertEquals(HsaStatus.ERROR, inKernel(wi -> queue.inactivate()));
        assertEquals(QueueState.ACTIVE, queue.state());
    }
}
