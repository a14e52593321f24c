package org.hsa4j.memory;

import static org.hsa4j.memory.KernelLauncher.arg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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

/** Shared virtual memory: one address, valid on the host and in kernels, with typed and bulk access. */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SvmAccessTest {
    private HsaRuntime rt;
    private Svm svm;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build());
        svm = rt.svm();
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    @Test
    void shouldLetAKernelReadAndWriteTheSameAddressesTheHostUses() {
        int n = 1000;
        long in = rt.hostMalloc(4L * n);
        long out = rt.hostMalloc(4L * n);
        for (int i = 0; i < n; i++) {
            svm.setInt(in + 4L * i, i * 7);
        }
        Queue q = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        KernelLauncher.await(KernelLauncher.launch(rt, q, wi -> {
            long i = wi.flatGlobalId();
            wi.svm().setInt(arg(wi, 1) + 4 * i, wi.svm().getInt(arg(wi, 0) + 4 * i) + 1);
        }, n, 64, in, out));
        for (int i = 0; i < n; i++) {
            assertEquals(i * 7 + 1, svm.getInt(out + 4L * i), "element " + i);
        }
    }

    @Test
    void shouldFollowAPointerStoredInSvmInsideAKernel() {
        long cell = rt.hostMalloc(8);
        long target = rt.managedMalloc(64);
        svm.setAddress(cell, target + 16);
        Queue q = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        KernelLauncher.await(KernelLauncher.launch(rt, q, wi -> {
            long p = wi.svm().getAddress(arg(wi, 0));
            wi.svm().setLong(p, 0x1122_3344_5566_7788L);
        }, 1, 1, cell));
        assertEquals(0x1122_3344_5566_7788L, svm.getLong(target + 16));
    }

    @Test
    void shouldRoundTripBytes() {
        long a = rt.hostMalloc(4);
        svm.setByte(a, Byte.MIN_VALUE);
        svm.setByte(a + 3, Byte.MAX_VALUE);
        assertEquals(Byte.MIN_VALUE, svm.getByte(a));
        assertEquals(Byte.MAX_VALUE, svm.getByte(a + 3));
    }

    @Test
    void shouldRoundTripShorts() {
        long a = rt.hostMalloc(4);
        svm.setShort(a, Short.MIN_VALUE);
        svm.setShort(a + 2, (short) -2);
        assertEquals(Short.MIN_VALUE, svm.getShort(a));
        assertEquals((short) -2, svm.getShort(a + 2));
    }

    @Test
    void shouldRoundTripInts() {
        long a = rt.hostMalloc(8);
        svm.setInt(a, Integer.MIN_VALUE);
        svm.setInt(a + 4, 0xCAFE_BABE);
        assertEquals(Integer.MIN_VALUE, svm.getInt(a));
        assertEquals(0xCAFE_BABE, svm.getInt(a + 4));
    }

    @Test
    void shouldRoundTripLongs() {
        long a = rt.hostMalloc(16);
        svm.setLong(a, Long.MIN_VALUE);
        svm.setLong(a + 8, 0xDEAD_BEEF_0BAD_F00DL);
        assertEquals(Long.MIN_VALUE, svm.getLong(a));
        assertEquals(0xDEAD_BEEF_0BAD_F00DL, svm.getLong(a + 8));
    }

    @Test
    void shouldRoundTripFloatsBitForBit() {
        long a = rt.hostMalloc(12);
        float nan = Float.intBitsToFloat(0x7FC0_1234);
        svm.setFloat(a, -0.0f);
        svm.setFloat(a + 4, nan);
        svm.setFloat(a + 8, Float.MIN_VALUE);
        assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(svm.getFloat(a)));
        assertEquals(0x7FC0_1234, Float.floatToRawIntBits(svm.getFloat(a + 4)));
        assertEquals(Float.MIN_VALUE, svm.getFloat(a + 8));
    }

    @Test
    void shouldRoundTripDoublesBitForBit() {
        long a = rt.hostMalloc(24);
        double nan = Double.longBitsToDouble(0x7FF8_0000_0000_4321L);
        svm.setDouble(a, -0.0);
        svm.setDouble(a + 8, nan);
        svm.setDouble(a + 16, Double.MAX_VALUE);
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(svm.getDouble(a)));
        assertEquals(0x7FF8_0000_0000_4321L, Double.doubleToRawLongBits(svm.getDouble(a + 8)));
        assertEquals(Double.MAX_VALUE, svm.getDouble(a + 16));
    }

    @Test
    void shouldRoundTripPointersIncludingNull() {
        long a = rt.hostMalloc(16);
        long other = rt.hostMalloc(64);
        svm.setAddress(a, other + 40);
        svm.setAddress(a + 8, 0);
        assertEquals(other + 40, svm.getAddress(a));
        assertEquals(0, svm.getAddress(a + 8));
        assertEquals(other, rt.pointerInfo(svm.getAddress(a)).base());
    }

    @Test
    void shouldStoreMultiByteValuesLittleEndianAtAnyAlignment() {
        long a = rt.hostMalloc(64);
        svm.fill(a, 64, (byte) 0);
        svm.setInt(a + 1, 0x0403_0201);
        svm.setLong(a + 9, 0x0807_0605_0403_0201L);
        svm.setShort(a + 19, (short) 0x0201);
        for (int i = 0; i < 4; i++) {
            assertEquals(i + 1, svm.getByte(a + 1 + i), "int byte " + i);
        }
        for (int i = 0; i < 8; i++) {
            assertEquals(i + 1, svm.getByte(a + 9 + i), "long byte " + i);
        }
        assertEquals(1, svm.getByte(a + 19));
        assertEquals(2, svm.getByte(a + 20));
    }

    @Test
    void shouldReadBackUnalignedValuesOfEveryWidth() {
        long a = rt.hostMalloc(64);
        svm.setShort(a + 1, (short) 0x7ABC);
        svm.setInt(a + 3, 0x1234_5678);
        svm.setLong(a + 7, 0x0102_0304_0506_0708L);
        svm.setFloat(a + 17, 1.5f);
        svm.setDouble(a + 21, -2.25);
        assertEquals((short) 0x7ABC, svm.getShort(a + 1));
        assertEquals(0x1234_5678, svm.getInt(a + 3));
        assertEquals(0x0102_0304_0506_0708L, svm.getLong(a + 7));
        assertEquals(1.5f, svm.getFloat(a + 17));
        assertEquals(-2.25, svm.getDouble(a + 21));
    }

    @Test
    void shouldLetAKernelAccessUnalignedAddresses() {
        long a = rt.hostMalloc(32);
        svm.setLong(a + 3, 41);
        Queue q = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        KernelLauncher.await(KernelLauncher.launch(rt, q, wi -> {
            Svm s = wi.svm();
            s.setLong(arg(wi, 0) + 13, s.getLong(arg(wi, 0) + 3) + 1);
        }, 1, 1, a));
        assertEquals(42, svm.getLong(a + 13));
    }

    @Test
    void shouldCopyBytesBetweenAllocations() {
        long src = rt.hostMalloc(100);
        long dst = rt.managedMalloc(100);
        for (int i = 0; i < 100; i++) {
            svm.setByte(src + i, (byte) i);
        }
        svm.fill(dst, 100, (byte) -1);
        svm.copy(dst + 10, src + 5, 50);
        assertEquals(-1, svm.getByte(dst + 9));
        for (int i = 0; i < 50; i++) {
            assertEquals((byte) (i + 5), svm.getByte(dst + 10 + i), "byte " + i);
        }
        assertEquals(-1, svm.getByte(dst + 60));
    }

    @Test
    void shouldCopyOverlappingRangesAsIfThroughATemporary() {
        long a = rt.hostMalloc(16);
        for (int i = 0; i < 16; i++) {
            svm.setByte(a + i, (byte) i);
        }
        svm.copy(a + 2, a, 10);
        for (int i = 0; i < 10; i++) {
            assertEquals((byte) i, svm.getByte(a + 2 + i), "byte " + i);
        }
    }

    @Test
    void shouldFillExactlyTheGivenRange() {
        long a = rt.hostMalloc(32);
        svm.fill(a, 32, (byte) 0);
        svm.fill(a + 4, 20, (byte) 0x5A);
        assertEquals(0, svm.getByte(a + 3));
        assertEquals(0x5A5A_5A5A, svm.getInt(a + 4));
        assertEquals(0x5A, svm.getByte(a + 23));
        assertEquals(0, svm.getByte(a + 24));
    }

    @Test
    void shouldRefuseACopyThatRunsPastTheEndOfItsSource() {
        long src = rt.hostMalloc(16);
        long dst = rt.hostMalloc(64);
        MemoryFaultException e = assertThrows(MemoryFaultException.class, () -> svm.copy(dst, src + 8, 16));
        assertEquals(HsaStatus.MEMORY_FAULT, e.status());
        assertEquals(src + 8, e.address());
    }

    @Test
    void shouldRefuseANegativeByteCountForCopyAndFill() {
        long a = rt.hostMalloc(16);
        svm.setLong(a, 9);
        HsaException copy = assertThrows(HsaException.class, () -> svm.copy(a + 8, a, -8));
        HsaException fill = assertThrows(HsaException.class, () -> svm.fill(a, -1, (byte) 0));
        assertEquals(HsaStatus.INVALID_ARGUMENT, copy.status());
        assertEquals(HsaStatus.INVALID_ARGUMENT, fill.status());
        assertEquals(9, svm.getLong(a));
    }

    @Test
    void shouldShareBytesBetweenIntViewAndAddressAccess() {
        long a = rt.hostMalloc(40);
        IntView v = svm.ints(a, 10);
        assertEquals(10, v.length());
        v.set(3, 333);
        svm.setInt(a + 4 * 7, 777);
        assertEquals(333, svm.getInt(a + 12));
        assertEquals(777, v.get(7));
        assertEquals(a + 28, v.address(7));
    }

    @Test
    void shouldShareBytesBetweenLongViewAndAddressAccess() {
        long a = rt.hostMalloc(80);
        LongView v = svm.longs(a, 10);
        v.set(2, -5L);
        svm.setLong(a + 8 * 9, Long.MAX_VALUE);
        assertEquals(-5L, svm.getLong(a + 16));
        assertEquals(Long.MAX_VALUE, v.get(9));
        assertEquals(a + 72, v.address(9));
    }

    @Test
    void shouldShareBytesBetweenFloatViewAndAddressAccess() {
        long a = rt.hostMalloc(40);
        FloatView v = svm.floats(a, 10);
        v.set(1, 2.5f);
        svm.setFloat(a + 4 * 8, -8.75f);
        assertEquals(2.5f, svm.getFloat(a + 4));
        assertEquals(-8.75f, v.get(8));
        assertEquals(10, v.length());
    }

    @Test
    void shouldShareBytesBetweenDoubleViewAndAddressAccess() {
        long a = rt.hostMalloc(80);
        DoubleView v = svm.doubles(a, 10);
        v.set(4, Math.PI);
        svm.setDouble(a + 8 * 6, Math.E);
        assertEquals(Math.PI, svm.getDouble(a + 32));
        assertEquals(Math.E, v.get(6));
        assertEquals(a + 48, v.address(6));
    }

    @Test
    void shouldRunIntViewElementAtomics() {
        long a = rt.hostMalloc(16);
        IntView v = svm.ints(a, 4);
        v.storeRelease(1, 10);
        assertEquals(10, v.fetchAdd(1, 5));
        assertEquals(15, v.loadAcquire(1));
        assertEquals(15, v.compareExchange(1, 15, 20));
        assertEquals(20, v.compareExchange(1, 15, 99));
        assertEquals(20, v.exchange(1, 30));
        v.storeRelaxed(1, 31);
        assertEquals(31, v.loadRelaxed(1));
        assertEquals(31, svm.atomicLoadInt(a + 4, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM));
    }

    @Test
    void shouldRunLongViewElementAtomics() {
        long a = rt.hostMalloc(32);
        LongView v = svm.longs(a, 4);
        v.storeRelease(3, 1L << 40);
        assertEquals(1L << 40, v.fetchAdd(3, 1));
        assertEquals((1L << 40) + 1, v.loadAcquire(3));
        assertEquals((1L << 40) + 1, v.compareExchange(3, (1L << 40) + 1, -1L));
        assertEquals(-1L, v.compareExchange(3, 0, 5));
        assertEquals(-1L, v.exchange(3, 7));
        v.storeRelaxed(3, 8);
        assertEquals(8, v.loadRelaxed(3));
        assertEquals(8, svm.atomicLoadLong(a + 24, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM));
    }

    @Test
    void shouldRunFloatAndDoubleViewElementAdds() {
        long a = rt.hostMalloc(64);
        FloatView f = svm.floats(a, 4);
        DoubleView d = svm.doubles(a + 32, 4);
        f.set(2, 1.5f);
        d.set(1, 2.5);
        assertEquals(1.5f, f.fetchAdd(2, 2f));
        assertEquals(2.5, d.fetchAdd(1, -1.0));
        assertEquals(3.5f, svm.getFloat(a + 8));
        assertEquals(1.5, svm.getDouble(a + 40));
    }

    @Test
    void shouldCountKernelIncrementsThroughAnIntView() {
        long a = rt.hostMalloc(8);
        svm.setInt(a, 0);
        Queue q = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        KernelLauncher.await(KernelLauncher.launch(rt, q, wi -> wi.svm().ints(arg(wi, 0), 1).fetchAdd(0, 1),
                4096, 64, a));
        assertEquals(4096, svm.getInt(a));
    }

    @Test
    void shouldRefuseAViewOfMisalignedElements() {
        long a = rt.hostMalloc(64);
        HsaException e = assertThrows(HsaException.class, () -> svm.longs(a + 4, 2));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRefuseAViewThatRunsPastTheEnd() {
        long a = rt.hostMalloc(40);
        MemoryFaultException e = assertThrows(MemoryFaultException.class, () -> svm.ints(a, 11));
        assertEquals(HsaStatus.MEMORY_FAULT, e.status());
        assertEquals(a, e.address());
    }

    @Test
    void shouldRefuseAViewWithANegativeCount() {
        long a = rt.hostMalloc(40);
        HsaException e = assertThrows(HsaException.class, () -> svm.doubles(a, -1));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }
}
