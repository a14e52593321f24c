package org.hsa4j.idle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Issue 20's rule, checked over the library modules' sources: every wait idles through
 * {@link IdleStrategy}. A spin, yield or park outside the {@code idle} package is allowed only in
 * the files below, each with the reason it is not a wait for a condition (or not the runtime's).
 */
class WaitLoopInventoryTest {
    private static final Pattern IDLING = Pattern.compile(
            "Thread\\.onSpinWait\\(\\)|Thread\\.yield\\(\\)|LockSupport\\.park(Nanos|Until)?\\(");

    /** File (relative to the project root) -> number of idling calls allowed there, and why. */
    private static final Map<String, Allowed> ALLOWED = Map.ofEntries(
            Map.entry("hsa-runtime/src/main/java/org/hsa4j/signal/AsyncHandlerService.java", new Allowed(2,
                    "an event loop: parks until a registration or a signal change unparks it, or its re-check is due")),
            Map.entry("hsa-runtime/src/main/java/org/hsa4j/signal/SignalWatch.java", new Allowed(2,
                    "the JVM's one timer for parked signal waits: parks until its next look is due, or untimed"
                            + " until a registration unparks it")),
            Map.entry("hsa-runtime/src/main/java/org/hsa4j/agent/PacketProcessor.java", new Allowed(1,
                    "the watchdog's timer period, not a wait for a condition")),
            Map.entry("hsa-runtime/src/main/java/org/hsa4j/kernel/ContinuationBarriers.java", new Allowed(1,
                    "the opt-in Continuation path's bounded wait for a rescuer")),
            Map.entry("hsa-runtime/src/main/java/org/hsa4j/kernel/VirtualThreadBarriers.java", new Allowed(5,
                    "the baton itself: a lane parks until the unpark that hands it the turn; the unit's"
                            + " re-check looks for monitor deadlocks; the rescue waits are bounded")),
            Map.entry("hsa-runtime/src/main/java/org/hsa4j/trace/TraceFile.java", new Allowed(1,
                    "the trace writer's drain period: a timer, so a tracing thread never has to wake it")),
            Map.entry("hsa-cuda/src/main/java/org/hsa4j/cuda/CudaResidentProcessor.java", new Allowed(3,
                    "fixed pauses of the resident grid's monitor: before relaunching a grid that parked waiting on a"
                            + " barrier packet, and after the doorbell went with its queue (the stop follows)")),
            Map.entry("hsa-cuda/src/main/java/org/hsa4j/cuda/CudaDeviceServer.java", new Allowed(1,
                    "the device server's completer parks while no launch is pending, until a launch unparks it")),
            Map.entry("hsa-cuda/src/main/java/org/hsa4j/cuda/CudaSeeds.java", new Allowed(2,
                    "seed programs: a host thread spinning on pinned memory is what sync_1way and pingpong measure")),
            Map.entry("hsa-cuda/src/main/java/org/hsa4j/cuda/litmus/LitmusRunner.java", new Allowed(3,
                    "litmus roles spin by design: a park would close the window the test looks through")),
            Map.entry("hsa4j-test-support/src/main/java/org/hsa4j/testsupport/BoundedWait.java", new Allowed(3,
                    "users' jcstress tests: a harness wait must not depend on the runtime under test")));

    private record Allowed(int calls, String reason) {
    }

    @Test
    void everyWaitOfTheLibraryIdlesThroughTheStrategy() throws IOException {
        Path root = projectRoot();
        Map<String, Integer> found = new TreeMap<>();
        for (String module : List.of("hsa-runtime", "cppamp-layer", "services", "hsa-cuda", "hsa4j-test-support")) {
            Path sources = root.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(sources)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(sources)) {
                files.filter(f -> f.toString().endsWith(".java"))
                        .filter(f -> !f.toString().contains("/org/hsa4j/idle/"))
                        .forEach(f -> {
                            int n = count(f);
                            if (n > 0) {
                                found.put(root.relativize(f).toString().replace('\\', '/'), n);
                            }
                        });
            }
        }
        assertTrue(found.containsKey("hsa-runtime/src/main/java/org/hsa4j/signal/AsyncHandlerService.java"),
                "the scan must see the sources: " + found);
        StringBuilder unexpected = new StringBuilder();
        found.forEach((file, n) -> {
            Allowed a = ALLOWED.get(file);
            if (a == null || n > a.calls()) {
                unexpected.append("\n  ").append(file).append(": ").append(n).append(" spin/yield/park call(s)")
                        .append(a == null ? "" : " (" + a.calls() + " allowed: " + a.reason() + ")");
            }
        });
        assertEquals("", unexpected.toString(), "hand-written waits outside IdleStrategy:");
    }

    private static int count(Path file) {
        try {
            Matcher m = IDLING.matcher(Files.readString(file));
            int n = 0;
            while (m.find()) {
                n++;
            }
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("hsa-runtime/src/main/java"))) {
            dir = dir.getParent();
        }
        assertTrue(dir != null, "no project root above " + Path.of("").toAbsolutePath());
        return dir;
    }
}
