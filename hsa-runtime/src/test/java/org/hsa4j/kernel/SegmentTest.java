package org.hsa4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Group, private and kernarg segments as a kernel sees them. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SegmentTest {
    private KernelFixture f;

    @BeforeEach
    void start() {
        f = new KernelFixture(2);
    }

    @AfterEach
    void stop() {
        f.close();
    }

    @Test
    void shouldSizeTheGroupSegmentFromThePacket() {
        AtomicLongArray sizes = new AtomicLongArray(4);
        long k = f.kernel("size", KernelDescriptor.EMPTY.group(256),
                wi -> sizes.set((int) wi.flatGroupId(), wi.groupSegment().byteSize()));
        f.run(f.dispatch(k).grid(4 * 16).workgroup(16).groupSegment(640));
        for (int g = 0; g < 4; g++) {
            assertEquals(640, sizes.get(g), "group " + g);
        }
    }

    @Test
    void shouldShareTheGroupSegmentWithinAWorkgroupOnly() {
        int groups = 8;
        int size = 32;
        AtomicLongArray seen = new AtomicLongArray(groups * size);
        long k = f.kernel("share", KernelDescriptor.EMPTY.group(8).withBarriers(), wi -> {
            if (wi.flatLocalId() == 0) {
                wi.groupSegment().set(ValueLayout.JAVA_LONG, 0, 1000 + wi.flatGroupId());
            }
            wi.barrier().await();
            seen.set((int) wi.flatGlobalId(), wi.groupSegment().get(ValueLayout.JAVA_LONG, 0));
        });
        f.run(f.dispatch(k).grid(groups * size).workgroup(size).groupSegment(8));
        for (int i = 0; i < groups * size; i++) {
            assertEquals(1000 + i / size, seen.get(i), "work-item " + i);
        }
    }

    @Test
    void shouldSizeThePrivateSegmentFromThePacket() {
        AtomicLongArray sizes = new AtomicLongArray(64);
        long k = f.kernel("size", KernelDescriptor.EMPTY.privateSegment(16),
                wi -> sizes.set((int) wi.flatGlobalId(), wi.privateSegment().byteSize()));
        f.run(f.dispatch(k).grid(64).workgroup(16).privateSegment(48));
        for (int i = 0; i < 64; i++) {
            assertEquals(48, sizes.get(i), "work-item " + i);
        }
    }

    @Test
    void shouldGiveEveryWorkItemItsOwnPrivateSegment() {
        int n = 128;
        AtomicLongArray seen = new AtomicLongArray(n);
        long k = f.kernel("own", KernelDescriptor.EMPTY.privateSegment(16).withBarriers(), wi -> {
            wi.privateSegment().set(ValueLayout.JAVA_LONG, 8, 7_000 + wi.flatGlobalId());
            wi.barrier().await();
            seen.set((int) wi.flatGlobalId(), wi.privateSegment().get(ValueLayout.JAVA_LONG, 8));
        });
        f.run(f.dispatch(k).grid(n).workgroup(64).privateSegment(16));
        for (int i = 0; i < n; i++) {
            assertEquals(7_000 + i, seen.get(i), "work-item " + i);
        }
    }

    @Test
    void shouldReadThePacketsKernarg() {
        long out = f.rt.hostMalloc(8 * 4);
        long kernarg = f.rt.kernargPool().allocate(24);
        f.rt.svm().setLong(kernarg, out);
        f.rt.svm().setLong(kernarg + 8, 11);
        f.rt.svm().setInt(kernarg + 16, 31);
        f.rt.svm().setInt(kernarg + 20, -5);
        AtomicLongArray address = new AtomicLongArray(1);
        long k = f.kernel("args", KernelDescriptor.withKernarg(24), wi -> {
            long base = wi.kernarg().get(ValueLayout.JAVA_LONG, 0);
            long value = wi.kernarg().get(ValueLayout.JAVA_LONG, 8) * wi.kernarg().get(ValueLayout.JAVA_INT, 16)
                    + wi.kernarg().get(ValueLayout.JAVA_INT, 20);
            wi.svm().setLong(base + 8 * wi.flatGlobalId(), value + wi.flatGlobalId());
            address.set(0, wi.kernargAddress());
        });
        f.run(f.dispatch(k).grid(4).workgroup(4).kernarg(kernarg));
        for (int i = 0; i < 4; i++) {
            assertEquals(11 * 31 - 5 + i, f.rt.svm().getLong(out + 8L * i));
        }
        assertEquals(kernarg, address.get(0));
    }

    @Test
    void shouldSizeTheKernargSegmentFromTheKernelDescriptor() {
        AtomicLongArray size = new AtomicLongArray(1);
        long kernarg = f.rt.kernargPool().allocate(64);
        long k = f.kernel("args", KernelDescriptor.withKernarg(40), wi -> size.set(0, wi.kernarg().byteSize()));
        f.run(f.dispatch(k).kernarg(kernarg));
        assertEquals(40, size.get(0));
    }

    @Test
    void shouldLetAKernelWithoutDeclaredKernargsReadThePacketsKernarg() {
        long kernarg = f.rt.kernargPool().allocate(16);
        f.rt.svm().setLong(kernarg + 8, 0x5EED);
        AtomicLongArray seen = new AtomicLongArray(1);
        long k = f.kernel("undeclared", KernelDescriptor.EMPTY, wi -> seen.set(0, wi.kernarg().get(ValueLayout.JAVA_LONG, 8)));
        f.run(f.dispatch(k).kernarg(kernarg));
        assertEquals(0x5EED, seen.get(0));
    }
}
