package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 22: the typed views share ArrayView's atomics; each width and sign behaves as its Java type. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedViewImplementationTest {
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
    void shouldAddDoublesAtomicallyFromEveryIndex() {
        DoubleArrayView sum = fx.accelerator.newDoubles(1);
        fx.amp.parallelForEachAndWait(new Extent(1000), idx -> sum.atomicFetchAdd(0, 0.5));
        assertEquals(500.0, sum.get(0));
    }

    @Test
    void shouldAddFloatsAtomicallyFromEveryIndex() {
        FloatArrayView sum = fx.accelerator.newFloats(1);
        fx.amp.parallelForEachAndWait(new Extent(1000), idx -> sum.atomicFetchAdd(0, 0.25f));
        assertEquals(250f, sum.get(0));
    }

    @Test
    void shouldTakeTheSignedMaximumAndMinimumOfNegativeInts() {
        IntArrayView v = fx.accelerator.newInts(2);
        v.set(0, Integer.MIN_VALUE);
        v.set(1, Integer.MAX_VALUE);
        fx.amp.parallelForEachAndWait(new Extent(100), idx -> {
            v.atomicFetchMax(0, -1000 + idx.get(0));
            v.atomicFetchMin(1, -1000 + idx.get(0));
        });
        assertEquals(-901, v.get(0));
        assertEquals(-1000, v.get(1));
    }

    @Test
    void shouldKeepAllSixtyFourBitsOfLongAtomics() {
        LongArrayView v = fx.accelerator.newLongs(1);
        v.atomicStore(0, 0x1_0000_0000L);
        assertEquals(0x1_0000_0000L, v.atomicFetchAdd(0, 0xFFFF_FFFFL));
        assertEquals(0x1_FFFF_FFFFL, v.atomicExchange(0, -1L));
        assertEquals(-1L, v.atomicCompareExchange(0, -1L, Long.MIN_VALUE));
        assertEquals(Long.MIN_VALUE, v.atomicFetchXor(0, 1L));
        assertEquals(Long.MIN_VALUE | 1L, v.atomicLoad(0));
    }

    @Test
    void shouldTruncateIntAtomicsToThirtyTwoBits() {
        IntArrayView v = fx.accelerator.newInts(2);
        v.atomicStore(0, Integer.MAX_VALUE);
        assertEquals(Integer.MAX_VALUE, v.atomicFetchAdd(0, 1));
        assertEquals(Integer.MIN_VALUE, v.get(0));
        assertEquals(0, v.get(1), "the neighbour is untouched");
    }
}
