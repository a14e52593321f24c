package org.hsa4j.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScalingPlotTest {
    @TempDir
    Path dir;

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

    @Test
    void shouldJudgeAThroughputAgainstItsBaselineFromBelow() {
        Figure.Goal atLeast = new Figure.Goal(Figure.Kind.RATIO_AT_LEAST, 1.5, ">= 1.5x");
        assertTrue(atLeast.met(7.5, 5.0));
        assertFalse(atLeast.met(7.4, 5.0));
        assertEquals(null, atLeast.met(7.5, Double.NaN));
    }
}
