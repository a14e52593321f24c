package org.hsa4j.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The trace file's bounded buffer: a flood never blocks the tracing thread, and every event is written or counted as dropped. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TraceBufferTest {
    @TempDir
    Path dir;

    @Test
    void shouldWriteOrCountAsDroppedEveryEventOfAFloodAndStillEndTheFile() throws Exception {
        Path path = dir.resolve("flood.json");
        TraceFile file = new TraceFile(path);
        int offered = 4 * TraceFile.CAPACITY;
        for (int i = 0; i < offered; i++) {
            file.add(new TraceEvent('X', "test", "e" + i, 1, "p", 0, "t", i, 1, null, "i", i));
        }
        file.close();
        JsonObject trace = JsonParser.parseString(Files.readString(path)).getAsJsonObject();
        long written = 0;
        for (JsonElement e : trace.getAsJsonArray("traceEvents")) {
            if (e.getAsJsonObject().get("ph").getAsString().equals("X")) {
                written++;
            }
        }
        long dropped = trace.getAsJsonObject("otherData").get("droppedEvents").getAsLong();
        assertEquals(offered, written + dropped, "written " + written + ", dropped " + dropped);
    }

    @Test
    void shouldLeaveTheEndedFileUntouchedByEventsAddedAfterClose() throws Exception {
        Path path = dir.resolve("late.json");
        TraceFile file = new TraceFile(path);
        file.add(new TraceEvent('X', "test", "before", 1, "p", 0, "t", 0, 1, null));
        file.close();
        file.add(new TraceEvent('X', "test", "after", 1, "p", 0, "t", 0, 1, null));
        JsonObject trace = JsonParser.parseString(Files.readString(path)).getAsJsonObject();
        assertEquals(0, trace.getAsJsonObject("otherData").get("droppedEvents").getAsLong(),
                "the file was ended before the late event");
    }

    @Test
    void shouldEscapeNamesAsJsonStrings() throws Exception {
        Path path = dir.resolve("names.json");
        TraceFile file = new TraceFile(path);
        String name = "k\"ernel\\\n\t\u0001";
        file.add(new TraceEvent('X', "test", name, 1, "p\"", 0, "t", 0, 1, null, "arg", name));
        file.close();
        JsonObject trace = JsonParser.parseString(Files.readString(path)).getAsJsonObject();
        JsonObject e = trace.getAsJsonArray("traceEvents").asList().stream().map(JsonElement::getAsJsonObject)
                .filter(o -> o.get("ph").getAsString().equals("X")).findFirst().orElseThrow();
        assertEquals(name, e.get("name").getAsString());
        assertEquals(name, e.getAsJsonObject("args").get("arg").getAsString());
    }
}
