package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;

import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 22: allocate-and-zero helpers, views over Java arrays with explicit copy-in and copy-out, zero and free. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AllocateAndWrapTest {
    private AmpFixture fx;

    @BeforeEach
    void start() {
        fx = AmpFixture.start();
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void shouldAllocateZeroedViewsOfEveryElementType() {
        Accelerator acc = fx.accelerator;
        IntArrayView i = acc.newInts(100);
        LongArrayView l = acc.newLongs(new Extent(4, 25));
        FloatArrayView f = acc.newFloats(100);
        DoubleArrayView d = acc.newDoubles(new Extent(2, 5, 10));
        for (int k = 0; k < 100; k++) {
            assertEquals(0, i.get(k));
            assertEquals(0L, l.get(k / 25, k % 25));
            assertEquals(0f, f.get(k));
            assertEquals(0d, d.get(k / 50, k / 10 % 5, k % 10));
        }
    }

    @Test
    void shouldLetKernelsWriteANewViewThatTheHostReads() {
        FloatArrayView out = fx.accelerator.newFloats(1000);
        fx.amp.parallelForEachAndWait(new Extent(1000), idx -> out.set(idx, idx.get(0) * 0.5f));
        for (int k = 0; k < 1000; k++) {
            assertEquals(k * 0.5f, out.get(k));
        }
    }

    @Test
    void shouldCopyAJavaArrayInWhenWrappedAndBackOnlyOnCopyOut() {
        float[] data = new float[512];
        for (int k = 0; k < data.length; k++) {
            data[k] = k;
        }
        FloatArrayView v = fx.accelerator.wrap(data);
        fx.amp.parallelForEachAndWait(v.extent(), idx -> v.set(idx, v.get(idx) * 2));
        assertEquals(3f, data[3], "the Java array is untouched until copyOut");
        v.copyOut();
        for (int k = 0; k < data.length; k++) {
            assertEquals(2f * k, data[k]);
        }
    }

    @Test
    void shouldSeeTheArraysNewContentsAfterCopyIn() {
        long[] data = {1, 2, 3, 4, 5, 6};
        LongArrayView v = fx.accelerator.wrap(data, new Extent(2, 3));
        data[4] = 50;
        v.copyIn();
        LongArrayView sums = fx.accelerator.newLongs(2);
        fx.amp.parallelForEachAndWait(new Extent(2), idx -> sums.set(idx, v.get(idx.get(0), 0) + v.get(idx.get(0), 1)
                + v.get(idx.get(0), 2)));
        assertEquals(6, sums.get(0));
        assertEquals(4 + 50 + 6, sums.get(1));
    }

    @Test
    void shouldCopyOutIntsAndDoubles() {
        int[] ints = new int[64];
        double[] doubles = new double[64];
        IntArrayView iv = fx.accelerator.wrap(ints);
        DoubleArrayView dv = fx.accelerator.wrap(doubles);
        fx.amp.parallelForEachAndWait(new Extent(64), idx -> {
            iv.set(idx, idx.get(0) + 1);
            dv.set(idx, idx.get(0) + 0.25);
        });
        iv.copyOut();
        dv.copyOut();
        for (int k = 0; k < 64; k++) {
            assertEquals(k + 1, ints[k]);
            assertEquals(k + 0.25, doubles[k]);
        }
    }

    @Test
    void shouldCopyInAndOutThroughTheCoherenceModelInFidelityMode() {
        try (AmpFixture fidelity = AmpFixture.start(RuntimeConfig.builder().gpuAgents(1).computeUnits(2).fidelity(true)
                .build())) {
            int[] data = new int[256];
            for (int k = 0; k < data.length; k++) {
                data[k] = k;
            }
            IntArrayView v = fidelity.accelerator.wrap(data);
            IntArrayView zeros = fidelity.accelerator.newInts(256);
            fidelity.amp.parallelForEachAndWait(v.extent(), idx -> v.set(idx, v.get(idx) + 1 + zeros.get(idx)));
            v.copyOut();
            for (int k = 0; k < data.length; k++) {
                assertEquals(k + 1, data[k]);
            }
        }
    }

    @Test
    void shouldRefuseAWrapWhoseExtentDoesNotMatchTheArray() {
        HsaException e = assertThrows(HsaException.class, () -> fx.accelerator.wrap(new float[10], new Extent(3, 3)));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRefuseCopyOutOfAViewNotMadeOverAJavaArray() {
        HsaException e = assertThrows(HsaException.class, () -> fx.accelerator.newFloats(4).copyOut());
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldZeroOnlyTheElementsOfASection() {
        int[] data = new int[4 * 5];
        java.util.Arrays.fill(data, 7);
        IntArrayView v = fx.accelerator.wrap(data, new Extent(4, 5));
        v.section(new Index(1, 1), new Extent(2, 3)).zero();
        v.copyOut();
        int[] expected = {
            7, 7, 7, 7, 7,
            7, 0, 0, 0, 7,
            7, 0, 0, 0, 7,
            7, 7, 7, 7, 7};
        assertArrayEquals(expected, data);
    }

    @Test
    void shouldFreeLayerMemoryOnceAndRefuseASecondFree() {
        FloatArrayView v = fx.accelerator.newFloats(16);
        fx.accelerator.free(v);
        HsaException e = assertThrows(HsaException.class, () -> fx.accelerator.free(v));
        assertEquals(HsaStatus.INVALID_ALLOCATION, e.status());
    }

    @Test
    void shouldFreeTheLayersMemoryWhenTheLayerCloses() {
        long address = fx.accelerator.newFloats(16).address(new Index(0));
        long wrapped = fx.accelerator.wrap(new long[4]).address(new Index(0));
        fx.amp.close();
        assertEquals(HsaStatus.INVALID_ALLOCATION,
                assertThrows(HsaException.class, () -> fx.runtime.free(address)).status());
        assertEquals(HsaStatus.INVALID_ALLOCATION,
                assertThrows(HsaException.class, () -> fx.runtime.free(wrapped)).status());
    }

    @Test
    void shouldRefuseToFreeAViewOverMemoryTheLayerDidNotAllocate() {
        FloatArrayView foreign = fx.floats(16);
        HsaException e = assertThrows(HsaException.class, () -> fx.accelerator.free(foreign));
        assertEquals(HsaStatus.INVALID_ALLOCATION, e.status());
    }
}
