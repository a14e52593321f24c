package org.hsa4j.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 22: one memory-order vocabulary, MemoryOrder, named after HSA and accepted by signals as by Svm. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MemoryOrderVocabularyTest {
    private static HsaRuntime rt;

    @BeforeAll
    static void start() {
        rt = HsaRuntime.init();
    }

    @AfterAll
    static void stop() {
        rt.close();
    }

    @Test
    void shouldNameEveryOrderAsHsaDoes() {
        assertEquals("relaxed", MemoryOrder.RELAXED.hsaName());
        assertEquals("scacquire", MemoryOrder.ACQUIRE.hsaName());
        assertEquals("screlease", MemoryOrder.RELEASE.hsaName());
        assertEquals("scacq_screl", MemoryOrder.ACQ_REL.hsaName());
        assertEquals("scacq_screl", MemoryOrder.SEQ_CST.hsaName());
    }

    @Test
    void shouldLoadASignalWithAnExplicitOrderAsTheNamedLoadDoes() {
        Signal s = rt.createSignal(41);
        assertEquals(s.loadScacquire(), s.load(MemoryOrder.ACQUIRE));
        assertEquals(s.loadRelaxed(), s.load(MemoryOrder.RELAXED));
        assertEquals(41, s.load(MemoryOrder.SEQ_CST));
        s.destroy();
    }

    @Test
    void shouldStoreASignalWithAnExplicitOrder() {
        Signal s = rt.createSignal(0);
        s.store(7, MemoryOrder.RELEASE);
        assertEquals(7, s.loadScacquire());
        s.store(8, MemoryOrder.RELAXED);
        assertEquals(8, s.loadScacquire());
        s.destroy();
    }

    @Test
    void shouldRefuseOrdersALoadOrStoreCannotHave() {
        Signal s = rt.createSignal(0);
        assertEquals(HsaStatus.INVALID_ARGUMENT,
                assertThrows(HsaException.class, () -> s.load(MemoryOrder.RELEASE)).status());
        assertEquals(HsaStatus.INVALID_ARGUMENT,
                assertThrows(HsaException.class, () -> s.store(1, MemoryOrder.ACQUIRE)).status());
        assertEquals(0, s.loadScacquire());
        s.destroy();
    }
}
