package org.hsa4j.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * FIGURES: what one signal costs, measured over {@value #COUNT} live signals.
 *
 * <p>What it measures: in a fresh runtime ({@code HsaRuntime.init()}) per iteration, the single op
 * creates {@value #COUNT} signals and keeps them all alive in an array made beforehand. Around the
 * creation it reads the runtime's off-heap bytes ({@code rt.memory().reservedBytes()}), the heap in
 * use after full GCs have settled, and the JVM's live thread count. Reported as JMH auxiliary
 * counters: {@code offHeapBytesPerSignal} (what the runtime holds from the OS, in whole 4 MiB
 * chunks, so it includes the unused tail of the last chunk: up to 4 B per signal at this count),
 * {@code poolBytesPerSignal} (what the signal pool accounts as in use), {@code heapBytesPerSignal}
 * and {@code threadsCreated} (for all {@value #COUNT} together). The primary score is the time to
 * create them all.
 *
 * <p>Why it is fair: a million signals amortize the per-block and per-table overheads the way an
 * application with many signals sees them, and the array holding them is allocated before the
 * first reading, so only what the runtime adds is counted. The baseline, {@link #atomicLongs},
 * measures the heap cost of the smallest JDK object holding a 64-bit atomic value the same way in
 * the same run. Goals (issue hsa-runtime): at most 64 off-heap bytes per signal, and no thread per
 * signal (none created at all).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 5)
@Fork(2)
public class SignalFootprintBenchmark {
    /** Signals created per op. */
    static final int COUNT = 1_000_000;

    /** The per-iteration figures, reported as JMH auxiliary counters. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Figures {
        /** Off-heap bytes per live signal that the runtime holds ({@code reservedBytes}, whole 4 MiB chunks). */
        public double offHeapBytesPerSignal;
        /** Off-heap bytes per live signal that the signal pool accounts as in use. */
        public double poolBytesPerSignal;
        /** Heap bytes per live signal (or AtomicLong). */
        public double heapBytesPerSignal;
        /** Threads that appeared while the objects were created. */
        public double threadsCreated;

        @Setup(Level.Iteration)
        public void clear() {
            offHeapBytesPerSignal = 0;
            poolBytesPerSignal = 0;
            heapBytesPerSignal = 0;
            threadsCreated = 0;
        }
    }

    /** A fresh runtime and an empty holder array per iteration. */
    @State(Scope.Benchmark)
    public static class FreshRuntime {
        HsaRuntime rt;
        Signal[] signals;

        @Setup(Level.Iteration)
        public void start() {
            rt = HsaRuntime.init();
            signals = new Signal[COUNT];
        }

        @TearDown(Level.Iteration)
        public void stop() {
            signals = null;
            if (rt != null) {
                rt.close();
            }
        }
    }

    /** An empty holder array per iteration, for the baseline. */
    @State(Scope.Benchmark)
    public static class Holder {
        AtomicLong[] values;

        @Setup(Level.Iteration)
        public void start() {
            values = new AtomicLong[COUNT];
        }

        @TearDown(Level.Iteration)
        public void stop() {
            values = null;
        }
    }

    /** FIGURE: {@value #COUNT} signals created and kept alive. */
    @Benchmark
    public Object signals(FreshRuntime s, Figures f) {
        long heap0 = Probes.settledHeapUsed();
        long offHeap0 = s.rt.memory().reservedBytes();
        long pool0 = s.rt.systemPool().used();
        int threads0 = Probes.liveThreads();
        Signal[] held = s.signals;
        for (int i = 0; i < COUNT; i++) {
            held[i] = s.rt.createSignal(i);
        }
        f.threadsCreated = Probes.liveThreads() - threads0;
        f.offHeapBytesPerSignal = (double) (s.rt.memory().reservedBytes() - offHeap0) / COUNT;
        f.poolBytesPerSignal = (double) (s.rt.systemPool().used() - pool0) / COUNT;
        f.heapBytesPerSignal = (double) (Probes.settledHeapUsed() - heap0) / COUNT;
        return held;
    }

    /** BASELINE: {@value #COUNT} AtomicLongs created and kept alive. */
    @Benchmark
    public Object atomicLongs(Holder s, Figures f) {
        long heap0 = Probes.settledHeapUsed();
        int threads0 = Probes.liveThreads();
        AtomicLong[] held = s.values;
        for (int i = 0; i < COUNT; i++) {
            held[i] = new AtomicLong(i);
        }
        f.threadsCreated = Probes.liveThreads() - threads0;
        f.offHeapBytesPerSignal = 0;
        f.poolBytesPerSignal = 0;
        f.heapBytesPerSignal = (double) (Probes.settledHeapUsed() - heap0) / COUNT;
        return held;
    }
}
