package org.hsa4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@link GroupMemory} view's accessors and its refusals, in normal and fidelity mode alike. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GroupMemoryViewTest {

    @ParameterizedTest(name = "fidelity {0}")
    @ValueSource(booleans = {false, true})
    void shouldReadBackEveryTypedWriteAndAtomic(boolean fidelity) {
        try (KernelFixture f = new KernelFixture(1, fidelity)) {
            AtomicLongArray seen = new AtomicLongArray(8);
            long k = f.kernel("typed", KernelDescriptor.EMPTY, wi -> {
                GroupMemory g = wi.groupMemory();
                g.setInt(0, 7);
                g.setLong(8, 1L << 40);
                g.setFloat(16, 1.5f);
                g.setDouble(24, 2.25);
                g.atomicStoreInt(32, 3, MemoryOrder.RELEASE);
                g.atomicStoreLong(40, 4, MemoryOrder.RELAXED);
                seen.set(0, g.getInt(0));
                seen.set(1, g.getLong(8));
                seen.set(2, (long) (g.getFloat(16) * 10));
                seen.set(3, (long) (g.getDouble(24) * 100));
                seen.set(4, g.fetchAddInt(32, 2) * 100L + g.atomicLoadInt(32, MemoryOrder.SEQ_CST));
                seen.set(5, g.compareExchangeLong(40, 4, 9) * 100 + g.atomicLoadLong(40, MemoryOrder.ACQUIRE));
                seen.set(6, g.compareExchangeInt(32, 0, 1) * 100L + g.fetchAddLong(40, 1));
                seen.set(7, g.byteSize());
            });
            f.run(f.dispatch(k).grid(1).workgroup(1).groupSegment(48));
            assertEquals(7, seen.get(0));
            assertEquals(1L << 40, seen.get(1));
            assertEquals(15, seen.get(2));
            assertEquals(225, seen.get(3));
            assertEquals(305, seen.get(4));
            assertEquals(409, seen.get(5));
            assertEquals(509, seen.get(6));
            assertEquals(48, seen.get(7));
        }
    }

    @ParameterizedTest(name = "fidelity {0}")
    @ValueSource(booleans = {false, true})
    void shouldRefuseAnAtomicLoadWithAReleaseOrder(boolean fidelity) {
        try (KernelFixture f = new KernelFixture(1, fidelity)) {
            long k = f.kernel("bad_order", KernelDescriptor.EMPTY,
                    wi -> wi.groupMemory().atomicLoadInt(0, MemoryOrder.RELEASE));
            HsaException e = assertThrows(HsaException.class,
                    () -> f.run(f.dispatch(k).grid(1).workgroup(1).groupSegment(4)));
            assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
            assertTrue(f.errors.get(0).getMessage().contains("an atomic load cannot be RELEASE"),
                    f.errors.get(0).getMessage());
        }
    }

    @ParameterizedTest(name = "fidelity {0}")
    @ValueSource(booleans = {false, true})
    void shouldFailAnAccessBeyondTheGroupSegment(boolean fidelity) {
        try (KernelFixture f = new KernelFixture(1, fidelity)) {
            long k = f.kernel("beyond", KernelDescriptor.EMPTY, wi -> wi.groupMemory().setLong(8, 1));
            HsaException e = assertThrows(HsaException.class,
                    () -> f.run(f.dispatch(k).grid(1).workgroup(1).groupSegment(12)));
            assertEquals(HsaStatus.EXCEPTION, e.status());
            assertTrue(f.errors.get(0).getMessage().contains("IndexOutOfBoundsException"),
                    f.errors.get(0).getMessage());
        }
    }
}
