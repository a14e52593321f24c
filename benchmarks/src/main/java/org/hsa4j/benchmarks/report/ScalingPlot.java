package org.hsa4j.benchmarks.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;

import javax.imageio.ImageIO;

/**
 * Draws curves against the compute-unit count as a PNG, one panel per chart side by side, with
 * Java2D in headless mode (no display, no library beyond the JDK's java.desktop). The x axis is
 * logarithmic in the unit count (1, 2, 4, 8, 16 sit evenly), the y axis linear from 0; a series
 * drawn dashed is a baseline or a goal line, a solid one a measured curve with a dot per point.
 */
final class ScalingPlot {
    private static final int PANEL_WIDTH = 640;
    private static final int HEIGHT = 460;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 40;
    private static final int BOTTOM = 50;

    /** One curve: its name in the legend, colour, dashed (baseline or goal) or solid, and y by unit count. */
    record Series(String name, Color color, boolean dashed, SortedMap<Integer, Double> points) {
    }

    /** One chart: title, y axis label and its curves. */
    record Panel(String title, String yLabel, List<Series> series) {
    }

    private ScalingPlot() {
    }

    /** Writes {@code panels} side by side to {@code file} as a PNG; false when no panel has a point. */
    static boolean write(Path file, List<Panel> panels) throws IOException {
        if (panels.stream().allMatch(p -> p.series().stream().allMatch(s -> s.points().isEmpty()))) {
            return false;
        }
        System.setProperty("java.awt.headless", "true");
        BufferedImage image = new BufferedImage(PANEL_WIDTH * panels.size(), HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            for (int i = 0; i < panels.size(); i++) {
                draw(g, panels.get(i), i * PANEL_WIDTH);
            }
        } finally {
            g.dispose();
        }
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        if (!ImageIO.write(image, "png", file.toFile())) {
            throw new IOException("no PNG writer in this JDK");
        }
        return true;
    }

    private static void draw(Graphics2D g, Panel panel, int x0) {
        SortedSet<Integer> units = new TreeSet<>();
        double top = 0;
        for (Series s : panel.series()) {
            units.addAll(s.points().keySet());
            for (double v : s.points().values()) {
                if (Double.isFinite(v)) {
                    top = Math.max(top, v);
                }
            }
        }
        if (units.isEmpty()) {
            return;
        }
        top = niceCeiling(top * 1.1);
        int plotW = PANEL_WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        double minLog = log2(units.first());
        double span = Math.max(1, log2(units.last()) - minLog);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.setColor(Color.BLACK);
        g.drawString(panel.title(), x0 + LEFT, TOP - 16);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        FontMetrics fm = g.getFontMetrics();
        // grid and y ticks
        for (int t = 0; t <= 5; t++) {
            double v = top * t / 5;
            int y = TOP + plotH - (int) Math.round(plotH * v / top);
            g.setColor(new Color(225, 225, 225));
            g.drawLine(x0 + LEFT, y, x0 + LEFT + plotW, y);
            g.setColor(Color.DARK_GRAY);
            String label = String.format(Locale.ROOT, top >= 10 ? "%.0f" : "%.2f", v);
            g.drawString(label, x0 + LEFT - 6 - fm.stringWidth(label), y + fm.getAscent() / 2);
        }
        // x ticks
        for (int u : units) {
            int x = x0 + LEFT + (int) Math.round(plotW * (log2(u) - minLog) / span);
            g.setColor(new Color(225, 225, 225));
            g.drawLine(x, TOP, x, TOP + plotH);
            g.setColor(Color.DARK_GRAY);
            String label = Integer.toString(u);
            g.drawString(label, x - fm.stringWidth(label) / 2, TOP + plotH + fm.getAscent() + 4);
        }
        g.setColor(Color.BLACK);
        g.drawRect(x0 + LEFT, TOP, plotW, plotH);
        String xLabel = "compute units configured";
        g.drawString(xLabel, x0 + LEFT + (plotW - fm.stringWidth(xLabel)) / 2, HEIGHT - 12);
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.translate(x0 + 16, TOP + plotH / 2 + fm.stringWidth(panel.yLabel()) / 2);
        rotated.rotate(-Math.PI / 2);
        rotated.drawString(panel.yLabel(), 0, 0);
        rotated.dispose();
        // curves and legend
        Stroke solid = new BasicStroke(2.2f);
        Stroke dashed = new BasicStroke(1.6f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {7f, 5f}, 0f);
        int legendY = TOP + 18;
        for (Series s : panel.series()) {
            if (s.points().isEmpty()) {
                continue;
            }
            g.setColor(s.color());
            g.setStroke(s.dashed() ? dashed : solid);
            int px = -1;
            int py = -1;
            for (Map.Entry<Integer, Double> e : s.points().entrySet()) {
                if (!Double.isFinite(e.getValue())) {
                    px = -1;
                    continue;
                }
                int x = x0 + LEFT + (int) Math.round(plotW * (log2(e.getKey()) - minLog) / span);
                int y = TOP + plotH - (int) Math.round(plotH * Math.min(e.getValue(), top) / top);
                if (px >= 0) {
                    g.drawLine(px, py, x, y);
                }
                if (!s.dashed()) {
                    g.fillOval(x - 4, y - 4, 8, 8);
                }
                px = x;
                py = y;
            }
            g.drawLine(x0 + LEFT + 12, legendY - 4, x0 + LEFT + 40, legendY - 4);
            g.setStroke(new BasicStroke(1f));
            g.setColor(Color.BLACK);
            g.drawString(s.name(), x0 + LEFT + 46, legendY);
            legendY += fm.getHeight() + 2;
        }
        g.setStroke(new BasicStroke(1f));
    }

    /** The smallest of 1, 2, 2.5, 5 times a power of ten that is at least {@code v} (1 for v <= 0). */
    static double niceCeiling(double v) {
        if (!(v > 0)) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= v * (1 - 1e-12)) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static double log2(int u) {
        return Math.log(u) / Math.log(2);
    }
}
