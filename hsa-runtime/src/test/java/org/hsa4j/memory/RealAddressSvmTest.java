package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The real-address SVM kind: addresses are native ones, resolved and checked by the same Svm API. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RealAddressSvmTest {
    private HsaRuntime rt;
    private MemoryPool real;
    private Svm svm;

    @BeforeEach
    void open() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        real = rt.realSystemPool();
        svm = rt.svm();
    }

    @AfterEach
    void close() {
        rt.close();
    }

    /** A recording registrar. */
    static final class Recorder implements SvmRegistrar {
        final List<long[]> mapped = new ArrayList<>();
        final List<long[]> unmapped = new ArrayList<>();

        @Override
        public synchronized void mapped(long address, long bytes) {
            mapped.add(new long[] {address, bytes});
        }

        @Override
        public synchronized void unmapping(long address, long bytes) {
            unmapped.add(new long[] {address, bytes});
        }

        synchronized boolean covers(List<long[]> ranges, long address) {
            return ranges.stream().anyMatch(r -> address >= r[0] && address < r[0] + r[1]);
        }
    }

    private MemoryFaultException fault(Runnable access) {
        MemoryFaultException e = assertThrows(MemoryFaultException.class, access::run);
        assertEquals(HsaStatus.MEMORY_FAULT, e.status());
        return e;
    }

    @Test
    void anAllocationsAddressIsItsNativeAddressWithBit62Clear() {
        long a = real.allocate(256);
        assertFalse(SvmAddress.tagged(a));
        assertEquals(a, svm.segment(a, 256).address());
        assertEquals(a, rt.memory().find(a).segment().address());
        assertTrue(rt.memory().find(a).pool().realAddresses());
    }

    @Test
    void theDefaultSystemPoolKeepsTaggedAddresses() {
        assertFalse(rt.systemPool().realAddresses());
        assertTrue(SvmAddress.tagged(rt.systemPool().allocate(64)));
    }

    @Test
    void svmReadsWhatItWroteAndTheNativeBytesAgree() {
        long a = real.allocate(64);
        svm.setLong(a + 8, 0x1234_5678_9ABC_DEF0L);
        svm.setInt(a + 16, 42);
        MemorySegment nativeView = MemorySegment.ofAddress(a).reinterpret(64);
        assertEquals(0x1234_5678_9ABC_DEF0L, nativeView.get(ValueLayout.JAVA_LONG, 8));
        nativeView.set(ValueLayout.JAVA_INT, 20, 7);
        assertEquals(42, svm.getInt(a + 16));
        assertEquals(7, svm.getInt(a + 20));
        assertEquals(43, svm.atomicAddInt(a + 16, 1, MemoryOrder.SEQ_CST, MemoryScope.SYSTEM) + 1);
    }

    @Test
    void aPointerStoredInOneAllocationIsFollowedToAnother() {
        long node = real.allocate(24);
        long child = real.allocate(24);
        svm.setLong(child, 99);
        svm.setAddress(node + 8, child);
        assertEquals(99, svm.getLong(svm.getAddress(node + 8)));
        assertEquals(child, MemorySegment.ofAddress(node).reinterpret(24).get(ValueLayout.JAVA_LONG, 8));
    }

    @Test
    void aLargeAllocationIsASpanOfItsOwnAndWorks() {
        long bytes = 9L << 20;
        long a = real.allocate(bytes);
        assertEquals(0, a & (RealArena.CHUNK_SIZE - 1));
        svm.setLong(a + bytes - 8, 5);
        assertEquals(5, svm.getLong(a + bytes - 8));
        fault(() -> svm.getLong(a + bytes));
    }

    @Test
    void anAccessPastTheEndFaultsThoughTheBlockIsLarger() {
        long a = real.allocate(100);
        svm.setByte(a + 99, (byte) 1);
        fault(() -> svm.getByte(a + 100));
        fault(() -> svm.getLong(a + 96));
    }

    @Test
    void aFreedAddressFaults() {
        long a = real.allocate(64);
        svm.setLong(a, 1);
        real.free(a);
        fault(() -> svm.getLong(a));
        HsaException e = assertThrows(HsaException.class, () -> real.free(a));
        assertEquals(HsaStatus.INVALID_ALLOCATION, e.status());
    }

    @Test
    void aFreedSpanFaultsAndIsUnregistered() {
        Recorder r = new Recorder();
        rt.memory().addRegistrar(r);
        long a = real.allocate(5L << 20);
        assertTrue(r.covers(r.mapped, a));
        real.free(a);
        assertTrue(r.covers(r.unmapped, a));
        fault(() -> svm.getLong(a));
    }

    @Test
    void fabricatedAddressesFault() {
        long a = real.allocate(64);
        fault(() -> svm.getLong(a + 64 * 8));          // a block of the same chunk never handed out
        fault(() -> svm.getLong(a + (3L << 30)));       // an uncommitted chunk of the reservation
        fault(() -> svm.getLong(0x1000));               // below the reservation
        fault(() -> svm.getLong(-8));                   // bit 63 set
    }

    @Test
    void aFreedBlockIsNotReusedWhileItsClassQuarantineIsShort() {
        long first = real.allocate(1 << 20);
        real.free(first);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < RealArena.MIN_QUARANTINE; i++) {
            long b = real.allocate(1 << 20);
            seen.add(b);
            real.free(b);
        }
        assertFalse(seen.contains(first));
        fault(() -> svm.getLong(first));
        long reused = real.allocate(1 << 20);   // the quarantine now holds more than the distance
        assertEquals(first, reused);
    }

    @Test
    void aRegistrarHearsOfEveryChunkBeforeItsMemoryIsHandedOut() {
        long before = real.allocate(64);
        Recorder late = new Recorder();
        rt.memory().addRegistrar(late);
        assertTrue(late.covers(late.mapped, before));
        long[] seenAt = new long[1];
        boolean[] armed = new boolean[1];
        SvmRegistrar checker = new SvmRegistrar() {
            @Override
            public void mapped(long address, long bytes) {
                if (!armed[0]) {
                    return;   // the chunks mapped before it was added
                }
                seenAt[0] = address;
                assertNull(rt.memory().addressSpace().lookup(address));
            }

            @Override
            public void unmapping(long address, long bytes) {
            }
        };
        rt.memory().addRegistrar(checker);
        armed[0] = true;
        long other = real.allocate(4096);   // a fresh size class: a fresh chunk
        assertEquals(other & -RealArena.CHUNK_SIZE, seenAt[0]);
        rt.memory().removeRegistrar(late);
        assertTrue(late.covers(late.unmapped, before));
    }

    @Test
    void aRegistrarThatRefusesAChunkFailsTheAllocationWithItsStatus() {
        rt.memory().addRegistrar(new SvmRegistrar() {
            @Override
            public void mapped(long address, long bytes) {
                throw new HsaException(HsaStatus.OUT_OF_RESOURCES, "refused");
            }

            @Override
            public void unmapping(long address, long bytes) {
            }
        });
        long used = real.used();
        HsaException e = assertThrows(HsaException.class, () -> real.allocate(64));
        assertEquals(HsaStatus.OUT_OF_RESOURCES, e.status());
        assertEquals(used, real.used());
    }

    @Test
    void aSegmentKeptPastFreeCannotReachTheBlock() {
        long a = real.allocate(64);
        MemorySegment kept = svm.segment(a, 64);
        real.free(a);
        assertThrows(IllegalStateException.class, () -> kept.get(ValueLayout.JAVA_LONG, 0));
    }

    @Test
    void closingTheRuntimeUnregistersEveryChunk() {
        Recorder r = new Recorder();
        rt.memory().addRegistrar(r);
        long a = real.allocate(64);
        rt.close();
        assertTrue(r.covers(r.unmapped, a));
    }

    @Test
    void aCpuAgentKernelReadsAndWritesARealAddressBufferThroughAStoredPointer() {
        long data = real.allocate(8L * 64);
        long holder = real.allocate(16);
        for (int i = 0; i < 64; i++) {
            svm.setLong(data + 8L * i, i);
        }
        svm.setAddress(holder, data);
        Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        KernelLauncher.await(KernelLauncher.launch(rt, q, wi -> {
            Svm s = wi.svm();
            long base = s.getAddress(KernelLauncher.arg(wi, 0));
            long i = wi.globalId(0);
            s.setLong(base + 8 * i, s.getLong(base + 8 * i) * 2);
        }, 64, 16, holder));
        for (int i = 0; i < 64; i++) {
            assertEquals(2L * i, svm.getLong(data + 8L * i));
        }
        assertNotEquals(0, data);
    }
}
