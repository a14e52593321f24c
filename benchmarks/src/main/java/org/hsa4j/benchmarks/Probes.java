package org.hsa4j.benchmarks;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;

/**
 * Process-level measurements shared by the footprint and idle-cost benchmarks: heap in use after
 * the collector has settled, process CPU time, per-thread CPU time and the live thread count.
 *
 * <p>Process CPU time comes from {@code clock_gettime(CLOCK_PROCESS_CPUTIME_ID)} through the FFM
 * API where it is available (Linux), because {@code OperatingSystemMXBean.getProcessCpuTime()}
 * there counts in 10 ms clock ticks: a whole tick is 1% of one core over the benchmark's one-second
 * idle period, half the goal. Elsewhere it falls back to the MXBean.
 */
final class Probes {
    /** {@code CLOCK_PROCESS_CPUTIME_ID} on Linux. */
    private static final int CLOCK_PROCESS_CPUTIME_ID = 2;
    private static final MethodHandle CLOCK_GETTIME = clockGettime();
    private static final MemorySegment TIMESPEC = Arena.global().allocate(16, 8);

    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private Probes() {
    }

    /**
     * Heap bytes in use once full collections stop freeing anything (at most five), so that
     * the difference of two readings is what was retained in between, not garbage.
     */
    static long settledHeapUsed() {
        long previous = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            long used = MEMORY.getHeapMemoryUsage().getUsed();
            if (used >= previous) {
                return used;
            }
            previous = used;
        }
        return previous;
    }

    /** CPU time of the whole process so far, in nanoseconds. */
    static synchronized long processCpuNanos() {
        if (CLOCK_GETTIME != null) {
            try {
                int rc = (int) CLOCK_GETTIME.invokeExact(CLOCK_PROCESS_CPUTIME_ID, TIMESPEC);
                if (rc == 0) {
                    return TIMESPEC.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + TIMESPEC.get(ValueLayout.JAVA_LONG, 8);
                }
            } catch (Throwable e) {
                throw new IllegalStateException("clock_gettime failed", e);
            }
        }
        return OS.getProcessCpuTime();
    }

    /** True when process CPU time has nanosecond resolution (clock_gettime), false for the MXBean's ticks. */
    static boolean preciseProcessCpu() {
        return CLOCK_GETTIME != null;
    }

    private static MethodHandle clockGettime() {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("clock_gettime")
                    .map(f -> linker.downcallHandle(f, FunctionDescriptor.of(ValueLayout.JAVA_INT,
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS)))
                    .orElse(null);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Summed CPU time of {@code threads} (threads that are gone count as 0), in nanoseconds. */
    static long threadsCpuNanos(Thread[] threads) {
        long sum = 0;
        for (Thread t : threads) {
            long cpu = THREADS.getThreadCpuTime(t.threadId());
            if (cpu > 0) {
                sum += cpu;
            }
        }
        return sum;
    }

    /** Number of live threads in the JVM. */
    static int liveThreads() {
        return THREADS.getThreadCount();
    }
}
