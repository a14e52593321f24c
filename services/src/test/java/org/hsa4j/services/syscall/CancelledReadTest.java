package org.hsa4j.services.syscall;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.hsa4j.services.Callers;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.services.rpc.RpcStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A read from a stream that blocks past its call's end leaves the caller's buffer alone. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CancelledReadTest {
    @Test
    void shouldNotWriteTheBufferOfAReadCancelledWhileTheStreamBlocked() throws Exception {
        CountDownLatch reading = new CountDownLatch(1);
        CountDownLatch data = new CountDownLatch(1);
        CountDownLatch returned = new CountDownLatch(1);
        InputStream slow = new InputStream() {
            @Override
            public int read() {
                throw new UnsupportedOperationException();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                reading.countDown();
                try {
                    data.await();
                } catch (InterruptedException e) {
                    throw new InterruptedIOException();
                }
                Arrays.fill(b, off, off + Math.min(len, 8), (byte) 'x');
                returned.countDown();
                return Math.min(len, 8);
            }
        };
        // one handler thread: the CLOSE below runs only after the cancelled read's service returned
        try (Fixture f = Fixture.start(ServicesConfig.builder().handlerThreads(1))) {
            int fd = f.services.syscallService().fds().install(new FdTable.StreamEntry("slow", slow, null));
            long buffer = f.rt.hostMalloc(8);
            f.rt.svm().fill(buffer, 8, (byte) '-');
            Callers.Caller<RpcStatus> caller = Callers.start("reader", () -> f.services.client().invoke(f.rt.svm(), 0, 0,
                    Syscall.READ.opcode(), new long[] {fd, buffer, 8, 0, 0, 0, 0, 0}));
            assertTrue(reading.await(Callers.WAIT_SECONDS, TimeUnit.SECONDS));
            caller.awaitWaitingForReply().thread().interrupt();
            assertEquals(RpcStatus.CANCELLED, caller.result());
            data.countDown();
            assertTrue(returned.await(Callers.WAIT_SECONDS, TimeUnit.SECONDS));
            long[] close = {fd, 0, 0, 0, 0, 0, 0, 0};
            assertEquals(RpcStatus.OK, Callers.start("close after the read", () -> f.services.client().invoke(f.rt.svm(),
                    0, 0, Syscall.CLOSE.opcode(), close)).result());
            assertEquals(0, close[0]);
            byte[] untouched = new byte[8];
            Arrays.fill(untouched, (byte) '-');
            assertArrayEquals(untouched, f.rt.svm().segment(buffer, 8).toArray(ValueLayout.JAVA_BYTE));
        }
    }
}
