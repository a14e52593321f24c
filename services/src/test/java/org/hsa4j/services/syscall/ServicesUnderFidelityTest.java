package org.hsa4j.services.syscall;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.WorkItem;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.hsa4j.services.ServicesConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A service call is a system-scope release on the way out and an acquire on the way back, so in
 * fidelity mode, where a compute unit's plain writes wait in its model cache, a syscall still sees
 * what the kernel wrote just before it, and the kernel sees what the syscall wrote.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServicesUnderFidelityTest {
    @TempDir
    Path dir;

    private Fixture f;
    private Syscalls sys;
    private Svm host;

    @BeforeEach
    void start() {
        f = Fixture.start(RuntimeConfig.builder().computeUnits(1).fidelity(true).build(), ServicesConfig.builder());
        sys = f.services.syscalls();
        host = f.rt.svm();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private long inKernel(java.util.function.ToLongFunction<WorkItem> body) {
        long out = f.rt.hostMalloc(8);
        Kernels.run(f.rt, f.queue, wi -> wi.svm().setLong(Kernels.arg(wi, 0), body.applyAsLong(wi)), 1, 1, out);
        return host.getLong(out);
    }

    @Test
    void shouldPwriteTheWordTheKernelWroteJustBefore() throws IOException {
        Path file = dir.resolve("word.bin");
        Files.write(file, new byte[4]);
        long buf = f.rt.hostMalloc(64);
        long n = inKernel(wi -> {
            wi.svm().setInt(buf, 42);   // a plain store: in fidelity mode it waits in the unit's cache
            long fd = sys.open(wi, file.toString(), OpenFlags.O_RDWR, 0);
            long w = sys.pwrite(wi, fd, buf, 4, 0);
            sys.close(wi, fd);
            return w;
        });
        assertEquals(4, n);
        assertEquals(42, ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.nativeOrder()).getInt());
    }

    @Test
    void shouldSeeWhatPreadBroughtInEvenWhenTheLineWasCachedBefore() throws IOException {
        Path file = dir.resolve("seven.bin");
        Files.write(file, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(7).array());
        long in = f.rt.hostMalloc(64);
        long seen = inKernel(wi -> {
            long before = wi.svm().getInt(in);   // caches the line (0) in the unit's model cache
            long fd = sys.open(wi, file.toString(), OpenFlags.O_RDONLY, 0);
            sys.pread(wi, fd, in, 4, 0);
            sys.close(wi, fd);
            return before * 1000 + wi.svm().getInt(in);
        });
        assertEquals(7, seen);
    }

    @Test
    void shouldSeeTheZerosTheServiceThreadWroteForCalloc() {
        long seen = inKernel(wi -> {
            long p = f.services.hostMemory().malloc(wi, 256);
            wi.svm().fill(p, 256, (byte) 0x5A);
            f.services.hostMemory().free(wi, p);
            // the service thread zeroes with plain stores: they wait in its store buffer until its reply releases
            long q = f.services.hostMemory().calloc(wi, 256);
            long or = 0;
            for (int i = 0; i < 32; i++) {
                or |= wi.svm().getLong(q + 8L * i);
            }
            return or;
        });
        assertEquals(0, seen);
    }
}
