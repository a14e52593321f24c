package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.hsa4j.amp.codegen.TileCompiler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The tile compiler: which kernels become work-item loops, and that locals survive barriers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TileCompilerTest {
    private static AmpFixture fx;
    private final int offset = 1000;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start();
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static int twice(int v) {
        return 2 * v;
    }

    /** A kernel that is a class, not a lambda. */
    static final class ClassKernel implements TiledKernel {
        private static final long serialVersionUID = 1L;
        private final IntArrayView out;

        ClassKernel(IntArrayView out) {
            this.out = out;
        }

        @Override
        public void run(TiledIndex t) {
            t.barrier().await();
            out.set(t.global(0), 1);
        }
    }

    @Test
    void shouldKeepLocalsOfEveryKindAcrossBarriers() {
        int n = 256;
        int tile = 16;
        IntArrayView ints = fx.ints(n);
        LongArrayView longs = fx.longs(n);
        FloatArrayView floats = fx.floats(n);
        DoubleArrayView doubles = fx.doubles(n);
        IntArrayView refs = fx.ints(n);
        TiledKernel k = t -> {
            int g = t.global(0);
            long l = g * 3_000_000_000L;
            float f = g + 0.5f;
            double d = g + 0.25;
            short sh = (short) g;
            boolean odd = (g & 1) == 1;
            String s = "item" + g;
            int[] arr = {g, g + 1};
            Object nothing = null;
            t.barrier().await();
            t.barrier().await();
            ints.set(g, sh + (odd ? 1 : 0));
            longs.set(g, l);
            floats.set(g, f);
            doubles.set(g, d);
            refs.set(g, (s.equals("item" + g) ? 1 : 0) + arr[1] - arr[0] + (nothing == null ? 1 : 0));
        };
        assertTrue(TileCompiler.compile(k).workItemLoops(), TileCompiler.compile(k).reason());
        fx.amp.parallelForEach(new Extent(n).tile(tile), k).get();
        for (int g = 0; g < n; g++) {
            assertEquals(g + (g & 1), ints.get(g));
            assertEquals(g * 3_000_000_000L, longs.get(g));
            assertEquals(g + 0.5f, floats.get(g));
            assertEquals(g + 0.25, doubles.get(g));
            assertEquals(3, refs.get(g));
        }
    }

    @Test
    void shouldCompileALambdaThatCapturesThisAndCallsPrivateMethods() {
        IntArrayView out = fx.ints(64);
        TiledKernel k = t -> {
            int v = twice(t.global(0));
            t.barrier().await();
            out.set(t.global(0), v + offset);
        };
        assertTrue(TileCompiler.compile(k).workItemLoops(), TileCompiler.compile(k).reason());
        fx.amp.parallelForEach(new Extent(64).tile(8), k).get();
        for (int i = 0; i < 64; i++) {
            assertEquals(2 * i + 1000, out.get(i));
        }
    }

    @Test
    void shouldCompileAKernelWithoutBarriers() {
        IntArrayView out = fx.ints(64);
        TiledKernel k = t -> out.set(t.global(0), t.local(0));
        TileCompiler.Compiled c = TileCompiler.compile(k);
        assertTrue(c.workItemLoops(), c.reason());
        assertTrue(c.reason().startsWith("0 barrier site"), c.reason());
        fx.amp.parallelForEach(new Extent(64).tile(16), k).get();
        assertEquals(15, out.get(63));
    }

    @Test
    void shouldRunAsContinuationsWhenTheIndexEscapesIntoAnotherMethod() {
        IntArrayView out = fx.ints(32);
        TiledKernel k = t -> {
            t.barrier().await();
            out.set(t.global(0), String.valueOf(t).isEmpty() ? 0 : 1);
        };
        TileCompiler.Compiled c = TileCompiler.compile(k);
        assertFalse(c.workItemLoops());
        assertTrue(c.reason().contains("escapes"), c.reason());
        fx.amp.parallelForEach(new Extent(32).tile(8), k).get();
        assertEquals(1, out.get(31));
    }

    @Test
    void shouldRunAsContinuationsWhenTheKernelSynchronizes() {
        IntArrayView out = fx.ints(16);
        Object lock = new Object();
        TiledKernel k = t -> {
            synchronized (lock) {
                out.set(t.global(0), 1);
            }
            t.barrier().await();
        };
        TileCompiler.Compiled c = TileCompiler.compile(k);
        assertFalse(c.workItemLoops());
        assertTrue(c.reason().contains("synchronized"), c.reason());
        fx.amp.parallelForEach(new Extent(16).tile(4), k).get();
        assertEquals(1, out.get(15));
    }

    @Test
    void shouldRunAsContinuationsWhenTheKernelIsNotALambda() {
        IntArrayView out = fx.ints(16);
        ClassKernel k = new ClassKernel(out);
        assertFalse(TileCompiler.compile(k).workItemLoops());
        fx.amp.parallelForEach(new Extent(16).tile(4), k).get();
        assertEquals(1, out.get(15));
    }

    /** A kernel written as a method: reverses each tile of 8 into {@code OUT}. */
    static void reverseTiles(TiledIndex t) {
        int l = t.local(0);
        SCRATCH.set(t, l, t.global(0));
        t.barrier().await();
        OUT.set(t.global(0), SCRATCH.get(t, 7 - l));
    }

    private static final TiledExtent TILED = new Extent(32).tile(8);
    private static final TileStaticInts SCRATCH = TILED.tileStaticInts(8);
    private static IntArrayView OUT;

    @Test
    void shouldCompileAStaticMethodReference() {
        OUT = fx.ints(32);
        TiledKernel k = TileCompilerTest::reverseTiles;
        assertTrue(TileCompiler.compile(k).workItemLoops(), TileCompiler.compile(k).reason());
        fx.amp.parallelForEach(TILED, k).get();
        assertEquals(7, OUT.get(0));
        assertEquals(24, OUT.get(31));
    }

    @Test
    void shouldBindCapturedValuesOfEveryPrimitiveKind() {
        int i = Integer.parseInt("3");
        long l = Long.parseLong("4000000000");
        float f = Float.parseFloat("0.5");
        double d = Double.parseDouble("0.25");
        boolean b = Boolean.parseBoolean("true");
        char c = "A".charAt(0);
        byte y = Byte.parseByte("7");
        short h = Short.parseShort("9");
        DoubleArrayView out = fx.doubles(16);
        TiledKernel k = t -> {
            double v = i + l / 1e9 + f + d + (b ? 1 : 0) + c + y + h;
            t.barrier().await();
            out.set(t.global(0), v);
        };
        assertTrue(TileCompiler.compile(k).workItemLoops(), TileCompiler.compile(k).reason());
        fx.amp.parallelForEach(new Extent(16).tile(4), k).get();
        assertEquals(3 + 4 + 0.5 + 0.25 + 1 + 65 + 7 + 9, out.get(15), 1e-9);
    }

    @Test
    void shouldResumeInsideTryAndFinallyBlocks() {
        IntArrayView out = fx.ints(32);
        TiledKernel k = t -> {
            int v = t.global(0);
            try {
                t.barrier().await();
                if (v == 31) {
                    throw new IllegalArgumentException("caught below");
                }
                v += 100;
            } catch (IllegalArgumentException e) {
                v = -1;
            } finally {
                t.barrier().await();
                out.set(t.global(0), v);
            }
        };
        assertTrue(TileCompiler.compile(k).workItemLoops(), TileCompiler.compile(k).reason());
        fx.amp.parallelForEach(new Extent(32).tile(8), k).get();
        assertEquals(100, out.get(0));
        assertEquals(130, out.get(30));
        assertEquals(-1, out.get(31));
    }

    @Test
    void shouldCompileEachLambdaClassOnce() {
        TiledKernel k = t -> { };
        assertTrue(TileCompiler.compile(k) == TileCompiler.compile(k));
    }
}
