package org.hsa4j.benchmarks;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.memory.FloatView;
import org.hsa4j.memory.Svm;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
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
 * Issue 22, part 1: raw kernels at loop speed, each beside its baseline in the same run.
 *
 * <p>Vector add of {@link #elements} floats (c = a + b in three hostMalloc'd SVM buffers):
 * {@link #vectorAddLoop} is the floor, one plain sequential loop over the same memory's segments;
 * {@link #vectorAddPerWorkItem} is a raw per-work-item kernel through checked SVM, its views taken
 * once per workgroup ({@code Executable.definePrepared}), launched with {@code queue.dispatch} and
 * joined (goal: at most 1.5x the loop); {@link #vectorAddPerWorkItemArgViews} takes them per
 * work-item with {@code wi.floatsArg}; {@link #vectorAddPerAccessChecked}
 * is the same kernel with an address translation per access ({@code svm.getFloat}), the README's
 * first path; {@link #vectorAddWorkgroup} uses the per-workgroup entry point.
 *
 * <p>Matrix multiply of two {@link #size}^2 float matrices (row-major, i-k-j order, the same loop
 * nest everywhere): {@link #matmulParallelStream} is {@code IntStream.range(0, n).parallel()} over
 * rows of the same memory's segments; {@link #matmulPerWorkItem} is a raw (prepared) kernel whose
 * work-item computes one row of C; {@link #matmulWorkgroup} a per-workgroup kernel over a block of rows
 * (goal: at most the parallel stream's time).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class RawKernelBenchmark {
    /** Floats per vector. */
    @Param("16777216")
    public int elements;

    /** Rows (and columns) of each matrix. */
    @Param("1024")
    public int size;

    private HsaRuntime rt;
    private Queue queue;
    private long a;
    private long b;
    private long c;
    private MemorySegment sa;
    private MemorySegment sb;
    private MemorySegment sc;
    private long ma;
    private long mb;
    private long mc;
    private MemorySegment sma;
    private MemorySegment smb;
    private MemorySegment smc;
    private long addViews;
    private long addArgViews;
    private long addChecked;
    private long addGroup;
    private long mulItem;
    private long mulGroup;

    @Setup(Level.Trial)
    public void start() {
        rt = HsaRuntime.init();
        queue = rt.gpuAgent().createQueue(256, QueueType.MULTI, null);
        int n = elements;
        a = rt.hostMalloc(4L * n);
        b = rt.hostMalloc(4L * n);
        c = rt.hostMalloc(4L * n);
        sa = rt.svm().segment(a, 4L * n);
        sb = rt.svm().segment(b, 4L * n);
        sc = rt.svm().segment(c, 4L * n);
        for (int i = 0; i < n; i++) {
            sa.setAtIndex(ValueLayout.JAVA_FLOAT, i, i);
            sb.setAtIndex(ValueLayout.JAVA_FLOAT, i, 1f);
        }
        long m = (long) size * size;
        ma = rt.hostMalloc(4 * m);
        mb = rt.hostMalloc(4 * m);
        mc = rt.hostMalloc(4 * m);
        sma = rt.svm().segment(ma, 4 * m);
        smb = rt.svm().segment(mb, 4 * m);
        smc = rt.svm().segment(mc, 4 * m);
        for (long i = 0; i < m; i++) {
            sma.setAtIndex(ValueLayout.JAVA_FLOAT, i, i % 7);
            smb.setAtIndex(ValueLayout.JAVA_FLOAT, i, i % 5);
        }
        KernelDescriptor args = KernelDescriptor.withKernarg(32);
        var exe = rt.createExecutable()
                .definePrepared("add_prepared", args, g -> {
                    long count = g.arg(3);
                    FloatView va = g.svm().floats(g.arg(0), count);
                    FloatView vb = g.svm().floats(g.arg(1), count);
                    FloatView vc = g.svm().floats(g.arg(2), count);
                    return wi -> {
                        long i = wi.globalId(0);
                        vc.set(i, va.get(i) + vb.get(i));
                    };
                })
                .define("add_arg_views", args, wi -> {
                    long i = wi.globalId(0);
                    wi.floatsArg(2).set(i, wi.floatsArg(0).get(i) + wi.floatsArg(1).get(i));
                })
                .define("add_checked", args, wi -> {
                    Svm svm = wi.svm();
                    long at = 4 * wi.globalId(0);
                    svm.setFloat(wi.arg(2) + at, svm.getFloat(wi.arg(0) + at) + svm.getFloat(wi.arg(1) + at));
                })
                .defineWorkgroup("add_group", args, g -> {
                    long count = g.arg(3);
                    FloatView va = g.svm().floats(g.arg(0), count);
                    FloatView vb = g.svm().floats(g.arg(1), count);
                    FloatView vc = g.svm().floats(g.arg(2), count);
                    for (long i = g.from(0), end = g.to(0); i < end; i++) {
                        vc.set(i, va.get(i) + vb.get(i));
                    }
                })
                .definePrepared("mul_item", args, g -> {
                    int cols = (int) g.arg(3);
                    long cells = (long) cols * cols;
                    FloatView va = g.svm().floats(g.arg(0), cells);
                    FloatView vb = g.svm().floats(g.arg(1), cells);
                    FloatView vc = g.svm().floats(g.arg(2), cells);
                    return wi -> multiplyRows(va, vb, vc, cols, wi.globalId(0), wi.globalId(0) + 1);
                })
                .defineWorkgroup("mul_group", args, g -> {
                    int cols = (int) g.arg(3);
                    long cells = (long) cols * cols;
                    multiplyRows(g.svm().floats(g.arg(0), cells), g.svm().floats(g.arg(1), cells),
                            g.svm().floats(g.arg(2), cells), cols, g.from(0), g.to(0));
                })
                .freeze();
        addViews = exe.symbol("add_prepared").kernelObject();
        addArgViews = exe.symbol("add_arg_views").kernelObject();
        addChecked = exe.symbol("add_checked").kernelObject();
        addGroup = exe.symbol("add_group").kernelObject();
        mulItem = exe.symbol("mul_item").kernelObject();
        mulGroup = exe.symbol("mul_group").kernelObject();
    }

    /** C rows {@code from} to {@code to} = A x B, i-k-j order through checked views. */
    private static void multiplyRows(FloatView a, FloatView b, FloatView c, int n, long from, long to) {
        for (long i = from; i < to; i++) {
            long row = i * n;
            for (int j = 0; j < n; j++) {
                c.set(row + j, 0f);
            }
            for (int k = 0; k < n; k++) {
                float x = a.get(row + k);
                long brow = (long) k * n;
                for (int j = 0; j < n; j++) {
                    c.set(row + j, c.get(row + j) + x * b.get(brow + j));
                }
            }
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        if (rt != null) {
            rt.close();
        }
    }

    /** Baseline: one plain sequential loop over the same memory. */
    @Benchmark
    public MemorySegment vectorAddLoop() {
        MemorySegment x = sa;
        MemorySegment y = sb;
        MemorySegment z = sc;
        for (int i = 0, n = elements; i < n; i++) {
            z.setAtIndex(ValueLayout.JAVA_FLOAT, i, x.getAtIndex(ValueLayout.JAVA_FLOAT, i)
                    + y.getAtIndex(ValueLayout.JAVA_FLOAT, i));
        }
        return z;
    }

    /**
     * A raw per-work-item kernel through checked SVM views taken once per workgroup
     * ({@code definePrepared}); goal at most 1.5x {@link #vectorAddLoop}.
     */
    @Benchmark
    public Object vectorAddPerWorkItem() {
        queue.dispatch(addViews, elements, 1024, a, b, c, elements).join();
        return queue;
    }

    /** The same kernel taking its views per work-item from its arguments ({@code wi.floatsArg}, made once per group). */
    @Benchmark
    public Object vectorAddPerWorkItemArgViews() {
        queue.dispatch(addArgViews, elements, 1024, a, b, c, elements).join();
        return queue;
    }

    /** The same kernel with an address translation per SVM access. */
    @Benchmark
    public Object vectorAddPerAccessChecked() {
        queue.dispatch(addChecked, elements, 1024, a, b, c, elements).join();
        return queue;
    }

    /** The per-workgroup entry point: one call per 1,024 elements, views taken once per call. */
    @Benchmark
    public Object vectorAddWorkgroup() {
        queue.dispatch(addGroup, elements, 1024, a, b, c, elements).join();
        return queue;
    }

    /** Baseline: {@code IntStream.parallel()} over rows, the same i-k-j loop on the same memory's segments. */
    @Benchmark
    public MemorySegment matmulParallelStream() {
        int n = size;
        MemorySegment x = sma;
        MemorySegment y = smb;
        MemorySegment z = smc;
        IntStream.range(0, n).parallel().forEach(i -> {
            long row = (long) i * n;
            for (int j = 0; j < n; j++) {
                z.setAtIndex(ValueLayout.JAVA_FLOAT, row + j, 0f);
            }
            for (int k = 0; k < n; k++) {
                float v = x.getAtIndex(ValueLayout.JAVA_FLOAT, row + k);
                long brow = (long) k * n;
                for (int j = 0; j < n; j++) {
                    z.setAtIndex(ValueLayout.JAVA_FLOAT, row + j, z.getAtIndex(ValueLayout.JAVA_FLOAT, row + j)
                            + v * y.getAtIndex(ValueLayout.JAVA_FLOAT, brow + j));
                }
            }
        });
        return z;
    }

    /** A raw per-work-item kernel, one row of C per work-item; goal at most {@link #matmulParallelStream}. */
    @Benchmark
    public Object matmulPerWorkItem() {
        queue.dispatch(mulItem, size, 1, ma, mb, mc, size).join();
        return queue;
    }

    /** A per-workgroup kernel over blocks of 16 rows. */
    @Benchmark
    public Object matmulWorkgroup() {
        queue.dispatch(mulGroup, size, 16, ma, mb, mc, size).join();
        return queue;
    }
}
