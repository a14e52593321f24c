package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
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

    // ---- item 2: a stale address never reaches a later allocation ------------------------------

    @Test
    void shouldNeverHandOutTheSameBaseAddressTwiceInMillionsOfAllocations() {
        AddressSpace space = new AddressSpace();
        int cycles = 64 * (AddressSpace.REUSE_DISTANCE + 2) + 4096;
        long[] bases = new long[cycles];
        for (int i = 0; i < cycles; i++) {
            bases[i] = space.reserve();
            space.cancel(bases[i]);
        }
        Arrays.sort(bases);
        for (int i = 1; i < cycles; i++) {
            if (bases[i] == bases[i - 1]) {
                throw new AssertionError(String.format("base 0x%016x handed out twice in %d allocations", bases[i], cycles));
            }
        }
    }

    @Test
    void shouldRetireASlotAtItsLastGenerationInsteadOfWrapping() {
        AddressSpace space = new AddressSpace(0, 1, 1);
        Set<Long> bases = new HashSet<>();
        for (int i = 0; i <= SvmAddress.GENERATION_MASK; i++) {
            long base = space.reserve(false);
            assertTrue(bases.add(base), "base handed out twice");
            space.cancel(base);
        }
        assertEquals(1, space.retiredSlots());
        assertStatus(HsaStatus.OUT_OF_RESOURCES, () -> space.reserve(false));
        long large = space.reserve(true);
        assertTrue(SvmAddress.large(large));
    }

    @Test
    void shouldTagEveryAddressWithBit62AndTheSizeClassWithBit61() {
        long small = rt.hostMalloc(SvmAddress.MAX_SMALL_SIZE);
        long large = rt.hostMalloc(SvmAddress.MAX_SMALL_SIZE + 1);
        assertEquals(1, small >>> 62);
        assertEquals(1, large >>> 62);
        assertFalse(SvmAddress.large(small));
        assertTrue(SvmAddress.large(large));
        assertNull(rt.pointerInfo(small + SvmAddress.MAX_SMALL_SIZE));
        assertNull(rt.pointerInfo(large + SvmAddress.MAX_SMALL_SIZE + 1));
    }
}
