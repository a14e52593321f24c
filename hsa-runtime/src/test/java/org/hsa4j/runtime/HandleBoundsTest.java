package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;

import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** Issue 17 item 5: an address one past the end of an allocation names nothing, neither a signal nor an allocation. */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class HandleBoundsTest {
    private HsaRuntime rt;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    @Test
    void shouldRefuseASignalHandleOnePastTheEndOfItsBlock() {
        Signal first = rt.createSignal(0);
        long pastTheBlock = rt.pointerInfo(first.handle()).base() + SignalManager.SIGNALS_PER_BLOCK * 64L;
        HsaException e = assertThrows(HsaException.class, () -> rt.signal(pastTheBlock));
        assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
    }

    @Test
    void shouldFindNoAllocationOnePastTheEnd() {
        long p = rt.hostMalloc(96);
        assertSame(rt.pointerInfo(p), rt.pointerInfo(p + 95));
        assertNull(rt.pointerInfo(p + 96));
    }
}
