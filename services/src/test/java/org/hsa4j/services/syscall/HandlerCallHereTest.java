package org.hsa4j.services.syscall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.Pipe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.services.Callers;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.RpcStatus;
import org.hsa4j.services.rpc.ServiceMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handler call (file I/O) that finds no other port waiting runs on the server thread that found
 * it; one that blocks there (a read on an empty pipe) stalls no other port's call: the substitute
 * server thread scans in its place.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HandlerCallHereTest {
    private static final int OPCODE = Opcodes.of(Opcodes.USER_NAMESPACE_FIRST, 7);

    @TempDir
    Path dir;

    /** Calls a HANDLER service once from a kernel of {@code f}; returns the name of the thread it ran on. */
    private static String threadOfAHandlerCall(Fixture f) {
        AtomicReference<String> ranOn = new AtomicReference<>();
        f.services.registerService("test", OPCODE, ServiceMode.HANDLER,
                call -> ranOn.set(Thread.currentThread().getName()));
        long out = f.rt.hostMalloc(8);
        Kernels.run(f.rt, f.queue, (wi, o) -> wi.svm().setLong(o,
                f.services.client().invoke(wi, OPCODE, new long[8]).ordinal()), out);
        assertEquals(RpcStatus.OK.ordinal(), f.rt.svm().getLong(out));
        return ranOn.get();
    }

    @Test
    void shouldRunAHandlerCallOnTheServerThreadWhenNoOtherPortWaits() {
        try (Fixture f = Fixture.start()) {
            String ranOn = threadOfAHandlerCall(f);
            assertTrue(ranOn.contains("-server-"), "ran on " + ranOn);
        }
    }

    @Test
    void shouldHandEveryHandlerCallToAHandlerThreadWhenTheServerThreadMayNotRunThem() {
        try (Fixture f = Fixture.start(ServicesConfig.builder().handlerCallsOnServerThread(false))) {
            String ranOn = threadOfAHandlerCall(f);
            assertTrue(ranOn.contains("-handler-"), "ran on " + ranOn);
        }
    }

    @Test
    void shouldCompleteOtherCallersPreadsWhileOneWorkItemBlocksInAPipeReadOnTheServerThread() throws Exception {
        Path file = dir.resolve("data.bin");
        byte[] content = new byte[4096];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 7);
        }
        Files.write(file, content);
        Pipe pipe = Pipe.open();
        CountDownLatch reading = new CountDownLatch(1);
        AtomicReference<String> readOn = new AtomicReference<>();
        InputStream fromPipe = Channels.newInputStream(pipe.source());
        InputStream watched = new InputStream() {
            @Override
            public int read() throws IOException {
                return fromPipe.read();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                readOn.set(Thread.currentThread().getName());
                reading.countDown();
                return fromPipe.read(b, off, len);
            }
        };
        try (Fixture f = Fixture.start(ServicesConfig.builder());
             FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            FdTable fds = f.services.syscallService().fds();
            int pipeFd = fds.install(new FdTable.StreamEntry("pipe", watched, null));
            int fileFd = fds.install(new FdTable.FileEntry(channel, file, OpenFlags.O_RDONLY, false));
            Syscalls sys = f.services.syscalls();
            long pipeBuffer = f.rt.hostMalloc(8);
            long readResult = f.rt.hostMalloc(8);
            DispatchCompletion reader = Kernels.launch(f.rt, f.queue,
                    wi -> wi.svm().setLong(Kernels.arg(wi, 0), sys.read(wi, pipeFd, pipeBuffer, 8)), 1, 1, readResult);
            assertTrue(reading.await(Callers.WAIT_SECONDS, TimeUnit.SECONDS), "the pipe read never started");
            assertTrue(readOn.get().contains("-server-"), "the pipe read ran on " + readOn.get());

            long buffer = f.rt.hostMalloc(64);
            int reads = Callers.start("preads while the pipe read blocks", () -> {
                int done = 0;
                for (int i = 0; i < 32; i++) {
                    long[] args = {fileFd, buffer, 64, 64L * i, 0, 0, 0, 0};
                    RpcStatus s = f.services.client().invoke(f.rt.svm(), 0, 0, Syscall.PREAD.opcode(), args);
                    if (s == RpcStatus.OK && args[0] == 64
                            && f.rt.svm().getByte(buffer + 5) == content[64 * i + 5]) {
                        done++;
                    }
                }
                return done;
            }).result();
            assertEquals(32, reads);
            assertFalse(reader.join(0, TimeUnit.MILLISECONDS), "the pipe read ended before anything was written");

            pipe.sink().write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            Kernels.await(reader);
            assertEquals(3, f.rt.svm().getLong(readResult));
        } finally {
            pipe.sink().close();
            pipe.source().close();
        }
    }
}
