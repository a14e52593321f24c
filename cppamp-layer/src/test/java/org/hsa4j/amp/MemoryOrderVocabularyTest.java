package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.MemoryOrder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 22: every view atomic has a seq_cst short form, and C++ orders map to the runtime's HSA ones. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MemoryOrderVocabularyTest {
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
    void shouldMapEveryCppOrderToTheHsaOrderWithTheSameHalves() {
        assertEquals(MemoryOrder.RELAXED, CppMemoryOrder.RELAXED.hsaOrder());
        assertEquals(MemoryOrder.ACQUIRE, CppMemoryOrder.CONSUME.hsaOrder());
        assertEquals(MemoryOrder.ACQUIRE, CppMemoryOrder.ACQUIRE.hsaOrder());
        assertEquals(MemoryOrder.RELEASE, CppMemoryOrder.RELEASE.hsaOrder());
        assertEquals(MemoryOrder.ACQ_REL, CppMemoryOrder.ACQ_REL.hsaOrder());
        assertEquals(MemoryOrder.SEQ_CST, CppMemoryOrder.SEQ_CST.hsaOrder());
    }

    @Test
    void shouldLoadAndStoreIntsAtomicallyWithoutAnOrderAsSeqCst() {
        IntArrayView v = fx.accelerator.newInts(64);
        fx.amp.parallelForEachAndWait(new Extent(64), idx -> v.atomicStore(idx.get(0), idx.get(0) * 3));
        IntArrayView seen = fx.accelerator.newInts(64);
        fx.amp.parallelForEachAndWait(new Extent(64), idx -> seen.set(idx, v.atomicLoad(idx.get(0))));
        for (int i = 0; i < 64; i++) {
            assertEquals(3 * i, seen.get(i));
        }
    }

    @Test
    void shouldLoadAndStoreLongsAtomicallyWithoutAnOrderAsSeqCst() {
        LongArrayView v = fx.accelerator.newLongs(8);
        v.atomicStore(5, 1L << 40);
        assertEquals(1L << 40, v.atomicLoad(5));
        assertEquals(1L << 40, v.atomicLoad(5, CppMemoryOrder.ACQUIRE));
    }
}
