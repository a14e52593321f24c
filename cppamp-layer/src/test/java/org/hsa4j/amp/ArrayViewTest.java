package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.MemoryFaultException;
import org.hsa4j.memory.Svm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Item 3: data shared through SVM with no copies ([=] and [&] captures, Array and ArrayView). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ArrayViewTest {
    private static AmpFixture fx;

    @BeforeAll
    static void start() {
        fx = AmpFixture.start();
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void shouldLetKernelsUseRawSvmPointersCapturedByValue() {
        int n = 1000;
        long a = fx.zeroed(4L * n);
        long c = fx.zeroed(4L * n);
        Svm host = fx.runtime.svm();
        for (int i = 0; i < n; i++) {
            host.setFloat(a + 4L * i, i);
        }
        Svm gpu = fx.accelerator.svm();
        fx.amp.parallelForEach(new Extent(n), idx -> {
            long i = idx.get(0);
            gpu.setFloat(c + 4 * i, gpu.getFloat(a + 4 * i) * 2);
        }).get();
        for (int i = 0; i < n; i++) {
            assertEquals(2f * i, host.getFloat(c + 4L * i), "element " + i);
        }
    }

    @Test
    void shouldLetKernelsUpdateAHostVariableCapturedByReference() {
        long cell = fx.zeroed(8);
        IntArrayView counter = fx.accelerator.ints(cell, new Extent(2));
        counter.set(1, 40);
        fx.amp.parallelForEach(new Extent(1000), idx -> counter.atomicFetchAdd(0, counter.get(1) / 40)).get();
        assertEquals(1000, fx.runtime.svm().getInt(cell), "the host sees the kernel's update in place");
        counter.set(1, 80);
        fx.amp.parallelForEach(new Extent(10), idx -> counter.atomicFetchAdd(0, counter.get(1) / 40)).get();
        assertEquals(1020, counter.get(0), "the kernel sees the host's update in place");
    }

    @Test
    void shouldFailToViewMemoryTheAcceleratorMayNotAccess() {
        long plain = fx.runtime.systemMalloc(64);
        assertThrows(MemoryFaultException.class, () -> fx.accelerator.floats(plain, new Extent(16)));
        fx.runtime.free(plain);
    }

    @Test
    void shouldAllocateAnArrayOnTheAcceleratorThatTheHostReadsInPlace() {
        AcceleratorView v = fx.accelerator.createView();
        try (Array<FloatArrayView> arr = Array.floats(v, new Extent(4, 8))) {
            FloatArrayView av = arr.view();
            for (int i = 0; i < 4; i++) {
                for (int j = 0; j < 8; j++) {
                    av.set(i, j, i * 8 + j);
                }
            }
            v.parallelForEach(arr.extent(), idx -> av.set(idx, av.get(idx) * 3)).get();
            av.synchronize();
            assertEquals(3f * 31, av.get(3, 7));
            assertEquals(3f * 31, fx.runtime.svm().getFloat(arr.address() + 31 * 4));
            long address = arr.address();
            arr.close();
            assertNull(fx.runtime.pointerInfo(address));
        } finally {
            v.close();
        }
    }

    @Test
    void shouldWriteThroughASectionIntoItsParent() {
        long base = fx.zeroed(4L * 6 * 10);
        IntArrayView whole = fx.accelerator.ints(base, new Extent(6, 10));
        IntArrayView part = whole.section(new Index(1, 2), new Extent(3, 4));
        assertEquals(new Extent(3, 4), part.extent());
        fx.amp.parallelForEach(part.extent(), idx -> part.set(idx, 1 + idx.get(0) * 4 + idx.get(1))).get();
        int touched = 0;
        for (int i = 0; i < 6; i++) {
            for (int j = 0; j < 10; j++) {
                boolean inside = i >= 1 && i < 4 && j >= 2 && j < 6;
                assertEquals(inside ? 1 + (i - 1) * 4 + (j - 2) : 0, whole.get(i, j), "(" + i + ", " + j + ")");
                touched += inside ? 1 : 0;
            }
        }
        assertEquals(12, touched);
        assertEquals(base + 4L * (1 * 10 + 2), part.address(new Index(0, 0)));
    }

    @Test
    void shouldSectionRank1AndRank3Views() {
        LongArrayView line = fx.longs(10);
        line.section(new Index(3), new Extent(4)).set(0, 77L);
        assertEquals(77L, line.get(3));
        DoubleArrayView cube = fx.accelerator.doubles(fx.zeroed(8L * 27), new Extent(3, 3, 3));
        DoubleArrayView inner = cube.section(new Index(1, 1, 1), new Extent(2, 2, 2));
        inner.set(1, 1, 1, 5.0);
        assertEquals(5.0, cube.get(2, 2, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> cube.section(new Index(2, 2, 2), new Extent(2, 1, 1)));
    }

    @Test
    void shouldCheckEveryCoordinateAndTheRank() {
        FloatArrayView m = fx.accelerator.floats(fx.zeroed(4L * 12), new Extent(3, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> m.get(0, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> m.get(3, 0));
        assertThrows(IllegalArgumentException.class, () -> m.get(1));
    }

    @Test
    void shouldMakeSynchronizeWaitForTheSourceViewsWork() throws Exception {
        AcceleratorView v = fx.accelerator.createView();
        try (Array<IntArrayView> arr = Array.ints(v, new Extent(1))) {
            IntArrayView av = arr.view();
            Gate gate = new Gate(fx);
            IndexKernel wait = gate.kernel();
            v.parallelForEach(new Extent(1), idx -> {
                wait.run(idx);
                av.set(0, 42);
            });
            CompletableFuture<Integer> seen = CompletableFuture.supplyAsync(() -> {
                av.synchronize();
                return av.get(0);
            });
            assertFalse(seen.isDone());
            gate.open();
            assertEquals(42, seen.get(30, TimeUnit.SECONDS));
        } finally {
            v.close();
        }
    }

    @Test
    void shouldMakeSynchronizeOfAViewOverRawSvmWaitForTheKernelThatWritesIt() throws Exception {
        FloatArrayView out = fx.accelerator.floats(fx.zeroed(4), new Extent(1));
        AcceleratorView v = fx.accelerator.createView();
        try {
            Gate gate = new Gate(fx);
            IndexKernel wait = gate.kernel();
            CompletionFuture k = v.parallelForEach(new Extent(1), idx -> {
                out.set(0, 1f);
                wait.run(idx);
                out.set(0, 2f);
            });
            float[] seen = new float[1];
            Thread host = Thread.ofPlatform().start(() -> {
                out.synchronize();
                seen[0] = out.get(0);
            });
            awaitBlockedOrDone(host);
            gate.open();
            host.join(30_000);
            assertFalse(host.isAlive(), "synchronize() returns once the kernel has");
            assertEquals(2f, seen[0], "synchronize() returned before the kernel writing the view had finished");
            assertTrue(k.isReady());
        } finally {
            v.close();
        }
    }

    /** Waits (bounded) until {@code t} has parked or ended, without opening anything it waits for. */
    private static void awaitBlockedOrDone(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (t.isAlive() && t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the host thread neither parked nor ended in 30 s");
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void shouldKeepDataAcrossRefreshAndDiscard() {
        IntArrayView v = fx.ints(4);
        v.set(2, 9);
        v.refresh();
        v.discardData();
        assertEquals(9, v.get(2));
        assertTrue(v.toString().contains("Extent[4]"));
    }
}
