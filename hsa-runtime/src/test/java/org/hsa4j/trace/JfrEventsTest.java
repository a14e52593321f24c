package org.hsa4j.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * JDK Flight Recorder events of a runtime that writes no trace file (its tracer is off): while a
 * recording enables {@code org.hsa4j.*}, dispatches, workgroups, barriers and blocking waits are
 * committed as events with what ran.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JfrEventsTest {
    @TempDir
    Path dir;

    @Test
    void shouldCommitDispatchWorkgroupBarrierAndWaitEventsWhileARecordingEnablesThem() throws Exception {
        Path file = dir.resolve("run.jfr");
        long queueId;
        long barrierPacket;
        long doneHandle;
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build());
             Recording recording = new Recording()) {
            for (String name : List.of("org.hsa4j.Dispatch", "org.hsa4j.Workgroup", "org.hsa4j.Barrier",
                    "org.hsa4j.SignalWait")) {
                recording.enable(name).withThreshold(Duration.ZERO);
            }
            recording.start();
            Queue q = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
            queueId = q.id();
            long k = rt.createExecutable().define("jfrKernel", KernelDescriptor.withKernarg(0), wi -> { })
                    .freeze().symbol("jfrKernel").kernelObject();
            q.dispatch(k, 256, 64).join();
            q.dispatch(k, 256, 64).join();
            Signal dep = rt.createSignal(1);
            Signal done = rt.createSignal(1);
            doneHandle = done.handle();
            barrierPacket = Submit.barrierAnd(q, done, dep.handle());
            Thread main = Thread.currentThread();
            Thread releaser = Thread.ofPlatform().start(() -> {
                long deadline = System.nanoTime() + 20_000_000_000L;
                while (!parked(main.getState()) && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                dep.storeScrelease(0);
            });
            assertEquals(0, done.waitScacquire(SignalCondition.EQ, 0, 20_000_000_000L, WaitState.BLOCKED));
            releaser.join(20_000);
            recording.stop();
            recording.dump(file);
        }
        long ours = queueId; // queue ids are unique in the JVM: events of any other runtime are left out
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> !e.hasField("queue") || e.getLong("queue") == ours).toList();
        List<RecordedEvent> dispatches = named(events, "org.hsa4j.Dispatch");
        assertEquals(2, dispatches.size());
        for (RecordedEvent d : dispatches) {
            assertEquals("jfrKernel", d.getString("kernel"));
            assertEquals(queueId, d.getLong("queue"));
            assertEquals("gpu0", d.getString("agent"));
            assertEquals("256x1x1", d.getString("grid"));
            assertEquals("64x1x1", d.getString("workgroup"));
            assertEquals(4, d.getLong("workgroups"));
            assertFalse(d.getBoolean("failed"));
            assertFalse(d.getDuration().isNegative());
        }
        List<RecordedEvent> groups = named(events, "org.hsa4j.Workgroup");
        assertEquals(8, groups.size(), "one event per workgroup of the two dispatches");
        for (RecordedEvent g : groups) {
            assertTrue(g.getThread().getJavaName().startsWith("hsa4j-gpu0-cu"), "runs on a compute unit: "
                    + g.getThread().getJavaName());
            assertTrue(g.getInt("unit") >= 0 && g.getInt("unit") < 2);
            assertTrue(g.getLong("group") >= 0 && g.getLong("group") < 4);
        }
        List<RecordedEvent> barriers = named(events, "org.hsa4j.Barrier");
        assertEquals(1, barriers.size());
        assertEquals(barrierPacket, barriers.getFirst().getLong("packet"));
        assertEquals("AND", barriers.getFirst().getString("kind"));
        List<RecordedEvent> waits = named(events, "org.hsa4j.SignalWait").stream()
                .filter(w -> w.getLong("signal") == doneHandle).toList();
        assertEquals(1, waits.size(), "the wait on the barrier's completion signal blocked once");
        assertTrue(waits.getFirst().getBoolean("parked"));
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }

    /** Parked: with a timer, or untimed under the signal watch. */
    private static boolean parked(Thread.State state) {
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
    }
}
