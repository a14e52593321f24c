package org.hsa4j.services.syscall;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.MemoryFaultException;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.services.Kernels;
import org.hsa4j.services.Services;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.services.rpc.RpcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Services touch a caller's buffers with the calling agent's access rights (XNACK off here). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CallerAccessTest {
    private static final byte[] TEXT = "plain system memory\n".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private HsaRuntime rt;
    private Services services;
    private Queue queue;
    private long plain;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).xnack(false).build());
        services = Services.start(rt, ServicesConfig.defaults());
        queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
        plain = rt.systemMalloc(TEXT.length);
        rt.svm().segment(plain, TEXT.length).copyFrom(MemorySegment.ofArray(TEXT));
    }

    @AfterEach
    void stop() {
        try {
            services.close();
        } finally {
            rt.close();
        }
    }

    /** Opens {@code file} for writing from a kernel, writes {@code TEXT} from plain system memory, closes: the write's result. */
    private long writeFromKernel(Path file) {
        Syscalls sys = services.syscalls();
        long out = rt.hostMalloc(8);
        Kernels.run(rt, queue, wi -> {
            long fd = sys.open(wi, file.toString(), OpenFlags.O_CREAT | OpenFlags.O_WRONLY | OpenFlags.O_TRUNC, 0644);
            long n = fd < 0 ? fd : sys.write(wi, fd, plain, TEXT.length);
            sys.close(wi, fd);
            wi.svm().setLong(Kernels.arg(wi, 0), n);
        }, 1, 1, out);
        return rt.svm().getLong(out);
    }

    @Test
    void shouldRefuseAGpuKernelsWriteFromPlainSystemMemoryWithEfault() throws IOException {
        Path file = dir.resolve("from-plain.txt");
        assertEquals(-Errno.EFAULT, writeFromKernel(file));
        assertEquals(0, Files.size(file), "nothing was copied out of memory the kernel may not touch");
    }

    @Test
    void shouldFaultWhenTheGpuKernelTouchesThatMemoryItself() {
        long out = rt.hostMalloc(8);
        assertThrows(MemoryFaultException.class, () -> rt.gpuAgent().svm().getByte(plain));
        Kernels.run(rt, queue, wi -> {
            long faulted;
            try {
                wi.svm().getByte(plain);
                faulted = 0;
            } catch (MemoryFaultException e) {
                faulted = 1;
            }
            wi.svm().setLong(Kernels.arg(wi, 0), faulted);
        }, 1, 1, out);
        assertEquals(1, rt.svm().getLong(out));
    }

    @Test
    void shouldLetTheHostWriteFromPlainSystemMemory() throws IOException {
        Path file = dir.resolve("from-host.txt");
        FdTable fds = services.syscallService().fds();
        long[] inOut = new long[8];
        int fd;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            fd = fds.install(new FdTable.FileEntry(ch, file, OpenFlags.O_WRONLY, false));
            inOut[0] = fd;
            inOut[1] = plain;
            inOut[2] = TEXT.length;
            assertEquals(RpcStatus.OK, services.client().invoke(rt.svm(), 0, 0, Syscall.WRITE.opcode(), inOut));
        }
        assertEquals(TEXT.length, inOut[0]);
        assertArrayEquals(TEXT, Files.readAllBytes(file));
    }
}
