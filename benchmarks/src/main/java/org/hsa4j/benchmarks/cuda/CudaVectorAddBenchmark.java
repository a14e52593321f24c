package org.hsa4j.benchmarks.cuda;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.hsa4j.benchmarks.Dispatches;
import org.hsa4j.benchmarks.Waits;
import org.hsa4j.cuda.CudaBuffer;
import org.hsa4j.cuda.CudaKernel;
import org.hsa4j.cuda.CudaStream;
import org.hsa4j.queue.Queue;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
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
 * FIGURE (issue 18): vector add c = a + b of {@link #elements} floats (256M: three 1 GiB vectors)
 * in device-local memory, beside the device-to-device copy bandwidth of the same run.
 *
 * <p>What it measures, per op ({@link #side}), in ms:
 * <ul>
 * <li>HSA4J_AQL: one dispatch of {@code hsa4j_vector_add} (256-work-item workgroups) through the
 *     CUDA agent's AQL queue, to its completion signal: moves 12 bytes per element (two reads, one write).
 * <li>DEVICE_COPY, the baseline: {@code cuMemcpyDtoD_v2} of one vector (a to c) and its completion:
 *     moves 8 bytes per element (one read, one write).
 * <li>RAW_CUDA: the same kernel with {@code cuLaunchKernel} + {@code cuStreamSynchronize}, for the
 *     launch path's share.
 * <li>CPU_POOL, a reference line: a Java kernel on the CPU-pool agent over three off-heap vectors.
 * </ul>
 * Goal: HSA4J_AQL's bandwidth at least 80% of DEVICE_COPY's, i.e. {@code 12n / t(HSA4J_AQL)} at least
 * {@code 0.8 * 8n / t(DEVICE_COPY)}: t(HSA4J_AQL) at most 1.875x t(DEVICE_COPY). Self-check: a and
 * b are filled with byte patterns (0x3F..., 0x40...), and teardown reads back the first, a middle
 * and the last element of c and fails the run unless each is a + b (a for DEVICE_COPY).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g", "-XX:MaxDirectMemorySize=8g"})
@State(Scope.Benchmark)
public class CudaVectorAddBenchmark {
    /** What one op runs. */
    public enum Op {
        /** The vector add through the CUDA agent's AQL queue. */
        HSA4J_AQL,
        /** The device-to-device copy of one vector: the bandwidth baseline. */
        DEVICE_COPY,
        /** The vector add with plain {@code cuLaunchKernel}. */
        RAW_CUDA,
        /** The vector add on the CPU-pool agent. */
        CPU_POOL
    }

    /** Elements per vector: 256M for the figure; smaller only for smoke runs ({@code ./hsa4j bench --quick}). */
    @Param("268435456")
    public int elements;

    /** What one op runs. */
    @Param({"HSA4J_AQL", "DEVICE_COPY", "RAW_CUDA", "CPU_POOL"})
    public Op side;

    private static final int WORKGROUP = 256;
    private static final byte A_BYTE = 0x3F;
    private static final byte B_BYTE = 0x40;

    private Trial trial;
    private CudaBench gpu;
    private CudaStream stream;
    private CudaKernel add;
    private CudaBuffer a;
    private CudaBuffer b;
    private CudaBuffer c;
    private MemorySegment rawArgs;
    private long kernarg;
    private MemorySegment ha;
    private MemorySegment hb;
    private MemorySegment hc;
    private Queue cpuQueue;
    private long cpuKernel;
    private Signal done;

    @Setup(Level.Trial)
    public void start() {
        long bytes = 4L * elements;
        trial = new Trial();
        done = trial.runtime.createSignal(0);
        Arena arena = trial.own(Arena.ofShared());
        if (side == Op.CPU_POOL) {
            ha = arena.allocate(bytes, 64).fill(A_BYTE);
            hb = arena.allocate(bytes, 64).fill(B_BYTE);
            hc = arena.allocate(bytes, 64);
            MemorySegment x = ha, y = hb, z = hc;
            int n = elements;
            cpuKernel = trial.cpuKernel("vector_add", wi -> {
                long i = wi.flatGlobalId();
                if (i < n) {
                    z.setAtIndex(JAVA_FLOAT, i, x.getAtIndex(JAVA_FLOAT, i) + y.getAtIndex(JAVA_FLOAT, i));
                }
            });
            cpuQueue = trial.cpuQueue(256);
            return;
        }
        gpu = trial.gpu(256);
        add = gpu.kernel("hsa4j_vector_add");
        a = trial.own(gpu.agent.allocateDevice(bytes));
        b = trial.own(gpu.agent.allocateDevice(bytes));
        c = trial.own(gpu.agent.allocateDevice(bytes));
        stream = trial.stream();
        stream.fill(a.address(), A_BYTE, bytes);
        stream.fill(b.address(), B_BYTE, bytes);
        stream.fill(c.address(), (byte) 0, bytes);
        kernarg = gpu.kernarg(32);
        fillArgs(gpu.kernargBytes(kernarg, 32));
        rawArgs = arena.allocate(32, 16);
        fillArgs(rawArgs);
    }

    private void fillArgs(MemorySegment args) {
        args.set(JAVA_LONG, 0, a.address());
        args.set(JAVA_LONG, 8, b.address());
        args.set(JAVA_LONG, 16, c.address());
        args.set(JAVA_INT, 24, elements);
    }

    @TearDown(Level.Trial)
    public void stop() {
        try {
            if (c != null || hc != null) {
                check();
            }
        } finally {
            trial.close();
        }
    }

    /** Reads back three elements of c and fails unless each is what the op writes. */
    private void check() {
        float fa = Float.intBitsToFloat(0x3F3F3F3F);
        float want = side == Op.DEVICE_COPY ? fa : fa + Float.intBitsToFloat(0x40404040);
        try (Arena local = Arena.ofConfined()) {
            MemorySegment one = local.allocate(4, 4);
            for (long i : new long[] {0, elements / 2, elements - 1}) {
                float got;
                if (side == Op.CPU_POOL) {
                    got = hc.getAtIndex(JAVA_FLOAT, i);
                } else {
                    c.copyToHost(one, 4 * i);
                    got = one.get(JAVA_FLOAT, 0);
                }
                if (got != want) {
                    throw new IllegalStateException(side + ": c[" + i + "] is " + got + ", not " + want);
                }
            }
        }
    }

    /** One vector add (or copy) and its completion. */
    @Benchmark
    public long vectorAdd() {
        switch (side) {
            case DEVICE_COPY -> {
                stream.copyDeviceToDevice(c.address(), a.address(), 4L * elements);
                return 0;
            }
            case RAW_CUDA -> {
                stream.launch(add, (elements + WORKGROUP - 1) / WORKGROUP, WORKGROUP, rawArgs);
                stream.synchronize();
                return 0;
            }
            case HSA4J_AQL -> {
                done.storeRelaxed(1);
                gpu.dispatch(add, WORKGROUP, elements, kernarg, done);
            }
            case CPU_POOL -> {
                done.storeRelaxed(1);
                Dispatches.submitOne(cpuQueue, cpuKernel, WORKGROUP, elements, 0, done);
            }
        }
        return Waits.await(done, SignalCondition.EQ, 0, WaitState.ACTIVE);
    }
}
