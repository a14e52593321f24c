package org.hsa4j.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A million signals at once: distinct handles, independent values, and the cost per signal
 * (printed; only the off-heap bytes are asserted, since they follow from the slot layout).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class MillionSignalsTest {
    private static final int COUNT = 1_000_000;
    /** Off-heap memory comes in 4 MiB chunks: the last one may be partly used. */
    private static final long CHUNK = 4L << 20;

    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return r.totalMemory() - r.freeMemory();
    }

    @Test
    void shouldHoldAMillionIndependentSignalsAtOnce() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build())) {
            long heapBefore = usedHeap();
            long offHeapBefore = rt.memory().reservedBytes();
            long poolBefore = rt.systemPool().used();
            int liveBefore = rt.signals().liveSignals();

            Signal[] signals = new Signal[COUNT];
            long start = System.nanoTime();
            for (int i = 0; i < COUNT; i++) {
                signals[i] = rt.createSignal(i);
            }
            long createNanos = System.nanoTime() - start;
            assertEquals(liveBefore + COUNT, rt.signals().liveSignals());

            long heapBytes = usedHeap() - heapBefore;
            long offHeapBytes = rt.memory().reservedBytes() - offHeapBefore;
            long poolBytes = rt.systemPool().used() - poolBefore;

            long[] handles = new long[COUNT];
            for (int i = 0; i < COUNT; i++) {
                handles[i] = signals[i].handle();
            }
            long[] sorted = handles.clone();
            Arrays.sort(sorted);
            for (int i = 1; i < COUNT; i++) {
                assertTrue(sorted[i] != sorted[i - 1], "duplicate handle");
            }

            for (int i = 0; i < COUNT; i += 997) {
                assertEquals(i, signals[i].loadScacquire(), "signal " + i);
                assertEquals(i, rt.svm().atomicLoadLong(handles[i] + SignalDescriptor.VALUE, MemoryOrder.ACQUIRE,
                        MemoryScope.SYSTEM));
            }
            for (int i = 1; i < COUNT - 1; i += 9973) {
                signals[i].storeScrelease(-1);
                assertEquals(i - 1, signals[i - 1].loadScacquire(), "neighbour below " + i);
                assertEquals(i + 1, signals[i + 1].loadScacquire(), "neighbour above " + i);
                assertEquals(signals[i], rt.signal(handles[i]));
            }

            start = System.nanoTime();
            for (Signal s : signals) {
                s.destroy();
            }
            long destroyNanos = System.nanoTime() - start;
            assertEquals(liveBefore, rt.signals().liveSignals());
            for (int i = 0; i < COUNT; i += 99_991) {
                long handle = handles[i];
                HsaException e = assertThrows(HsaException.class, () -> rt.signal(handle));
                assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
            }

            System.out.printf("MillionSignalsTest: %d signals: off-heap %.1f B/signal reserved (%.1f B/signal of pool),"
                            + " heap %.1f B/signal, create %.0f ns/signal, destroy %.0f ns/signal%n", COUNT,
                    (double) offHeapBytes / COUNT, (double) poolBytes / COUNT, (double) heapBytes / COUNT,
                    (double) createNanos / COUNT, (double) destroyNanos / COUNT);
            assertTrue(poolBytes <= (long) COUNT * SignalDescriptor.SIZE,
                    "pool bytes per signal: " + (double) poolBytes / COUNT);
            assertTrue(offHeapBytes <= (long) COUNT * SignalDescriptor.SIZE + CHUNK,
                    "off-heap bytes per signal: " + (double) offHeapBytes / COUNT);
        }
    }
}
