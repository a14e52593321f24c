package org.hsa4j.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A regenerated report keeps the hand-recorded A/B section of the one it replaces. */
class KeptSectionTest {
    @TempDir
    Path dir;

    @Test
    void shouldKeepEverythingFromTheMarkerOn() throws IOException {
        Path report = dir.resolve("PERFORMANCE.md");
        String kept = PerformanceReport.KEPT_MARKER + "\n\n## Safety checks, before and after\n\n| a | b |\n";
        Files.writeString(report, "# old generated part\n\nnumbers\n\n" + kept);
        assertEquals("\n" + kept, PerformanceReport.keptSection(report));
    }

    @Test
    void shouldKeepNothingFromAReportWithoutTheMarker() throws IOException {
        Path report = dir.resolve("PERFORMANCE.md");
        Files.writeString(report, "# generated\n");
        assertEquals("", PerformanceReport.keptSection(report));
    }

    @Test
    void shouldKeepNothingWhenThereIsNoReportYet() throws IOException {
        assertEquals("", PerformanceReport.keptSection(dir.resolve("missing.md")));
    }
}
