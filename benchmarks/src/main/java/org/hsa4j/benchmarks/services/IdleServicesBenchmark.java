package org.hsa4j.benchmarks.services;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
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
 * FIGURE: CPU used by idle services.
 *
 * <p>What it measures: a runtime with the default services, after one call has woken them
 * (so the server thread's first idle spin and sleep are part of the period), left alone for
 * {@value #IDLE_MILLIS} ms; reported as JMH auxiliary counters in % of one core: the services'
 * own threads (server and handler threads, {@code serviceCpuPercent}) and the whole process
 * ({@code processCpuPercent}). The baseline {@link #runtimeOnly} idles a runtime without
 * services in the same run, so the JVM's and the runtime's own background cost appear in both
 * process figures. Goal (issue services): idle services under 1% of a core.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 5)
@Fork(2)
public class IdleServicesBenchmark {
    static final long IDLE_MILLIS = 1000;

    /** Per-iteration figures. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Figures {
        /** CPU of the services' threads while idle, % of one core. */
        public double serviceCpuPercent;
        /** CPU of the whole process while idle, % of one core. */
        public double processCpuPercent;

        @Setup(Level.Iteration)
        public void clear() {
            serviceCpuPercent = 0;
            processCpuPercent = 0;
        }
    }

    /** A runtime, with or without services, made fresh per iteration. */
    @State(Scope.Thread)
    public static class Subject {
        HsaRuntime rt;
        Services services;

        void start(boolean withServices) {
            rt = HsaRuntime.init();
            if (withServices) {
                services = Services.start(rt);
                services.client().call(rt.svm(), org.hsa4j.services.rpc.Opcodes.NOP);
            }
        }

        @TearDown(Level.Iteration)
        public void stop() {
            if (services != null) {
                services.close();
                services = null;
            }
            if (rt != null) {
                rt.close();
                rt = null;
            }
        }
    }

    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static void idle(Subject s, Figures f) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Thread[] threads = s.services == null ? new Thread[0] : s.services.server().threads();
        long before = 0;
        for (Thread t : threads) {
            before += mx.getThreadCpuTime(t.threadId());
        }
        long process = processCpu();
        long start = System.nanoTime();
        LockSupport.parkNanos(IDLE_MILLIS * 1_000_000);
        long deadline = start + IDLE_MILLIS * 1_000_000;
        while (System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(deadline - System.nanoTime());
        }
        long wall = System.nanoTime() - start;
        long used = -before;
        for (Thread t : threads) {
            used += mx.getThreadCpuTime(t.threadId());
        }
        f.serviceCpuPercent = 100.0 * used / wall;
        f.processCpuPercent = 100.0 * (processCpu() - process) / wall;
    }

    /** Idle services for {@value #IDLE_MILLIS} ms. */
    @Benchmark
    public void services(Subject s, Figures f) {
        s.start(true);
        idle(s, f);
    }

    /** BASELINE: an idle runtime without services for {@value #IDLE_MILLIS} ms. */
    @Benchmark
    public void runtimeOnly(Subject s, Figures f) {
        s.start(false);
        idle(s, f);
    }
}
