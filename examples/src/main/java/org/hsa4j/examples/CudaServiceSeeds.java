package org.hsa4j.examples;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import org.hsa4j.cuda.CudaAgent;
import org.hsa4j.cuda.CudaModule;
import org.hsa4j.cuda.CudaRpc;
import org.hsa4j.memory.Svm;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;

/**
 * The syscall and fibonacci seeds on the CUDA agent (issue 19 part 2): CUDA C kernels
 * ({@code hsa4j_rpc_kernels.cu}) call the host services through {@code hsa4j_rpc.cuh} on the
 * services' device ports, and the host checks every thread's outcome.
 * <ul>
 * <li>syscall: each GPU thread reads the clock and the pid, writes a 64-byte line of them into its
 *     slot of a file ({@code pwrite}), reads it back ({@code pread}), closes the file; the host checks
 *     the file, the pid and the clock. Baseline: the same six calls made by one Java thread through the JDK.
 * <li>fibonacci: each GPU thread news a zeroed {@code long[k]} on the host heap over RPC (calloc),
 *     fills it with Fibonacci numbers, keeps fib(k-1), deletes it; the host checks every number and
 *     that every block came back. Baseline: the same on one host thread with Java's {@code new}.
 * </ul>
 */
final class CudaServiceSeeds {
    private static final long WAIT_NANOS = 60_000_000_000L;
    private static final int LINE = 64;
    private static final int MAX_TERMS = 92;
    private static final int TIMED_RUNS = 5;

    private CudaServiceSeeds() {
    }

    /** Services with device ports for {@code gpu}'s kernels, their context, kernels and a queue. */
    private record Rig(HsaRuntime rt, CudaAgent gpu, Services services, CudaModule kernels, Queue queue, long ctx)
            implements AutoCloseable {
        static Rig open(HsaRuntime rt, CudaAgent gpu) {
            Services services = Services.start(rt, ServicesConfig.builder().devicePorts(64).build());
            try {
                CudaModule kernels = CudaRpc.loadKernels(gpu);
                Queue queue = gpu.createQueue(64, QueueType.SINGLE, (e, q) -> System.err.println("queue error: " + e));
                long ctx = CudaRpc.newContext(gpu, services.ports().address());
                return new Rig(rt, gpu, services, kernels, queue, ctx);
            } catch (RuntimeException e) {
                services.close();
                throw e;
            }
        }

        long svm(long bytes) {
            long a = gpu.svmPool().allocate(Math.max(64, bytes));
            rt.svm().fill(a, Math.max(64, bytes), (byte) 0);
            return a;
        }

        /** Runs {@code kernel} over {@code n} threads (blocks of 256) with kernargs of {@code longs} then {@code n}; waits at most 60 s. */
        void run(String kernel, int n, long... longs) {
            long bytes = 8L * longs.length + 8;
            long ka = rt.allocate(rt.kernargPool(), bytes);
            Svm s = rt.svm();
            for (int i = 0; i < longs.length; i++) {
                s.setLong(ka + 8L * i, longs[i]);
            }
            s.setInt(ka + 8L * longs.length, n);
            Signal done = rt.createSignal(1);
            try {
                queue.launch(kernels.kernel(kernel).kernelObject()).grid(n).workgroup(Math.min(n, 256)).kernarg(ka)
                        .completion(done).dispatch();
                long v = done.waitScacquire(SignalCondition.EQ, 0, WAIT_NANOS, WaitState.BLOCKED);
                if (v != 0) {
                    throw new AssertionError(kernel + " did not complete within 60 s (signal " + v + ")");
                }
            } finally {
                done.destroy();
            }
        }

        @Override
        public void close() {
            queue.destroy();
            services.close();
        }
    }

