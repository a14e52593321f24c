package org.hsa4j.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.hsa4j.agent.Agent;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code RuntimeConfig.trace}: the Chrome trace-event file, parsed with Gson, holds one event for
 * each thing that ran (dispatches per queue and per compute unit, a barrier packet, a wait that
 * blocked), with the right names, ids, tracks and times.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TraceFileTest {
    private static final int UNITS = 2;
    private static final int SCALE_DISPATCHES = 3;
    private static final long GRID = 256;
    private static final int WORKGROUP = 64;

    @TempDir
    static Path dir;
    private static JsonObject trace;
    private static List<JsonObject> events;
    private static final int AGENT_DISPATCH_TYPE = 7;
    private static int gpuPid;
    private static int cpuPid;
    private static long agentPacket;
    private static long queueId;
    private static long barrierPacket;
    private static long waitedSignal;
    private static long waitingThread;

    /** Runs three dispatches of "scale", one of "other", a barrier-AND packet and a wait that blocks, then closes the runtime. */
    @BeforeAll
    static void runAndParse() throws Exception {
        Path file = dir.resolve("out.json");
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(UNITS).trace(file).build())) {
            Agent gpu = rt.gpuAgent();
            gpuPid = gpu.index() + 1;
            Queue q = gpu.createQueue(64, QueueType.MULTI, null);
            queueId = q.id();
            long scale = rt.createExecutable().define("scale", KernelDescriptor.withKernarg(0), wi -> { })
                    .freeze().symbol("scale").kernelObject();
            long other = rt.createExecutable().define("other", KernelDescriptor.withKernarg(0), wi -> { })
                    .freeze().symbol("other").kernelObject();
            for (int i = 0; i < SCALE_DISPATCHES; i++) {
                q.dispatch(scale, GRID, WORKGROUP).join();
            }
            q.dispatch(other, 1, 1).join();

            Agent cpu = rt.cpuAgent();
            cpuPid = cpu.index() + 1;
            cpu.registerAgentDispatchHandler(AGENT_DISPATCH_TYPE, request -> { });
            Queue cpuQueue = cpu.createQueue(16, QueueType.MULTI, null);
            Signal served = rt.createSignal(1);
            agentPacket = Submit.agentDispatch(cpuQueue, AGENT_DISPATCH_TYPE, 0, served);
            Await.completion(served);

            Signal dep = rt.createSignal(1);
            Signal done = rt.createSignal(1);
            barrierPacket = Submit.barrierAnd(q, done, dep.handle());
            Thread main = Thread.currentThread();
            Thread releaser = Thread.ofPlatform().start(() -> {
                // release the dependency only once the main thread is parked in its wait on done
                long deadline = System.nanoTime() + 20_000_000_000L;
                while (!parked(main.getState()) && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                dep.storeScrelease(0);
            });
            long v = done.waitScacquire(SignalCondition.EQ, 0, 20_000_000_000L, WaitState.BLOCKED);
            releaser.join(20_000);
            assertEquals(0, v, "the barrier completed");
            waitedSignal = done.handle();
            waitingThread = main.threadId();
        }
        trace = JsonParser.parseString(Files.readString(file)).getAsJsonObject();
        events = new ArrayList<>();
        for (JsonElement e : trace.getAsJsonArray("traceEvents")) {
            events.add(e.getAsJsonObject());
        }
    }

    private static List<JsonObject> events(String ph, String cat, String name) {
        return events.stream().filter(e -> e.get("ph").getAsString().equals(ph)
                && (cat == null || e.get("cat").getAsString().equals(cat))
                && e.get("name").getAsString().equals(name)).toList();
    }

    private static double ts(JsonObject e) {
        return e.get("ts").getAsDouble();
    }

    private static double end(JsonObject e) {
        return ts(e) + e.get("dur").getAsDouble();
    }

    private static String name(String kind, int pid, long tid) {
        return events.stream().filter(e -> e.get("ph").getAsString().equals("M")
                        && e.get("name").getAsString().equals(kind) && e.get("pid").getAsInt() == pid
                        && e.get("tid").getAsLong() == tid)
                .map(e -> e.getAsJsonObject("args").get("name").getAsString()).findFirst().orElse(null);
    }

    @Test
    void shouldWriteOneQueueSliceForEachDispatchWithItsGeometry() {
        List<JsonObject> begins = events("b", "dispatch", "scale");
        assertEquals(SCALE_DISPATCHES, begins.size());
        Set<Long> packets = new HashSet<>();
        for (JsonObject b : begins) {
            JsonObject args = b.getAsJsonObject("args");
            assertEquals(queueId, args.get("queue").getAsLong());
            assertEquals(GRID + "x1x1", args.get("grid").getAsString());
            assertEquals(WORKGROUP + "x1x1", args.get("workgroup").getAsString());
            assertEquals(GRID / WORKGROUP, args.get("workgroups").getAsLong());
            assertFalse(args.get("failed").getAsBoolean());
            assertEquals(gpuPid, b.get("pid").getAsInt());
            assertEquals(TraceEvent.QUEUE_TID + queueId, b.get("tid").getAsLong());
            packets.add(args.get("packet").getAsLong());
        }
        assertEquals(SCALE_DISPATCHES, packets.size(), "each dispatch is its own packet");
        assertEquals(1, events("b", "dispatch", "other").size());
    }

    @Test
    void shouldRecordAnAgentDispatchAsAOnePartDispatchOfTheCpuAgent() {
        String name = "agent dispatch type " + AGENT_DISPATCH_TYPE;
        List<JsonObject> begins = events("b", "dispatch", name);
        assertEquals(1, begins.size());
        assertEquals(cpuPid, begins.getFirst().get("pid").getAsInt());
        assertEquals(agentPacket, begins.getFirst().getAsJsonObject("args").get("packet").getAsLong());
        List<JsonObject> runs = events("X", "compute-unit", name);
        assertEquals(1, runs.size());
        assertEquals(1, runs.getFirst().getAsJsonObject("args").get("workgroups").getAsLong());
        assertEquals("cpu0", name("process_name", cpuPid, 0));
    }

    @Test
    void shouldEndEachQueueSliceAfterItBegins() {
        Map<String, JsonObject> ends = new HashMap<>();
        for (JsonObject e : events) {
            if (e.get("ph").getAsString().equals("e")) {
                ends.put(e.get("id").getAsString(), e);
            }
        }
        for (JsonObject b : events) {
            if (b.get("ph").getAsString().equals("b")) {
                JsonObject e = ends.get(b.get("id").getAsString());
                assertTrue(e != null, "async begin " + b + " has its end");
                assertEquals(b.get("name").getAsString(), e.get("name").getAsString());
                assertTrue(ts(b) <= ts(e), "begin " + ts(b) + " <= end " + ts(e));
            }
        }
    }

    @Test
    void shouldPutEachDispatchsWorkgroupsOnTheComputeUnitsThatRanThemWithinTheDispatch() {
        for (JsonObject b : events("b", "dispatch", "scale")) {
            String id = b.get("id").getAsString();
            long packet = b.getAsJsonObject("args").get("packet").getAsLong();
            JsonObject e = events.stream().filter(x -> x.get("ph").getAsString().equals("e")
                    && x.get("id").getAsString().equals(id)).findFirst().orElseThrow();
            long groups = 0;
            for (JsonObject run : events("X", "compute-unit", "scale")) {
                if (run.getAsJsonObject("args").get("packet").getAsLong() != packet) {
                    continue;
                }
                long tid = run.get("tid").getAsLong();
                assertTrue(tid >= 0 && tid < UNITS, "tid " + tid + " is a compute unit");
                assertEquals(gpuPid, run.get("pid").getAsInt());
                assertTrue(run.get("dur").getAsDouble() >= 0);
                assertTrue(ts(run) >= ts(b) && end(run) <= ts(e) + 0.001, "the unit's run lies within the dispatch");
                groups += run.getAsJsonObject("args").get("workgroups").getAsLong();
            }
            assertEquals(GRID / WORKGROUP, groups, "every workgroup of packet " + packet + " ran on some unit");
        }
    }

    @Test
    void shouldNameTheAgentProcessTheQueueTrackAndTheComputeUnits() {
        assertEquals("gpu0", name("process_name", gpuPid, 0));
        assertEquals("host", name("process_name", TraceEvent.HOST_PID, 0));
        assertEquals("queue " + queueId, name("thread_name", gpuPid, TraceEvent.QUEUE_TID + queueId));
        for (JsonObject run : events("X", "compute-unit", "scale")) {
            long tid = run.get("tid").getAsLong();
            assertEquals("cu" + tid, name("thread_name", gpuPid, tid));
        }
    }

    @Test
    void shouldRecordTheBarrierPacketOnItsQueue() {
        List<JsonObject> begins = events("b", "barrier", "barrier-and");
        assertEquals(1, begins.size());
        JsonObject b = begins.getFirst();
        assertEquals(barrierPacket, b.getAsJsonObject("args").get("packet").getAsLong());
        assertEquals(TraceEvent.QUEUE_TID + queueId, b.get("tid").getAsLong());
        assertEquals(1, events("e", "barrier", "barrier-and").size());
    }

    @Test
    void shouldRecordTheWaitThatBlockedOnTheWaitingThread() {
        String hex = "0x" + Long.toHexString(waitedSignal);
        List<JsonObject> waits = events("X", "signal", "signal wait").stream()
                .filter(e -> e.getAsJsonObject("args").get("signal").getAsString().equals(hex)).toList();
        assertEquals(1, waits.size(), "one blocking wait on the barrier's completion signal");
        JsonObject w = waits.getFirst();
        assertEquals(TraceEvent.HOST_PID, w.get("pid").getAsInt());
        assertEquals(waitingThread, w.get("tid").getAsLong());
        assertTrue(w.getAsJsonObject("args").get("parked").getAsBoolean());
        JsonObject barrierEnd = events("e", "barrier", "barrier-and").getFirst();
        assertTrue(ts(w) <= ts(barrierEnd) && end(w) >= ts(barrierEnd), "the wait spans the barrier's completion");
    }

    @Test
    void shouldReportNoDroppedEvents() {
        JsonObject other = trace.getAsJsonObject("otherData");
        assertEquals(0, other.get("droppedEvents").getAsLong());
        assertEquals(TraceFile.CAPACITY, other.get("bufferedEventCap").getAsInt());
    }

    @Test
    void shouldGiveASecondRuntimeOfTheSameFileNameANumberedFileOfItsOwn() throws IOException {
        Path file = dir.resolve("twice.json");
        RuntimeConfig config = RuntimeConfig.builder().computeUnits(1).trace(file).build();
        try (HsaRuntime first = HsaRuntime.init(config); HsaRuntime second = HsaRuntime.init(config)) {
            assertEquals(file, first.tracer().file().orElseThrow());
            assertEquals(dir.resolve("twice-2.json"), second.tracer().file().orElseThrow());
        }
        for (Path p : List.of(file, dir.resolve("twice-2.json"))) {
            assertTrue(JsonParser.parseString(Files.readString(p)).getAsJsonObject().has("traceEvents"), p + " is complete");
        }
    }

    @Test
    void shouldRefuseATraceFileThatCannotBeCreatedWithInvalidArgument() {
        Path missing = dir.resolve("no-such-dir").resolve("out.json");
        HsaException e = assertThrows(HsaException.class,
                () -> HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).trace(missing).build()).close());
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldReadTheTraceFileAndStatisticsSwitchesFromTheEnvironment() {
        RuntimeConfig c = RuntimeConfig.builderFromEnvironment(Map.of("HSA4J_TRACE", "t.json", "HSA4J_STATS", "1")).build();
        assertEquals(Path.of("t.json"), c.trace());
        assertTrue(c.statistics());
        HsaException e = assertThrows(HsaException.class,
                () -> RuntimeConfig.builderFromEnvironment(Map.of("HSA4J_STATS", "yes")));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    /** Parked: with a timer, or untimed under the signal watch. */
    private static boolean parked(Thread.State state) {
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
    }
}
