package org.hsa4j.benchmarks.services;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
import org.hsa4j.services.syscall.OpenFlags;
import org.hsa4j.services.syscall.Syscalls;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * SCALING (issue 20): a deferred service call, pread of 64 bytes from a kernel through the
 * services, beside the same pread from a Java thread, in one run.
 *
 * <p>What it measures: a runtime and services with default settings ({@code HsaRuntime.init()},
 * {@code Services.start}); one work-item opens a 64 KiB file once per dispatch through the syscall
 * service, then calls {@code pread} for 64 bytes {@value #CALLS} times, each at the next 64-byte
 * offset, into host memory, and closes it; the time per pread is reported. pread is a file
 * service, so it runs on a handler thread (deferred from the RPC server thread that found the call),
 * and each call crosses kernel to server to handler and back. {@link #javaThread} is the baseline:
 * the benchmark thread reads the same 64 bytes with {@code FileChannel.read(ByteBuffer, long)} into
 * a direct buffer. Goal: kernel at most 3x javaThread.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class PreadCallBenchmark {
    /** preads per dispatch (and per baseline op). */
    static final int CALLS = 1000;
    /** Bytes each pread reads. */
    static final int BYTES = 64;
    /** Size of the file read. */
    static final int FILE_BYTES = 64 * 1024;

    private HsaRuntime rt;
    private Services services;
    private KernelLoop loop;
    private Path file;
    private FileChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(BYTES);
    /** Sum of the bytes read, so nothing is optimised away (the kernel adds its checks through the return values). */
    static volatile long sink;

    @Setup(Level.Trial)
    public void start() throws IOException {
        file = Files.createTempFile("hsa4j-pread", ".bin");
        byte[] content = new byte[FILE_BYTES];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) i;
        }
        Files.write(file, content);
        channel = FileChannel.open(file, StandardOpenOption.READ);
        rt = HsaRuntime.init();
        services = Services.start(rt);
        Syscalls sys = services.syscalls();
        long target = rt.hostMalloc(BYTES);
        String path = file.toString();
        Queue queue = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        loop = new KernelLoop(rt, queue, KernelDescriptor.EMPTY, wi -> {
            long fd = sys.open(wi, path, OpenFlags.O_RDONLY, 0);
            if (fd < 0) {
                throw new IllegalStateException("open failed: " + fd);
            }
            long offset = 0;
            for (int i = 0; i < CALLS; i++) {
                long read = sys.pread(wi, fd, target, BYTES, offset);
                if (read != BYTES) {
                    throw new IllegalStateException("pread returned " + read);
                }
                offset = (offset + BYTES) % FILE_BYTES;
            }
            sys.close(wi, fd);
        });
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        if (services != null) {
            services.close();
        }
        if (rt != null) {
            rt.close();
        }
        if (channel != null) {
            channel.close();
        }
        if (file != null) {
            Files.deleteIfExists(file);
        }
    }

    /** {@value #CALLS} preads of 64 bytes from one work-item through the syscall service; scored per pread. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void kernel() {
        loop.run(1, 1, 0);
    }

    /** BASELINE: {@value #CALLS} preads of the same 64 bytes from this Java thread; scored per pread. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public long javaThread() throws IOException {
        long offset = 0;
        long sum = 0;
        for (int i = 0; i < CALLS; i++) {
            buffer.clear();
            int read = channel.read(buffer, offset);
            if (read != BYTES) {
                throw new IllegalStateException("read returned " + read);
            }
            sum += buffer.get(0);
            offset = (offset + BYTES) % FILE_BYTES;
        }
        sink = sum;
        return sum;
    }
}
