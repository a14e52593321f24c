package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;

import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.HsaStatus;
import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 17: no access through a view, a stale address or a racing free ever reaches another allocation's bytes. */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SvmMemorySafetyTest {
    private HsaRuntime rt;
    private Svm svm;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        svm = rt.svm();
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    private static void assertStatus(HsaStatus status, Runnable action) {
        HsaException e = assertThrows(HsaException.class, action::run);
        assertEquals(status, e.status(), e.getMessage());
    }

    // ---- item 4: element counts that overflow a byte count ----------------------------------------

    @Test
    void shouldRefuseAnIntCountWhoseByteCountOverflows() {
        long a = rt.hostMalloc(64);
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.ints(a, 1L << 62));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.floats(a, 1L << 62));
    }

    @Test
    void shouldRefuseALongCountWhoseByteCountOverflows() {
        long a = rt.hostMalloc(64);
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.longs(a, (1L << 61) + 1));
        assertStatus(HsaStatus.INVALID_ARGUMENT, () -> svm.doubles(a, (1L << 61) + 1));
    }
}
