package org.hsa4j.benchmarks.services;

import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
import org.hsa4j.services.memory.DeviceHeap;
import org.hsa4j.services.memory.HeapStatus;
import org.hsa4j.services.memory.HostMemory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * FIGURE: the device-side allocator against host malloc over RPC, at 256, 1k, 4k, 16k and 64k
 * work-items, with and without free (the shape of HCC's MilThread Xmalloc/malloc table).
 *
 * <p>What it measures: each op is one dispatch of {@code workItems} work-items (workgroups of 64
 * on the default GPU agent) in which every work-item allocates a {@value #BYTES}-byte block, writes
 * it, and (with {@code free=true}) frees it; the score is the time per dispatch.
 * {@link #deviceHeap} allocates from a {@link DeviceHeap} (atomics on SVM, refills from the host
 * over RPC); {@link #hostMalloc} makes one RPC call to the host's malloc (and free) per block,
 * the baseline. Without free, the blocks of each op are released between ops, outside the timing:
 * the device heap is replaced by a fresh one, the host blocks are freed on the host, so every op
 * starts from the same state (an empty device heap refills on the way, which is part of its cost).
 * Goal (issue services): the device heap at least 10x faster at 64k work-items.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class DeviceAllocatorBenchmark {
    /** Bytes per block. */
    static final int BYTES = 64;

    @Param({"256", "1024", "4096", "16384", "65536"})
    public int workItems;

    @Param({"false", "true"})
    public boolean free;

    private HsaRuntime rt;
    private Services services;
    private Queue queue;
    private DeviceHeap[] current;
    private KernelLoop device;
    private KernelLoop host;

    @Setup(Level.Trial)
    public void start() {
        rt = HsaRuntime.init();
        services = Services.start(rt);
        queue = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        current = new DeviceHeap[] {services.createDeviceHeap(256 * 1024, 8, 16)};
        HostMemory mem = services.hostMemory();
        DeviceHeap[] heaps = current;
        device = new KernelLoop(rt, queue, KernelDescriptor.EMPTY, wi -> {
            DeviceHeap h = heaps[0];
            long p = h.malloc(wi, BYTES);
            if (p == 0) {
                throw new IllegalStateException("device heap out of memory");
            }
            wi.svm().setLong(p, wi.flatGlobalId());
            if (KernelLoop.arg(wi, 0) != 0 && h.free(wi, p) != HeapStatus.OK) {
                throw new IllegalStateException("device heap free failed");
            }
        });
        host = new KernelLoop(rt, queue, KernelDescriptor.EMPTY, wi -> {
            long p = mem.malloc(wi, BYTES);
            if (p == 0) {
                throw new IllegalStateException("host malloc failed");
            }
            wi.svm().setLong(p, wi.flatGlobalId());
            if (KernelLoop.arg(wi, 0) != 0 && mem.free(wi, p) != HeapStatus.OK) {
                throw new IllegalStateException("host free failed");
            }
        });
    }

    /** Without free: start every op from an empty device heap and no live host blocks. */
    @TearDown(Level.Invocation)
    public void release() {
        if (!free) {
            services.mallocService().destroyHeap(current[0]);
            current[0] = services.createDeviceHeap(256 * 1024, 8, 16);
            services.mallocService().freeAll();
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        services.close();
        rt.close();
    }

    /** Every work-item allocates (and frees) a block on the device heap. */
    @Benchmark
    public void deviceHeap() {
        device.run(workItems, 64, 0, free ? 1 : 0);
    }

    /** BASELINE: every work-item allocates (and frees) a block with host malloc over RPC. */
    @Benchmark
    public void hostMalloc() {
        host.run(workItems, 64, 0, free ? 1 : 0);
    }
}
