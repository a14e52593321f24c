package org.hsa4j.services.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.hsa4j.services.ServicesConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The runtime's trace file holds one event per RPC call served, named by service and opcode, with its status. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServiceCallTraceTest {
    private static final int USER_NS = Opcodes.USER_NAMESPACE_FIRST;

    @TempDir
    Path dir;

    @Test
    void shouldWriteOneEventPerServedCallWithItsServiceOpcodeAndStatus() throws Exception {
        Path file = dir.resolve("services.json");
        int inline = Opcodes.of(USER_NS, 1);
        int handler = Opcodes.of(USER_NS, 2);
        int failing = Opcodes.of(USER_NS, 3);
        try (Fixture f = Fixture.start(RuntimeConfig.builder().computeUnits(2).trace(file).build(),
                ServicesConfig.builder())) {
            f.services.registerService("tracetest", inline, ServiceMode.INLINE, call -> { });
            f.services.registerService("tracetest", handler, ServiceMode.HANDLER, call -> { });
            f.services.registerService("tracetest", failing, ServiceMode.INLINE, call -> {
                throw new IllegalStateException("on purpose");
            });
            RpcClient client = f.services.client();
            long out = f.rt.hostMalloc(8 * 4);
            Kernels.run(f.rt, f.queue, wi -> {
                long base = Kernels.arg(wi, 0);
                wi.svm().setLong(base, client.invoke(wi, Opcodes.ECHO, new long[8]).code());
                wi.svm().setLong(base + 8, client.invoke(wi, inline, new long[8]).code());
                wi.svm().setLong(base + 16, client.invoke(wi, handler, new long[8]).code());
                wi.svm().setLong(base + 24, client.invoke(wi, failing, new long[8]).code());
            }, 1, 1, out);
            assertEquals(RpcStatus.OK.code(), f.rt.svm().getLong(out));
            assertEquals(RpcStatus.SERVICE_ERROR.code(), f.rt.svm().getLong(out + 24));
        }
        JsonObject trace = JsonParser.parseString(Files.readString(file)).getAsJsonObject();
        List<JsonObject> calls = new ArrayList<>();
        for (JsonElement e : trace.getAsJsonArray("traceEvents")) {
            JsonObject o = e.getAsJsonObject();
            if (o.get("ph").getAsString().equals("X") && o.get("cat").getAsString().equals("service")) {
                calls.add(o);
            }
        }
        assertEquals(List.of("hsa4j-core " + Opcodes.toString(Opcodes.ECHO), "tracetest " + Opcodes.toString(inline),
                        "tracetest " + Opcodes.toString(handler), "tracetest " + Opcodes.toString(failing)),
                calls.stream().map(c -> c.get("name").getAsString()).toList(), "one event per call, in call order");
        assertEquals(List.of("OK", "OK", "OK", "SERVICE_ERROR"),
                calls.stream().map(c -> c.getAsJsonObject("args").get("status").getAsString()).toList());
        int hostPid = -1;
        for (JsonElement e : trace.getAsJsonArray("traceEvents")) {
            JsonObject o = e.getAsJsonObject();
            if (o.get("ph").getAsString().equals("M") && o.get("name").getAsString().equals("process_name")
                    && o.getAsJsonObject("args").get("name").getAsString().equals("host")) {
                hostPid = o.get("pid").getAsInt();
            }
        }
        for (JsonObject c : calls) {
            assertEquals(hostPid, c.get("pid").getAsInt(), "served on a host thread");
            assertTrue(c.get("dur").getAsDouble() >= 0);
        }
    }

    @Test
    void shouldNotCallOkAServiceWhoseCallTheWatchdogEndedWhileItRan() throws Exception {
        Path file = dir.resolve("stuck.json");
        int stuck = Opcodes.of(USER_NS, 1);
        AtomicReference<Thread> server = new AtomicReference<>();
        try (Fixture f = Fixture.start(RuntimeConfig.builder().computeUnits(1).trace(file).build(),
                ServicesConfig.builder().serverThreads(1).serviceTimeoutNanos(TimeUnit.MILLISECONDS.toNanos(50)))) {
            f.services.registerService("tracetest", stuck, ServiceMode.INLINE, call -> {
                server.set(Thread.currentThread());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!call.isFinished() && System.nanoTime() < deadline) {
                    Thread.onSpinWait(); // until the watchdog ends the call with TIMEOUT
                }
            });
            assertEquals(RpcStatus.TIMEOUT, f.services.client().invoke(f.rt.svm(), 0, 0, stuck, new long[8]));
            // the service returns once the watchdog ended its call, and its thread reports to the tracer
            // before it does anything else: a moved-aside thread then ends, and a thread the watchdog
            // could not retire (its service returned first) goes back to scanning and parks when idle
            Thread t = server.get();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (t.isAlive() && t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
                assertTrue(System.nanoTime() - deadline < 0, "the server thread neither ended nor went idle: " + t.getState());
                Thread.onSpinWait();
            }
        }
        JsonObject trace = JsonParser.parseString(Files.readString(file)).getAsJsonObject();
        List<String> statuses = new ArrayList<>();
        for (JsonElement e : trace.getAsJsonArray("traceEvents")) {
            JsonObject o = e.getAsJsonObject();
            if (o.get("ph").getAsString().equals("X") && o.get("cat").getAsString().equals("service")) {
                statuses.add(o.getAsJsonObject("args").get("status").getAsString());
            }
        }
        assertEquals(List.of("ENDED_BEFORE_RETURN"), statuses);
    }
}
