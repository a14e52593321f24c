package org.hsa4j.examples;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.hsa4j.memory.Svm;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
import org.hsa4j.services.syscall.OpenFlags;
import org.hsa4j.services.syscall.Syscalls;

/**
 * Work-items ask the host for system calls and use the results: each one reads the clock and
 * the process id, writes a line made of them into its own slot of a file ({@code pwrite}), reads
 * the slot back ({@code pread}) and checks that what it reads is what it wrote. The host then
 * checks the file and the values against its own pid and clock.
 */
public final class SyscallExample implements Example {
    private static final int LINE = 64;

    @Override
    public String name() {
        return "syscall";
    }

    @Override
    public String description() {
        return "work-items call the host: clock_gettime, getpid, open/pwrite/pread/close on a file, and use the results";
    }

    @Override
    public void run(PrintStream out, boolean small) throws IOException {
        int n = small ? 16 : 256;
        Path file = Files.createTempFile("hsa4j-syscall", ".txt");
        try (HsaRuntime rt = HsaRuntime.init(); Services services = Services.start(rt)) {
            Syscalls sys = services.syscalls();
            Queue queue = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
            long written = rt.hostMalloc((long) LINE * n);
            long readBack = rt.hostMalloc((long) LINE * n);
            long results = rt.hostMalloc(8L * 3 * n);
            String path = file.toString();

            long before = System.currentTimeMillis() * 1_000_000L;
            long start = System.nanoTime();
            KernelLaunch.run(rt, queue, wi -> {
                int i = (int) wi.flatGlobalId();
                Svm svm = wi.svm();
                long now = sys.clockNanos(wi, OpenFlags.CLOCK_REALTIME);
                long pid = sys.getpid(wi);
                byte[] line = line(i, pid, now);
                long mine = KernelLaunch.arg(wi, 0) + (long) LINE * i;
                long theirs = KernelLaunch.arg(wi, 1) + (long) LINE * i;
                svm.segment(mine, LINE).copyFrom(MemorySegment.ofArray(line));
                long fd = sys.open(wi, path, OpenFlags.O_RDWR, 0);
                long wrote = sys.pwrite(wi, fd, mine, LINE, (long) LINE * i);
                long read = sys.pread(wi, fd, theirs, LINE, (long) LINE * i);
                long closed = sys.close(wi, fd);
                boolean same = Arrays.equals(line, svm.segment(theirs, LINE).toArray(ValueLayout.JAVA_BYTE));
                long ok = fd >= 0 && wrote == LINE && read == LINE && closed == 0 && same ? 1 : 0;
                long r = KernelLaunch.arg(wi, 2) + 24L * i;
                svm.setLong(r, ok);
                svm.setLong(r + 8, pid);
                svm.setLong(r + 16, now);
            }, n, Math.min(n, 64), written, readBack, results);
            long elapsed = System.nanoTime() - start;
            long after = System.currentTimeMillis() * 1_000_000L + 1_000_000L;
            queue.destroy();

            long pid = ProcessHandle.current().pid();
            List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
            if (lines.size() != n) {
                throw new AssertionError("the file has " + lines.size() + " lines, expected " + n);
            }
            Svm host = rt.svm();
            for (int i = 0; i < n; i++) {
                long r = results + 24L * i;
                long now = host.getLong(r + 16);
                if (host.getLong(r) != 1) {
                    throw new AssertionError("work-item " + i + " did not read back what it wrote");
                }
                if (host.getLong(r + 8) != pid) {
                    throw new AssertionError("work-item " + i + " got pid " + host.getLong(r + 8) + ", expected " + pid);
                }
                if (now < before || now > after) {
                    throw new AssertionError("work-item " + i + " read the clock at " + now + ", outside the run");
                }
                String expected = new String(line(i, pid, now), StandardCharsets.US_ASCII).stripTrailing();
                if (!lines.get(i).stripTrailing().equals(expected)) {
                    throw new AssertionError("line " + i + " is '" + lines.get(i) + "'");
                }
            }
            out.printf("syscall: %d work-items each called clock_gettime, getpid (%d, this JVM), open, pwrite, pread "
                    + "and close; every line read back as written and the host finds all %d in %s%n", n, pid, n,
                    file.getFileName());
            out.printf("syscall: %.2f ms for %d system calls, %.1f us each%n", elapsed / 1e6, 6 * n,
                    elapsed / 1e3 / (6 * n));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** A fixed-width line: work-item, pid and clock, space-padded, ending in a newline. */
    private static byte[] line(int workItem, long pid, long nanos) {
        String text = String.format("work-item %5d pid %8d clock %d", workItem, pid, nanos);
        byte[] line = new byte[LINE];
        Arrays.fill(line, (byte) ' ');
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, line, 0, Math.min(bytes.length, LINE - 1));
        line[LINE - 1] = '\n';
        return line;
    }
}
