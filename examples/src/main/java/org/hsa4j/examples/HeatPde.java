package org.hsa4j.examples;

import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

import javax.imageio.ImageIO;

import org.hsa4j.amp.AcceleratorView;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.CompletionFuture;
import org.hsa4j.amp.CppMemoryOrder;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.FloatArrayView;
import org.hsa4j.amp.Index;
import org.hsa4j.amp.IndexKernel;
import org.hsa4j.amp.IntArrayView;
import org.hsa4j.runtime.HsaRuntime;

/**
 * A square plate heated by a grid of burners, held at a set temperature by a host thermostat.
 * Kernels integrate the heat equation (explicit steps, edges held at ambient 0, every cell losing
 * heat to the air); each step reads every burner's on/off flag from fine-grained SVM with an
 * acquire load. While the steps run, the host reads one sensor per burner and switches burners
 * on below {@code SET - HYSTERESIS} and off above {@code SET + HYSTERESIS} with release stores.
 * The host queues the steps in batches, so a flag is never more than one batch late, which
 * bounds the overshoot. Checks that once a sensor has reached the set range it stays within
 * {@code SET ± TOLERANCE}, and that every sensor got there. Set {@code HSA4J_HEAT_PNG} to a file
 * name to get a PNG of the final field.
 */
public final class HeatPde implements Example {
    private static final float DIFFUSION = 0.2f;
    private static final float COOLING = 0.005f;
    private static final float POWER = 0.5f;
    private static final float SET = 25f;
    private static final float HYSTERESIS = 1.5f;
    private static final float TOLERANCE = 8f;
    private static final int BATCH = 8;
    private static final long SAMPLE_PERIOD_NANOS = 50_000;

    /** The plate's geometry: {@code size × size} cells, {@code side × side} burners, each a square patch. */
    record Plate(int size, int side) {
        int block() {
            return size / side;
        }

        int half() {
            return Math.max(2, block() / 4);
        }

        /** The burner heating cell (y, x), or -1. */
        int burnerAt(int y, int x) {
            int bx = Math.min(x / block(), side - 1);
            int by = Math.min(y / block(), side - 1);
            return Math.abs(x - centre(bx)) <= half() && Math.abs(y - centre(by)) <= half() ? by * side + bx : -1;
        }

        /** The row or column of the centre of burner row or column {@code b}, where its sensor sits. */
        int centre(int b) {
            return b * block() + block() / 2;
        }
    }

    @Override
    public String name() {
        return "heat_pde";
    }

    @Override
    public String description() {
        return "heat equation kernels on a plate with burners; a host thermostat reads sensors and flips SVM flags during the run";
    }

    private static IndexKernel step(Plate plate, FloatArrayView from, FloatArrayView to, IntArrayView burners) {
        int last = plate.size() - 1;
        return idx -> {
            int y = idx.get(0);
            int x = idx.get(1);
            if (y == 0 || x == 0 || y == last || x == last) {
                to.set(y, x, 0f);
                return;
            }
            float t = from.get(y, x);
            float laplacian = from.get(y - 1, x) + from.get(y + 1, x) + from.get(y, x - 1) + from.get(y, x + 1) - 4 * t;
            int b = plate.burnerAt(y, x);
            float heat = b >= 0 && burners.atomicLoad(b, CppMemoryOrder.ACQUIRE) != 0 ? POWER : 0f;
            to.set(y, x, t + DIFFUSION * laplacian - COOLING * t + heat);
        };
    }

