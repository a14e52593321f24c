package org.hsa4j.examples;

import java.io.PrintStream;
import java.util.HashSet;
import java.util.Set;

import org.hsa4j.memory.Svm;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
import org.hsa4j.services.memory.DeviceHeap;
import org.hsa4j.services.memory.HeapStatus;
import org.hsa4j.services.memory.HostMemory;

/**
 * The MilThread benchmark shape: every work-item of a dispatch allocates a 64-byte block, writes
 * its id into it and, in the "free" rows, frees it again; once with the device heap (blocks from
 * host-made chunks, the host asked only for new chunks) and once with host malloc over RPC (one
 * round trip per call). Checks that every block was distinct and kept its owner's id, and that
 * every free succeeded; prints the table.
 */
public final class MallocBench implements Example {
    private static final int BLOCK = 64;

    /** Which allocator a row measures. */
    private enum Allocator { DEVICE_HEAP, HOST_RPC }

    @Override
    public String name() {
        return "malloc_bench";
    }

    @Override
    public String description() {
        return "device heap against host malloc over RPC at 256 to 64k work-items, with and without free; prints the table";
    }

    @Override
    public void run(PrintStream out, boolean small) {
        int[] sizes = small ? new int[] {256, 1024} : new int[] {256, 1024, 4096, 16384, 65536};
        try (HsaRuntime rt = HsaRuntime.init(); Services services = Services.start(rt)) {
            Queue queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
            // a cold pass at the smallest size warms the JIT, the heap and the RPC server up; reported apart
            long warm = rt.hostMalloc(8L * sizes[0]);
            double[] cold = new double[4];
            int coldColumn = 0;
            for (Allocator allocator : Allocator.values()) {
                for (boolean free : new boolean[] {false, true}) {
                    long start = System.nanoTime();
                    allocate(rt, services, queue, allocator, free, sizes[0], warm);
                    cold[coldColumn++] = (System.nanoTime() - start) / 1e3;
                    check(rt.svm(), services.deviceHeap(), warm, sizes[0], free);
                }
            }
            rt.free(warm);
            out.printf("malloc_bench: first (cold) runs at %d items: heap %.0f us, heap+free %.0f us, host RPC %.0f us,"
                    + " host RPC+free %.0f us; the table is after that warm-up%n", sizes[0], cold[0], cold[1], cold[2],
                    cold[3]);
            out.printf("malloc_bench: %-9s %14s %14s %14s %14s   (baseline: host malloc over RPC)%n", "items", "heap",
                    "heap+free", "host RPC", "host RPC+free");
            for (int n : sizes) {
                long results = rt.hostMalloc(8L * n);
                double[] us = new double[4];
                int column = 0;
                for (Allocator allocator : Allocator.values()) {
                    for (boolean free : new boolean[] {false, true}) {
                        long start = System.nanoTime();
                        allocate(rt, services, queue, allocator, free, n, results);
                        us[column++] = (System.nanoTime() - start) / 1e3;
                        check(rt.svm(), services.deviceHeap(), results, n, free);
                    }
                }
                out.printf("malloc_bench: %-9d %11.0f us %11.0f us %11.0f us %11.0f us   (heap %.0fx faster)%n", n,
                        us[0], us[1], us[2], us[3], us[2] / us[0]);
                rt.free(results);
            }
            queue.destroy();
            out.printf("malloc_bench: every work-item got a distinct %d-byte block that kept its id, and every free "
                    + "succeeded, with both allocators at every size%n", BLOCK);
        }
    }

    /** One dispatch of {@code n} work-items; each stores its block address (or, with free, the free status). */
    private static void allocate(HsaRuntime rt, Services services, Queue queue, Allocator allocator, boolean free,
                                 int n, long results) {
        DeviceHeap heap = services.deviceHeap();
        HostMemory hostMemory = services.hostMemory();
        KernelLaunch.run(rt, queue, wi -> {
            long id = wi.flatGlobalId();
            Svm svm = wi.svm();
            long block = allocator == Allocator.DEVICE_HEAP ? heap.malloc(wi, BLOCK) : hostMemory.malloc(wi, BLOCK);
            long result = block;
            if (block != 0) {
                svm.setLong(block, id);
                if (free) {
                    boolean intact = svm.getLong(block) == id;
                    int status = allocator == Allocator.DEVICE_HEAP ? heap.free(wi, block) : hostMemory.free(wi, block);
                    result = intact && status == HeapStatus.OK ? -1 : 0;
                }
            }
            svm.setLong(KernelLaunch.arg(wi, 0) + 8 * id, result);
        }, n, 64, results);
    }

    /** The device heap's reason for a malloc that returned 0, if that is what {@code result} shows. */
    private static String why(DeviceHeap heap, long result) {
        String failure = heap.lastFailure();
        return result == 0 && failure != null ? " (device heap: " + failure + ")" : "";
    }

    private static void check(Svm host, DeviceHeap heap, long results, int n, boolean free) {
        Set<Long> blocks = new HashSet<>();
        for (int i = 0; i < n; i++) {
            long r = host.getLong(results + 8L * i);
            if (free) {
                if (r != -1) {
                    throw new AssertionError("work-item " + i + ": malloc, write or free failed" + why(heap, r));
                }
            } else if (r == 0 || !blocks.add(r) || host.getLong(r) != i) {
                throw new AssertionError("work-item " + i + ": block 0x" + Long.toHexString(r)
                        + " missing, shared or overwritten" + why(heap, r));
            }
        }
    }
}
