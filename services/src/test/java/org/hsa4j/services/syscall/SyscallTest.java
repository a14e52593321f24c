package org.hsa4j.services.syscall;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.WorkItem;
import org.hsa4j.memory.Svm;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SyscallTest {
    @TempDir
    Path dir;

    private Fixture f;
    private Syscalls sys;
    private Svm host;

    @BeforeEach
    void start() {
        f = Fixture.start();
        sys = f.services.syscalls();
        host = f.rt.svm();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    /** Runs {@code body} in one work-item; it returns a value stored in SVM and handed back. */
    private long inKernel(java.util.function.ToLongFunction<WorkItem> body) {
        long out = f.rt.hostMalloc(8);
        Kernels.run(f.rt, f.queue, wi -> wi.svm().setLong(Kernels.arg(wi, 0), body.applyAsLong(wi)), 1, 1, out);
        return host.getLong(out);
    }

    private long svmBytes(byte[] bytes) {
        long a = f.rt.hostMalloc(Math.max(1, bytes.length));
        host.segment(a, bytes.length).copyFrom(java.lang.foreign.MemorySegment.ofArray(bytes));
        return a;
    }

    @Test
    void shouldWriteAFileFromAKernelThatTheHostReadsBack() throws IOException {
        Path file = dir.resolve("from-kernel.txt");
        byte[] text = "written by a work-item\n".getBytes(StandardCharsets.UTF_8);
        long buf = svmBytes(text);
        long written = inKernel(wi -> {
            long fd = sys.open(wi, file.toString(), OpenFlags.O_CREAT | OpenFlags.O_WRONLY | OpenFlags.O_TRUNC, 0644);
            if (fd < 0) {
                return fd;
            }
            long n = sys.write(wi, fd, buf, text.length);
            long c = sys.close(wi, fd);
            return c < 0 ? c : n;
        });
        assertEquals(text.length, written);
        assertArrayEquals(text, Files.readAllBytes(file));
    }

    @Test
    void shouldReadSeekAndStatAFileTheHostWrote() throws IOException {
        Path file = dir.resolve("data.bin");
        byte[] data = new byte[1000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7);
        }
        Files.write(file, data);
        long buf = f.rt.hostMalloc(1000);
        long stat = f.rt.hostMalloc(StatLayout.BYTES);
        long results = f.rt.hostMalloc(5 * 8);
        Kernels.run(f.rt, f.queue, wi -> {
            long fd = sys.open(wi, file.toString(), OpenFlags.O_RDONLY, 0);
            Svm svm = wi.svm();
            long r = Kernels.arg(wi, 0);
            svm.setLong(r, sys.fstat(wi, fd, stat));
            svm.setLong(r + 8, sys.read(wi, fd, buf, 600));
            svm.setLong(r + 16, sys.lseek(wi, fd, -100, OpenFlags.SEEK_END));
            svm.setLong(r + 24, sys.read(wi, fd, buf + 600, 400));
            svm.setLong(r + 32, sys.close(wi, fd));
        }, 1, 1, results);
        assertEquals(0, host.getLong(results));
        assertEquals(1000, host.getLong(stat + StatLayout.SIZE));
        assertEquals(StatLayout.S_IFREG, host.getInt(stat + StatLayout.MODE) & 0170000);
        assertTrue(host.getLong(stat + StatLayout.MTIME_NANOS) > 0);
        assertEquals(600, host.getLong(results + 8));
        assertEquals(900, host.getLong(results + 16));
        assertEquals(100, host.getLong(results + 24), "only 100 bytes are left after seeking to 900");
        assertEquals(0, host.getLong(results + 32));
        byte[] back = host.segment(buf, 700).toArray(ValueLayout.JAVA_BYTE);
        for (int i = 0; i < 600; i++) {
            assertEquals(data[i], back[i]);
        }
        for (int i = 0; i < 100; i++) {
            assertEquals(data[900 + i], back[600 + i]);
        }
    }

    @Test
    void shouldPreadAndPwriteWithoutMovingThePosition() throws IOException {
        Path file = dir.resolve("p.bin");
        Files.write(file, "0123456789".getBytes(StandardCharsets.US_ASCII));
        long buf = svmBytes("AB".getBytes(StandardCharsets.US_ASCII));
        long in = f.rt.hostMalloc(4);
        long pos = inKernel(wi -> {
            long fd = sys.open(wi, file.toString(), OpenFlags.O_RDWR, 0);
            sys.pwrite(wi, fd, buf, 2, 4);
            sys.pread(wi, fd, in, 4, 3);
            long p = sys.lseek(wi, fd, 0, OpenFlags.SEEK_CUR);
            sys.close(wi, fd);
            return p;
        });
        assertEquals(0, pos);
        assertEquals("0123AB6789", Files.readString(file));
        assertEquals("3AB6", new String(host.segment(in, 4).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII));
    }

    @Test
    void shouldAppendEveryWriteWithOAppend() throws IOException {
        Path file = dir.resolve("log.txt");
        Files.writeString(file, "start;");
        long buf = svmBytes("x;".getBytes(StandardCharsets.US_ASCII));
        inKernel(wi -> {
            long fd = sys.open(wi, file.toString(), OpenFlags.O_WRONLY | OpenFlags.O_APPEND, 0);
            sys.lseek(wi, fd, 0, OpenFlags.SEEK_SET);
            sys.write(wi, fd, buf, 2);
            sys.write(wi, fd, buf, 2);
            return sys.close(wi, fd);
        });
        assertEquals("start;x;x;", Files.readString(file));
    }

    @Test
    void shouldReturnEnoentForAMissingFile() {
        String missing = dir.resolve("nope").toString();
        assertEquals(-Errno.ENOENT, inKernel(wi -> sys.open(wi, missing, OpenFlags.O_RDONLY, 0)));
    }

    @Test
    void shouldReturnEexistForAnExclusiveCreateOfAnExistingFile() throws IOException {
        Path file = Files.createFile(dir.resolve("there"));
        assertEquals(-Errno.EEXIST, inKernel(wi -> sys.open(wi, file.toString(),
                OpenFlags.O_CREAT | OpenFlags.O_EXCL | OpenFlags.O_WRONLY, 0644)));
    }

    @Test
    void shouldReturnEbadfForADescriptorThatIsNotOpen() {
        long buf = f.rt.hostMalloc(8);
        assertEquals(-Errno.EBADF, inKernel(wi -> sys.read(wi, 77, buf, 8)));
        assertEquals(-Errno.EBADF, inKernel(wi -> sys.close(wi, 77)));
    }

    @Test
    void shouldReturnEbadfForWritingAFileOpenedReadOnly() throws IOException {
        Path file = Files.writeString(dir.resolve("ro"), "ro");
        long buf = svmBytes(new byte[] {1});
        assertEquals(-Errno.EBADF, inKernel(wi -> {
            long fd = sys.open(wi, file.toString(), OpenFlags.O_RDONLY, 0);
            long n = sys.write(wi, fd, buf, 1);
            sys.close(wi, fd);
            return n;
        }));
        assertEquals("ro", Files.readString(file));
    }

    @Test
    void shouldReturnEfaultForABufferTheCallerMayNotAccess() throws IOException {
        Path file = Files.writeString(dir.resolve("f"), "abc");
        long plain = f.rt.systemMalloc(64);
        assertEquals(-Errno.EFAULT, inKernel(wi -> {
            long fd = sys.open(wi, file.toString(), OpenFlags.O_RDONLY, 0);
            long n = sys.read(wi, fd, plain, 3);
            sys.close(wi, fd);
            return n;
        }));
        assertEquals(-Errno.EFAULT, inKernel(wi -> sys.fstat(wi, 1, 0x1234)));
    }

    @Test
    void shouldReadIntoTheCallingGpusOwnDeviceMemory() throws IOException {
        Path file = Files.writeString(dir.resolve("f"), "abc");
        long deviceOnly = f.rt.deviceMalloc(f.rt.gpuAgent(), 64);
        assertEquals(3, inKernel(wi -> {
            long fd = sys.open(wi, file.toString(), OpenFlags.O_RDONLY, 0);
            long n = sys.read(wi, fd, deviceOnly, 3);
            sys.close(wi, fd);
            return n;
        }));
        assertEquals("abc", new String(f.rt.gpuAgent().svm().segment(deviceOnly, 3).toArray(ValueLayout.JAVA_BYTE),
                StandardCharsets.UTF_8));
    }

    @Test
    void shouldReturnEspipeWhenSeekingAStream() {
        assertEquals(-Errno.ESPIPE, inKernel(wi -> sys.lseek(wi, 1, 0, OpenFlags.SEEK_SET)));
    }

    @Test
    void shouldUnlinkAFile() throws IOException {
        Path file = Files.writeString(dir.resolve("gone"), "x");
        assertEquals(0, inKernel(wi -> sys.unlink(wi, file.toString())));
        assertFalse(Files.exists(file));
        assertEquals(-Errno.ENOENT, inKernel(wi -> sys.unlink(wi, file.toString())));
    }

    @Test
    void shouldDenyWhatThePolicyRefusesWithEpermAndDoNothing() throws IOException {
        Path file = Files.writeString(dir.resolve("keep"), "x");
        f.services.setSyscallPolicy(SyscallPolicy.deny(Set.of(Syscall.UNLINK, Syscall.GETPID)));
        assertEquals(-Errno.EPERM, inKernel(wi -> sys.unlink(wi, file.toString())));
        assertEquals(-Errno.EPERM, inKernel(wi -> sys.getpid(wi)));
        assertTrue(Files.exists(file));
    }

    @Test
    void shouldConfineOpenToADirectoryWithAPathPolicy() throws IOException {
        Path inside = Files.writeString(dir.resolve("in"), "x");
        Path outside = Files.createTempFile("hsa4j-outside", ".txt");
        try {
            f.services.setSyscallPolicy(SyscallPolicy.pathsUnder(dir));
            assertTrue(inKernel(wi -> {
                long fd = sys.open(wi, inside.toString(), OpenFlags.O_RDONLY, 0);
                sys.close(wi, fd);
                return fd;
            }) >= 3);
            assertEquals(-Errno.EPERM, inKernel(wi -> sys.open(wi, outside.toString(), OpenFlags.O_RDONLY, 0)));
            assertEquals(-Errno.EPERM, inKernel(wi -> sys.open(wi, dir.resolve("../x").toString(),
                    OpenFlags.O_RDONLY, 0)));
        } finally {
            Files.deleteIfExists(outside);
        }
    }

    @Test
    void shouldReturnTheHostProcessId() {
        assertEquals(ProcessHandle.current().pid(), inKernel(wi -> sys.getpid(wi)));
    }

    @Test
    void shouldReadTheRealtimeClockIntoATimespec() {
        long ts = f.rt.hostMalloc(TimespecLayout.BYTES);
        long before = Instant.now().getEpochSecond();
        assertEquals(0, inKernel(wi -> sys.clockGettime(wi, Clocks.CLOCK_REALTIME, ts)));
        long after = Instant.now().getEpochSecond();
        long sec = host.getLong(ts + TimespecLayout.TV_SEC);
        assertTrue(sec >= before && sec <= after);
        long nsec = host.getLong(ts + TimespecLayout.TV_NSEC);
        assertTrue(nsec >= 0 && nsec < 1_000_000_000L);
        assertEquals(-Errno.EINVAL, inKernel(wi -> sys.clockGettime(wi, 42, 0)));
    }

    @Test
    void shouldSleepAtLeastTheRequestedTime() {
        long elapsed = inKernel(wi -> {
            long t0 = sys.clockNanos(wi, Clocks.CLOCK_MONOTONIC);
            long r = sys.nanosleep(wi, 20_000_000);
            long t1 = sys.clockNanos(wi, Clocks.CLOCK_MONOTONIC);
            return r < 0 ? r : t1 - t0;
        });
        assertTrue(elapsed >= 20_000_000, "slept " + elapsed + " ns");
        assertEquals(-Errno.EINVAL, inKernel(wi -> sys.nanosleep(wi, -1)));
    }

    @Test
    void shouldGiveOpenFilesTheLowestFreeDescriptors() throws IOException {
        Path file = Files.writeString(dir.resolve("fds"), "x");
        long packed = inKernel(wi -> {
            long a = sys.open(wi, file.toString(), OpenFlags.O_RDONLY, 0);
            long b = sys.open(wi, file.toString(), OpenFlags.O_RDONLY, 0);
            sys.close(wi, a);
            long c = sys.open(wi, file.toString(), OpenFlags.O_RDONLY, 0);
            sys.close(wi, b);
            sys.close(wi, c);
            return a * 10000 + b * 100 + c;
        });
        assertEquals(3 * 10000 + 4 * 100 + 3, packed);
        assertEquals(3, f.services.syscallService().fds().openCount());
    }
}
