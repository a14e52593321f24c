package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Pools whose memory another agent provides (PoolMemory): native addresses, checked like the rest. */
class ExternalPoolTest {
    private HsaRuntime rt;
    private final Arena backing = Arena.ofShared();

    /** Memory from an arena of the test, recording frees, prefetches and advice. */
    final class FakeMemory implements PoolMemory {
        final boolean host;
        final List<Long> freed = new ArrayList<>();
        final List<String> calls = new ArrayList<>();

        FakeMemory(boolean host) {
            this.host = host;
        }

        @Override
        public long allocate(long bytes) {
            return backing.allocate(bytes, 256).address();
        }

        @Override
        public void free(long address) {
            freed.add(address);
        }

        @Override
        public boolean hostAccessible() {
            return host;
        }

        @Override
        public void prefetch(long address, long bytes, int agent) {
            calls.add("prefetch " + bytes + " to " + agent);
        }

        @Override
        public void advise(long address, long bytes, MemAdvice advice, int agent) {
            calls.add(advice + " " + agent);
        }
    }

    @BeforeEach
    void open() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterEach
    void close() {
        rt.close();
        backing.close();
    }

    private MemoryPool pool(FakeMemory m, int owner) {
        return rt.memory().createExternalPool("test external", EnumSet.of(GlobalFlag.FINE_GRAINED), owner, 1 << 20,
                1 << 20, true, m);
    }

    @Test
    void hostAccessibleMemoryIsReadAndWrittenThroughSvmAtItsNativeAddress() {
        MemoryPool p = pool(new FakeMemory(true), 0);
        long a = p.allocate(64);
        rt.svm().setLong(a + 8, 77);
        assertEquals(77, rt.svm().getLong(a + 8));
        assertEquals(a, rt.svm().segment(a, 64).address());
        assertTrue(p.realAddresses());
    }

    @Test
    void aFreeGivesTheMemoryBackOnceAndTheAddressFaultsAfter() {
        FakeMemory m = new FakeMemory(true);
        MemoryPool p = pool(m, 0);
        long a = p.allocate(64);
        rt.svm().setLong(a, 1);
        p.free(a);
        assertEquals(List.of(a), m.freed);
        assertEquals(HsaStatus.MEMORY_FAULT, assertThrows(MemoryFaultException.class, () -> rt.svm().getLong(a)).status());
        assertEquals(HsaStatus.INVALID_ALLOCATION, assertThrows(HsaException.class, () -> p.free(a)).status());
    }

    @Test
    void anAccessPastTheEndFaults() {
        MemoryPool p = pool(new FakeMemory(true), 0);
        long a = p.allocate(100);
        assertThrows(MemoryFaultException.class, () -> rt.svm().getLong(a + 96));
        assertThrows(MemoryFaultException.class, () -> rt.svm().getByte(a + 100));
    }

    @Test
    void hostInaccessibleMemoryIsAnApertureViolationForTheHostAndCannotBeGranted() {
        MemoryPool p = pool(new FakeMemory(false), 1);
        long a = p.allocate(64);
        MemoryFaultException e = assertThrows(MemoryFaultException.class, () -> rt.svm().getLong(a));
        assertEquals(HsaStatus.MEMORY_APERTURE_VIOLATION, e.status());
        HsaException g = assertThrows(HsaException.class, () -> rt.memory().grantAccess(rt.memory().find(a), 1L));
        assertEquals(HsaStatus.INVALID_ARGUMENT, g.status());
        assertFalse(p.accessibleByAll());
    }

    @Test
    void revokedAllocationsFaultAndAreNeverFreed() {
        FakeMemory m = new FakeMemory(true);
        MemoryPool p = pool(m, 0);
        long a = p.allocate(64);
        var kept = rt.svm().segment(a, 64);
        rt.memory().revoke(p);
        assertThrows(MemoryFaultException.class, () -> rt.svm().getLong(a));
        assertThrows(IllegalStateException.class, () -> kept.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0));
        assertEquals(HsaStatus.INVALID_ALLOCATION, assertThrows(HsaException.class, () -> p.free(a)).status());
        assertTrue(m.freed.isEmpty());
        assertEquals(0, p.used());
    }

    @Test
    void prefetchAndAdviceGoToTheProvider() {
        FakeMemory m = new FakeMemory(true);
        MemoryPool p = pool(m, 0);
        long a = p.allocate(4096);
        rt.memory().prefetch(a, 4096, 1);
        rt.memory().advise(a, 4096, MemAdvice.SET_READ_MOSTLY, 0);
        assertEquals(List.of("prefetch 4096 to 1", "SET_READ_MOSTLY 0"), m.calls);
    }
}
