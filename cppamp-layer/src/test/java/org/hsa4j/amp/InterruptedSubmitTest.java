package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A caller blocked on a full view queue can be interrupted, and the view keeps working. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InterruptedSubmitTest {

    @Test
    void shouldFailOnlyTheInterruptedCallWhenTheQueueIsFull() throws InterruptedException {
        RuntimeConfig config = RuntimeConfig.builder().computeUnits(1).queueMinSize(16).queueMaxSize(16).build();
        try (AmpFixture fx = AmpFixture.start(config)) {
            Gate gate = new Gate(fx);
            AcceleratorView v = fx.view();
            List<CompletionFuture> held = new ArrayList<>();
            // one dispatch runs (its slot is freed at launch); sixteen wait in the 16-slot ring
            for (int i = 0; i < 17; i++) {
                held.add(v.parallelForEach(new Extent(1), gate.kernel()));
            }
            AtomicReference<CompletionFuture> blocked = new AtomicReference<>();
            Thread caller = new Thread(() -> blocked.set(v.parallelForEach(new Extent(1), idx -> { })));
            caller.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (caller.getState() != Thread.State.TIMED_WAITING && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            assertEquals(Thread.State.TIMED_WAITING, caller.getState(), "the caller waits for space");
            caller.interrupt();
            caller.join(TimeUnit.SECONDS.toMillis(20));
            CompletionFuture interrupted = blocked.get();
            assertNotNull(interrupted, "the interrupted call returned a future");
            HsaException e = assertThrows(HsaException.class, interrupted::get);
            assertEquals(HsaStatus.INVALID_RUNTIME_STATE, e.status());

            gate.open();
            for (CompletionFuture f : held) {
                f.get();
            }
            CompletionFuture after = v.parallelForEach(new Extent(1), idx -> { });
            after.get();
            assertTrue(after.isReady());
        }
    }
}
