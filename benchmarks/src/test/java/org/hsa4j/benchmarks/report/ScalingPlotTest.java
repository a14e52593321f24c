package org.hsa4j.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScalingPlotTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void needsJavaDesktop() {
        // the report draws with java.desktop (Java2D, ImageIO); a jlinked runtime without it (the GPU
        // machine's bundle) cannot load the plot at all
        assumeTrue(ModuleLayer.boot().findModule("java.desktop").isPresent(),
                "skipped: this runtime has no java.desktop module (a jlinked JRE), so the plot cannot be drawn");
    }

    @Test
    void shouldDrawOnePanelPerChartSideBySideAsAPng() throws IOException {
        TreeMap<Integer, Double> curve = new TreeMap<>();
        curve.put(1, 9.0);
        curve.put(2, 9.5);
        curve.put(16, 6.0);
        Path png = dir.resolve("plots/units.png");
        ScalingPlot.Panel panel = new ScalingPlot.Panel("t", "y",
                List.of(new ScalingPlot.Series("hsa4j", Color.BLUE, false, curve)));
        assertTrue(ScalingPlot.write(png, List.of(panel, panel)));
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(2 * 640, image.getWidth());
        assertEquals(460, image.getHeight());
        int blue = 0;
        for (int x = 0; x < image.getWidth(); x++) {
            for (int y = 0; y < image.getHeight(); y++) {
                if (image.getRGB(x, y) == Color.BLUE.getRGB()) {
                    blue++;
                }
            }
        }
        assertNotEquals(0, blue, "the curve's colour appears nowhere");
    }

    @Test
    void shouldWriteNoFileWhenNoCurveHasAPoint() throws IOException {
        Path png = dir.resolve("empty.png");
        ScalingPlot.Panel panel = new ScalingPlot.Panel("t", "y",
                List.of(new ScalingPlot.Series("none", Color.BLUE, false, new TreeMap<>())));
        assertFalse(ScalingPlot.write(png, List.of(panel)));
        assertFalse(Files.exists(png));
    }

    @Test
    void shouldRoundTheAxisUpToOneTwoOrFiveTimesAPowerOfTen() {
        assertEquals(20.0, ScalingPlot.niceCeiling(11.2));
        assertEquals(2.5, ScalingPlot.niceCeiling(2.1));
        assertEquals(1.0, ScalingPlot.niceCeiling(0));
        assertEquals(0.5, ScalingPlot.niceCeiling(0.42), 1e-12);
    }
}