    /** The syscall seed on {@code gpu}: {@code n} threads; throws AssertionError naming the first wrong thread. */
    static void syscall(HsaRuntime rt, CudaAgent gpu, int n, PrintStream out) throws IOException {
        Path file = Files.createTempFile("hsa4j-cuda-syscall", ".txt");
        try (Rig r = Rig.open(rt, gpu)) {
            Svm s = rt.svm();
            byte[] name = (file + "\0").getBytes(StandardCharsets.UTF_8);
            long path = r.svm(name.length);
            for (int k = 0; k < name.length; k++) {
                s.setByte(path + k, name[k]);
            }
            long written = r.svm((long) LINE * n);
            long back = r.svm((long) LINE * n);
            long results = r.svm(64L * n);
            long before = System.currentTimeMillis() * 1_000_000L;
            long first = System.nanoTime();
            r.run("hsa4j_rpc_syscalls", n, r.ctx, path, written, back, results);
            long firstRun = System.nanoTime() - first;
            long start = System.nanoTime();
            for (int k = 0; k < TIMED_RUNS; k++) {
                r.run("hsa4j_rpc_syscalls", n, r.ctx, path, written, back, results);
            }
            long steady = (System.nanoTime() - start) / TIMED_RUNS;
            long after = System.currentTimeMillis() * 1_000_000L + 1_000_000L;
            long pid = ProcessHandle.current().pid();
            List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
            if (lines.size() != n) {
                throw new AssertionError("the file has " + lines.size() + " lines, expected " + n);
            }
            for (int i = 0; i < n; i++) {
                long at = results + 64L * i;
                String what = String.format(Locale.ROOT, "thread %d: clock %d pid %d fd %d pwrite %d pread %d close %d same %d",
                        i, s.getLong(at), s.getLong(at + 8), s.getLong(at + 16), s.getLong(at + 24), s.getLong(at + 32),
                        s.getLong(at + 40), s.getLong(at + 48));
                if (s.getLong(at + 8) != pid || s.getLong(at + 16) < 0 || s.getLong(at + 24) != LINE || s.getLong(at + 32) != LINE
                        || s.getLong(at + 40) != 0 || s.getLong(at + 48) != 1) {
                    throw new AssertionError("syscall: " + what + " (expected pid " + pid + ", 64-byte pwrite and pread, close 0, same 1)");
                }
                long now = s.getLong(at);
                if (now < before || now > after) {
                    throw new AssertionError("syscall: " + what + ": the clock is outside the runs");
                }
                String expected = String.format(Locale.ROOT, "gpu %06d pid %010d clock %019d", i, pid, now);
                if (!lines.get(i).stripTrailing().equals(expected)) {
                    throw new AssertionError("syscall: line " + i + " is '" + lines.get(i) + "', expected '" + expected + "'");
                }
            }
            long hostStart = System.nanoTime();
            for (int k = 0; k < TIMED_RUNS; k++) {
                onHost(file, n);
            }
            long host = (System.nanoTime() - hostStart) / TIMED_RUNS;
            out.printf(Locale.ROOT, "syscall: %d CUDA threads on %s each called clock_gettime, getpid (%d, this JVM), open, "
                    + "pwrite, pread and close through hsa4j_rpc.cuh; every line read back as written and the host "
                    + "finds all %d%n", n, gpu.name(), pid, n);
            out.printf(Locale.ROOT, "syscall: steady state %.2f us per system call (%d calls a run, %d runs; first run "
                    + "%.2f us a call) against %.2f us for the same calls from one Java thread through the JDK (baseline)%n",
                    steady / 1e3 / (6.0 * n), 6 * n, TIMED_RUNS, firstRun / 1e3 / (6.0 * n), host / 1e3 / (6.0 * n));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static void onHost(Path file, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            long now = System.currentTimeMillis();
            long pid = ProcessHandle.current().pid();
            byte[] line = String.format(Locale.ROOT, "%-63d\n", now ^ pid).getBytes(StandardCharsets.US_ASCII);
            try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.READ,
                    java.nio.file.StandardOpenOption.WRITE)) {
                ch.write(java.nio.ByteBuffer.wrap(line), (long) LINE * i);
                ch.read(java.nio.ByteBuffer.allocate(LINE), (long) LINE * i);
            }
        }
    }

    /** The fibonacci seed on {@code gpu}: {@code n} threads; throws AssertionError naming the first wrong thread. */
    static void fibonacci(HsaRuntime rt, CudaAgent gpu, int n, PrintStream out) {
        try (Rig r = Rig.open(rt, gpu)) {
            Svm s = rt.svm();
            long results = r.svm(16L * n);
            int live = r.services.mallocService().liveBlocks();
            long first = System.nanoTime();
            r.run("hsa4j_rpc_fibonacci", n, r.ctx, results);
            long firstRun = System.nanoTime() - first;
            long start = System.nanoTime();
            for (int k = 0; k < TIMED_RUNS; k++) {
                r.run("hsa4j_rpc_fibonacci", n, r.ctx, results);
            }
            long steady = (System.nanoTime() - start) / TIMED_RUNS;
            long[] fib = new long[MAX_TERMS];
            fib[1] = 1;
            for (int m = 2; m < MAX_TERMS; m++) {
                fib[m] = fib[m - 1] + fib[m - 2];
            }
            for (int i = 0; i < n; i++) {
                int k = 2 + i % (MAX_TERMS - 1);
                long got = s.getLong(results + 16L * i);
                long freed = s.getLong(results + 16L * i + 8);
                if (got != fib[k - 1] || freed != 0) {
                    throw new AssertionError("fibonacci: thread " + i + " got fib(" + (k - 1) + ") = " + got + ", expected "
                            + fib[k - 1] + " (-1: calloc gave null), free's HeapStatus " + freed);
                }
            }
            if (r.services.mallocService().liveBlocks() != live) {
                throw new AssertionError("fibonacci: " + (r.services.mallocService().liveBlocks() - live) + " blocks not deleted");
            }
            long hostStart = System.nanoTime();
            long sum = 0;
            for (int k = 0; k < TIMED_RUNS; k++) {
                sum += onHost(n);
            }
            long host = (System.nanoTime() - hostStart) / TIMED_RUNS;
            out.printf(Locale.ROOT, "fibonacci: %d CUDA threads on %s each new'd a zeroed long[2..%d] on the host heap over RPC "
                    + "(hsa4j_rpc.cuh calloc), filled it up to fib(%d) = %d, kept its last term and deleted it; all %d "
                    + "correct, every block back (checksum %d)%n", n, gpu.name(), MAX_TERMS, MAX_TERMS - 1, fib[MAX_TERMS - 1],
                    n, sum);
            out.printf(Locale.ROOT, "fibonacci: steady state %.2f us per thread (new + fill + delete, %d runs; first run %.2f us) "
                    + "against %.3f us with Java's new on one host thread (baseline)%n", steady / 1e3 / n, TIMED_RUNS,
                    firstRun / 1e3 / n, host / 1e3 / n);
        }
    }

    private static long onHost(int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            int k = 2 + i % (MAX_TERMS - 1);
            long[] memo = new long[k];
            memo[1] = 1;
            for (int m = 2; m < k; m++) {
                memo[m] = memo[m - 1] + memo[m - 2];
            }
            sum += memo[k - 1];
        }
        return sum;
    }
}
