package org.hsa4j.services.amp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.hsa4j.amp.Amp;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.LongArrayView;
import org.hsa4j.memory.Svm;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.memory.DeviceHeap;
import org.hsa4j.services.memory.HostMemory;
import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.RpcStatus;
import org.hsa4j.services.syscall.Clocks;
import org.hsa4j.services.syscall.Syscalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** C++AMP kernels reach the host services through their KernelContext, as raw kernels do with their WorkItem. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AmpKernelServicesTest {
    private Fixture f;
    private Amp amp;
    private final List<String> printed = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        f = Fixture.start();
        f.services.setPrintfSink(printed::add);
        amp = Amp.on(f.rt);
    }

    @AfterEach
    void stop() {
        try {
            amp.close();
        } finally {
            f.close();
        }
    }

    private LongArrayView longs(int n) {
        long address = f.rt.hostMalloc(8L * n);
        f.rt.svm().fill(address, 8L * n, (byte) 0);
        return amp.defaultAccelerator().longs(address, new Extent(n));
    }

    @Test
    void shouldCallASyscallFromEveryIndexOfAnAmpKernel() {
        Syscalls sys = f.services.syscalls();
        LongArrayView pids = longs(40);
        amp.parallelForEachAndWait(new Extent(40), (idx, ctx) -> pids.set(idx, sys.getpid(ctx)));
        long pid = ProcessHandle.current().pid();
        for (int i = 0; i < 40; i++) {
            assertEquals(pid, pids.get(i), "index " + i);
        }
    }

    @Test
    void shouldNewAndDeleteOnTheDeviceHeapFromAnAmpKernel() {
        DeviceHeap heap = f.services.deviceHeap();
        LongArrayView sums = longs(64);
        amp.parallelForEachAndWait(new Extent(64), (idx, ctx) -> {
            int k = 1 + idx.get(0);
            Svm svm = ctx.svm();
            long p = heap.newArray(ctx, ValueLayout.JAVA_LONG, k);
            for (int j = 0; j < k; j++) {
                svm.setLong(p + 8L * j, j);
            }
            long s = 0;
            for (int j = 0; j < k; j++) {
                s += svm.getLong(p + 8L * j);
            }
            heap.delete(ctx, p);
            sums.set(idx, s);
        });
        for (int i = 0; i < 64; i++) {
            assertEquals((long) i * (i + 1) / 2, sums.get(i), "index " + i);
        }
    }

    @Test
    void shouldMallocAndFreeHostMemoryFromAnAmpKernel() {
        HostMemory host = f.services.hostMemory();
        LongArrayView freed = longs(8);
        amp.parallelForEachAndWait(new Extent(8), (idx, ctx) -> {
            long p = host.calloc(ctx, 256);
            ctx.svm().setLong(p + 248, idx.get(0));
            freed.set(idx, p != 0 && ctx.svm().getLong(p + 248) == idx.get(0) ? host.free(ctx, p) + 1 : -1);
        });
        for (int i = 0; i < 8; i++) {
            assertEquals(1, freed.get(i), "index " + i);
        }
    }

    @Test
    void shouldPrintfFromAnAmpKernel() {
        amp.parallelForEachAndWait(new Extent(3), (idx, ctx) -> f.services.printf().printf(ctx, "index %d\n",
                idx.get(0)));
        assertEquals(Set.of("index 0\n", "index 1\n", "index 2\n"), new HashSet<>(printed));
    }

    @Test
    void shouldGiveEachIndexOfARank2ExtentItsRowMajorFlatId() {
        LongArrayView ids = longs(5 * 7);
        amp.parallelForEachAndWait(new Extent(5, 7), (idx, ctx) ->
                ids.set(idx.get(0) * 7 + idx.get(1), ctx.flatGlobalId()));
        long[] expected = new long[35];
        for (int i = 0; i < 35; i++) {
            expected[i] = i;
        }
        long[] got = new long[35];
        for (int i = 0; i < 35; i++) {
            got[i] = ids.get(i);
        }
        assertArrayEquals(expected, got);
    }

    @Test
    void shouldNameTheAcceleratorAgentAndDispatchOfTheKernel() {
        LongArrayView seen = longs(3);
        Object[] accelerator = new Object[1];
        amp.parallelForEachAndWait(new Extent(1), (idx, ctx) -> {
            accelerator[0] = ctx.accelerator();
            seen.set(0, ctx.agent() == amp.defaultAccelerator().agent() ? 1 : 0);
            seen.set(1, ctx.kernargAddress());
            seen.set(2, ctx.svm().agentIndex() == amp.defaultAccelerator().svm().agentIndex() ? 1 : 0);
        });
        assertSame(amp.defaultAccelerator(), accelerator[0]);
        assertEquals(1, seen.get(0));
        assertNotEquals(0, seen.get(1));
        assertEquals(1, seen.get(2));
    }

    @Test
    void shouldReadTheClockFromAContextKernelQueuedAfterAnother() {
        Syscalls sys = f.services.syscalls();
        LongArrayView clocks = longs(2);
        long before = System.currentTimeMillis() * 1_000_000L;
        var first = amp.defaultView().parallelForEach(new Extent(1), (idx, ctx) ->
                clocks.set(0, sys.clockNanos(ctx, Clocks.CLOCK_REALTIME)));
        amp.defaultView().parallelForEachAfter(first, new Extent(1), (idx, ctx) ->
                clocks.set(1, sys.clockNanos(ctx, Clocks.CLOCK_REALTIME))).get();
        assertTrue(clocks.get(0) >= before, "the first kernel read the clock during the test");
        assertTrue(clocks.get(1) >= clocks.get(0), "the second kernel ran after the first");
    }

    @Test
    void shouldMakeARawRpcCallFromAnAmpKernel() {
        LongArrayView status = longs(4);
        amp.parallelForEachAndWait(new Extent(4), (idx, ctx) ->
                status.set(idx, f.services.client().invoke(ctx, Opcodes.NOP, new long[8]) == RpcStatus.OK ? 1 : 0));
        for (int i = 0; i < 4; i++) {
            assertTrue(status.get(i) == 1, "index " + i);
        }
    }
}