    @Override
    public void run(PrintStream out, boolean small) throws IOException {
        Plate plate = small ? new Plate(64, 4) : new Plate(128, 4);
        int steps = small ? 640 : 2400;
        int n = plate.size();
        int sensors = plate.side() * plate.side();
        try (HsaRuntime rt = HsaRuntime.init(); Amp amp = Amp.on(rt)) {
            Extent extent = new Extent(n, n);
            FloatArrayView[] field = {
                amp.defaultAccelerator().newFloats(extent),
                amp.defaultAccelerator().newFloats(extent)};
            IntArrayView burners = amp.defaultAccelerator().newInts(sensors);
            IndexKernel[] steppers = {step(plate, field[0], field[1], burners), step(plate, field[1], field[0], burners)};
            boolean[] reached = new boolean[sensors];
            float lowest = Float.MAX_VALUE;
            float highest = -Float.MAX_VALUE;
            int switches = 0;

            AcceleratorView view = amp.defaultView();
            long[] batchNanos = new long[steps / BATCH];
            long start = System.nanoTime();
            for (int s = 0; s < steps; s += BATCH) {
                long batchStart = System.nanoTime();
                CompletionFuture batch = null;
                for (int k = s; k < s + BATCH; k++) {
                    batch = view.parallelForEach(extent, steppers[k % 2]);
                }
                long deadline = Bounded.deadline();
                while (!batch.isReady()) {
                    switches += thermostat(plate, field[s % 2], burners);
                    if (System.nanoTime() - deadline > 0) {
                        throw new AssertionError("a batch of heat steps did not finish");
                    }
                    LockSupport.parkNanos(SAMPLE_PERIOD_NANOS);
                }
                Bounded.await(batch, "a batch of heat steps");
                batchNanos[s / BATCH] = System.nanoTime() - batchStart;
                FloatArrayView now = field[(s + BATCH) % 2];
                for (int b = 0; b < sensors; b++) {
                    float t = sensor(plate, now, b);
                    if (reached[b]) {
                        lowest = Math.min(lowest, t);
                        highest = Math.max(highest, t);
                        if (Math.abs(t - SET) > TOLERANCE) {
                            throw new AssertionError(String.format("sensor %d reads %.2f at step %d, outside %.1f ± %.1f",
                                    b, t, s + BATCH, SET, TOLERANCE));
                        }
                    } else {
                        reached[b] = t >= SET - HYSTERESIS;
                    }
                }
                switches += thermostat(plate, now, burners);
            }
            long elapsed = System.nanoTime() - start;
            for (int b = 0; b < sensors; b++) {
                if (!reached[b]) {
                    throw new AssertionError("sensor " + b + " never reached " + (SET - HYSTERESIS));
                }
            }
            if (switches < 2 * sensors) {
                throw new AssertionError("only " + switches + " burner switches: the thermostat never cycled");
            }
            String png = System.getenv("HSA4J_HEAT_PNG");
            if (png != null && !png.isBlank()) {
                Png.write(field[steps % 2], n, new File(png));
                out.printf("heat_pde: wrote the final field to %s%n", png);
            }
            out.printf("heat_pde: %d steps of a %dx%d plate with %d burners; the host thermostat switched burners %d "
                    + "times during the run and every sensor stayed within %.2f..%.2f (set %.1f ± %.1f)%n", steps, n, n,
                    sensors, switches, lowest, highest, SET, TOLERANCE);
            int warmups = batchNanos.length / 4;
            long[] steady = Arrays.copyOfRange(batchNanos, warmups + 1, batchNanos.length);
            Arrays.sort(steady);
            double stepMicros = steady[steady.length / 2] / 1e3 / BATCH;
            // baseline: the same step as one plain host loop over the same views
            IndexKernel stepper = steppers[0];
            Timing.Figure host = Timing.rounds(5, 1, k -> {
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < n; j++) {
                        stepper.run(new Index(i, j));
                    }
                }
            });
            out.printf("heat_pde: %.1f ms in all, %.1f M cell updates/s; steady state (median batch after %d warm-up"
                    + " batches) %.1f us per step (first batch %.1f us per step); baseline: one step as a host loop"
                    + " %.1f us%n", elapsed / 1e6, (double) steps * n * n / (elapsed / 1e3), warmups, stepMicros,
                    batchNanos[0] / 1e3 / BATCH, host.steadyMicros());
        }
    }

    private static float sensor(Plate plate, FloatArrayView field, int burner) {
        return field.get(plate.centre(burner / plate.side()), plate.centre(burner % plate.side()));
    }

    /** Reads every sensor and switches its burner; returns how many burners changed state. */
    private static int thermostat(Plate plate, FloatArrayView field, IntArrayView burners) {
        int changed = 0;
        for (int b = 0; b < plate.side() * plate.side(); b++) {
            float t = sensor(plate, field, b);
            int want = t < SET - HYSTERESIS ? 1 : t > SET + HYSTERESIS ? 0 : -1;
            if (want >= 0 && burners.atomicLoad(b, CppMemoryOrder.RELAXED) != want) {
                burners.atomicStore(b, want, CppMemoryOrder.RELEASE);
                changed++;
            }
        }
        return changed;
    }

    /** The PNG writer: a class of its own, so a JRE without java.desktop loads HeatPde (and the launcher) fine. */
    private static final class Png {
        private Png() {
        }

        static void write(FloatArrayView field, int n, File file) throws IOException {
            BufferedImage image = new BufferedImage(n, n, BufferedImage.TYPE_INT_RGB);
            for (int y = 0; y < n; y++) {
                for (int x = 0; x < n; x++) {
                    float v = Math.clamp(field.get(y, x) / (SET + TOLERANCE), 0f, 1f);
                    int r = (int) (255 * Math.min(1f, 2 * v));
                    int g = (int) (255 * Math.max(0f, 2 * v - 1));
                    int bl = (int) (255 * (1 - v) * 0.5f);
                    image.setRGB(x, y, r << 16 | g << 8 | bl);
                }
            }
            ImageIO.write(image, "png", file);
        }
    }
}
