package org.hsa4j.examples;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

import org.hsa4j.amp.Accelerator;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.ContextKernel;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.Index;
import org.hsa4j.amp.LongArrayView;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
import org.hsa4j.services.syscall.Clocks;
import org.hsa4j.services.syscall.OpenFlags;
import org.hsa4j.services.syscall.Syscalls;

/**
 * A C++AMP kernel asks the host for system calls and uses the results (HCC's syscall sample):
 * each index of a parallelForEach, through its kernel context, reads the clock and the process id,
 * writes a line made of them into its own slot of a file ({@code pwrite}), reads the slot back
 * ({@code pread}) and checks that what it reads is what it wrote. The kernel runs a few times to
 * warm up, then is timed; the host checks the file and the last run's values against its own pid
 * and clock. Baseline: the same six calls made by one Java thread through the JDK (clock, pid,
 * FileChannel open, positional write and read, close).
 */
public final class SyscallExample implements Example {
    private static final int LINE = 64;
    private static final int CALLS = 6;
    private static final int WARMUP_RUNS = 5;
    private static final int TIMED_RUNS = 10;

    @Override
    public String name() {
        return "syscall";
    }

    @Override
    public String description() {
        return "a C++AMP kernel calls the host: clock_gettime, getpid, open/pwrite/pread/close on a file, and uses "
                + "the results";
    }

    @Override
    public void run(PrintStream out, boolean small) throws IOException {
        int n = small ? 16 : 256;
        Path file = Files.createTempFile("hsa4j-syscall", ".txt");
        try (HsaRuntime rt = HsaRuntime.init(); Services services = Services.start(rt); Amp amp = Amp.on(rt)) {
            Syscalls sys = services.syscalls();
            Accelerator acc = amp.defaultAccelerator();
            LongArrayView written = acc.newLongs(n * LINE / 8);
            LongArrayView readBack = acc.newLongs(n * LINE / 8);
            LongArrayView ok = acc.newLongs(n);
            LongArrayView pids = acc.newLongs(n);
            LongArrayView clocks = acc.newLongs(n);
            String path = file.toString();
            ContextKernel kernel = (idx, ctx) -> {
                int i = idx.get(0);
                Svm svm = ctx.svm();
                long now = sys.clockNanos(ctx, Clocks.CLOCK_REALTIME);
                long pid = sys.getpid(ctx);
                byte[] line = line(i, pid, now);
                long mine = written.address(new Index(i * LINE / 8));
                long theirs = readBack.address(new Index(i * LINE / 8));
                svm.segment(mine, LINE).copyFrom(MemorySegment.ofArray(line));
                long fd = sys.open(ctx, path, OpenFlags.O_RDWR, 0);
                long wrote = sys.pwrite(ctx, fd, mine, LINE, (long) LINE * i);
                long read = sys.pread(ctx, fd, theirs, LINE, (long) LINE * i);
                long closed = sys.close(ctx, fd);
                boolean same = Arrays.equals(line, svm.segment(theirs, LINE).toArray(ValueLayout.JAVA_BYTE));
                ok.set(idx, fd >= 0 && wrote == LINE && read == LINE && closed == 0 && same ? 1 : 0);
                pids.set(idx, pid);
                clocks.set(idx, now);
            };

            long first = System.nanoTime();
            amp.parallelForEachAndWait(new Extent(n), kernel);
            long firstRun = System.nanoTime() - first;
            for (int r = 1; r < WARMUP_RUNS; r++) {
                amp.parallelForEachAndWait(new Extent(n), kernel);
            }
            long before = System.currentTimeMillis() * 1_000_000L;
            long start = System.nanoTime();
            for (int r = 0; r < TIMED_RUNS; r++) {
                amp.parallelForEachAndWait(new Extent(n), kernel);
            }
            long steady = (System.nanoTime() - start) / TIMED_RUNS;
            long after = System.currentTimeMillis() * 1_000_000L + 1_000_000L;

            long pid = ProcessHandle.current().pid();
            List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
            if (lines.size() != n) {
                throw new AssertionError("the file has " + lines.size() + " lines, expected " + n);
            }
            for (int i = 0; i < n; i++) {
                long now = clocks.get(i);
                if (ok.get(i) != 1) {
                    throw new AssertionError("index " + i + " did not read back what it wrote");
                }
                if (pids.get(i) != pid) {
                    throw new AssertionError("index " + i + " got pid " + pids.get(i) + ", expected " + pid);
                }
                if (now < before || now > after) {
                    throw new AssertionError("index " + i + " read the clock at " + now + ", outside the timed runs");
                }
                String expected = new String(line(i, pid, now), StandardCharsets.US_ASCII).stripTrailing();
                if (!lines.get(i).stripTrailing().equals(expected)) {
                    throw new AssertionError("line " + i + " is '" + lines.get(i) + "'");
                }
            }

            for (int r = 0; r < WARMUP_RUNS; r++) {
                onHost(file, n);
            }
            long hostStart = System.nanoTime();
            for (int r = 0; r < TIMED_RUNS; r++) {
                onHost(file, n);
            }
            long host = (System.nanoTime() - hostStart) / TIMED_RUNS;

            out.printf("syscall: %d indices of a parallelForEach each called clock_gettime, getpid (%d, this JVM), "
                    + "open, pwrite, pread and close through their kernel context; every line read back as written "
                    + "and the host finds all %d in %s%n", n, pid, n, file.getFileName());
            out.printf("syscall: steady state %.2f us per system call (%d calls a run, %d runs after %d warm-up runs; "
                    + "first run %.2f us a call) against %.2f us for the same calls from one Java thread through the "
                    + "JDK (baseline)%n", steady / 1e3 / (CALLS * n), CALLS * n, TIMED_RUNS, WARMUP_RUNS,
                    firstRun / 1e3 / (CALLS * n), host / 1e3 / (CALLS * n));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** The baseline: every index's six calls on the calling thread through the JDK. */
    private static void onHost(Path file, int n) throws IOException {
        ByteBuffer back = ByteBuffer.allocate(LINE);
        for (int i = 0; i < n; i++) {
            long now = System.currentTimeMillis() * 1_000_000L;
            long pid = ProcessHandle.current().pid();
            byte[] line = line(i, pid, now);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(line), (long) LINE * i);
                back.clear();
                ch.read(back, (long) LINE * i);
            }
            if (!Arrays.equals(line, back.array())) {
                throw new AssertionError("the host baseline read back another line " + i);
            }
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
