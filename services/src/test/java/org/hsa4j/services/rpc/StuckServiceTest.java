package org.hsa4j.services.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.hsa4j.services.Callers;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.services.printf.Printf;
import org.hsa4j.services.syscall.OpenFlags;
import org.hsa4j.services.syscall.Syscalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A stuck service never blocks the other services, and its caller gets TIMEOUT. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StuckServiceTest {
    private static final int STUCK = Opcodes.of(Opcodes.USER_NAMESPACE_FIRST, 1);
    private static final int PLUS_ONE = Opcodes.of(Opcodes.USER_NAMESPACE_FIRST, 2);
    /** Long enough that no call of the test but the stuck ones runs that long, even on a loaded machine. */
    private static final long SERVICE_TIMEOUT = TimeUnit.SECONDS.toNanos(2);

    @TempDir
    Path dir;

    /** Released at the end of each test, so the stuck services return and their threads end. */
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void unstick() {
        release.countDown();
    }

    /** Registers a service of {@code mode} that blocks until the test ends, counting {@code entered} down first. */
    private void registerStuck(Fixture f, ServiceMode mode, CountDownLatch entered) {
        f.services.registerService("test", STUCK, mode, call -> {
            entered.countDown();
            release.await();
        });
    }

    private static Callers.Caller<RpcStatus> callStuck(Fixture f, String name) {
        return Callers.start(name, () -> f.services.client().invoke(f.rt.svm(), 0, 0, STUCK, new long[8]));
    }

    @Test
    void shouldTimeOutAStuckInlineServiceAndKeepServingEveryOtherCall() throws InterruptedException {
        try (Fixture f = Fixture.start(ServicesConfig.builder().serverThreads(1).serviceTimeoutNanos(SERVICE_TIMEOUT))) {
            CountDownLatch entered = new CountDownLatch(1);
            registerStuck(f, ServiceMode.INLINE, entered);
            f.services.registerService("test", PLUS_ONE, ServiceMode.INLINE, call -> call.result(0, call.arg(0) + 1));
            RpcClient client = f.services.client();
            Callers.Caller<RpcStatus> stuck = callStuck(f, "stuck inline caller");
            assertTrue(entered.await(Callers.WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(7L, Callers.start("echo", () -> client.call(f.rt.svm(), Opcodes.ECHO, 7)).result());
            assertEquals(42L, Callers.start("plus one", () -> client.call(f.rt.svm(), PLUS_ONE, 41)).result());
            assertEquals(RpcStatus.TIMEOUT, stuck.result());
            assertEquals(1, f.services.server().stuckCalls());
        }
    }

    @Test
    void shouldTimeOutTwoStuckHandlerCallsAndKeepPrintfAndFileIoGoing() throws Exception {
        ConcurrentLinkedQueue<String> printed = new ConcurrentLinkedQueue<>();
        try (Fixture f = Fixture.start(ServicesConfig.builder().handlerThreads(2).serviceTimeoutNanos(SERVICE_TIMEOUT)
                .printfSink(printed::add))) {
            CountDownLatch entered = new CountDownLatch(2);
            registerStuck(f, ServiceMode.HANDLER, entered);
            Callers.Caller<RpcStatus> first = callStuck(f, "stuck handler caller 1");
            Callers.Caller<RpcStatus> second = callStuck(f, "stuck handler caller 2");
            assertTrue(entered.await(Callers.WAIT_SECONDS, TimeUnit.SECONDS), "both handlers are stuck");

            Printf printf = f.services.printf();
            Syscalls sys = f.services.syscalls();
            Path file = dir.resolve("behind-stuck-handlers.txt");
            byte[] text = "file I/O goes on\n".getBytes(StandardCharsets.UTF_8);
            long buf = f.rt.hostMalloc(text.length);
            f.rt.svm().segment(buf, text.length).copyFrom(MemorySegment.ofArray(text));
            long out = f.rt.hostMalloc(16);
            Callers.start("printf and write", () -> {
                Kernels.run(f.rt, f.queue, (wi, r) -> {
                    wi.svm().setLong(r, printf.printf(wi, "printf goes on %d\n", 3));
                    long fd = sys.open(wi, file.toString(), OpenFlags.O_CREAT | OpenFlags.O_WRONLY | OpenFlags.O_TRUNC, 0644);
                    wi.svm().setLong(r + 8, fd < 0 ? fd : sys.write(wi, fd, buf, text.length));
                    sys.close(wi, fd);
                }, out);
                return null;
            }).result();
            assertEquals("printf goes on 3\n".length(), f.rt.svm().getLong(out));
            assertEquals(text.length, f.rt.svm().getLong(out + 8));
            assertEquals("printf goes on 3\n", String.join("", printed));
            assertEquals(new String(text, StandardCharsets.UTF_8), Files.readString(file));
            assertEquals(RpcStatus.TIMEOUT, first.result());
            assertEquals(RpcStatus.TIMEOUT, second.result());
        }
    }
}
