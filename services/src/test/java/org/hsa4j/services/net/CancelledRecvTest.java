package org.hsa4j.services.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.Svm;
import org.hsa4j.services.Callers;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.rpc.RpcClient;
import org.hsa4j.services.rpc.RpcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A cancelled recv never writes its caller's buffer, and the bytes it would have taken go to the next recv. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CancelledRecvTest {
    private static final byte[] LATE = "bytes that came after the cancel".getBytes(StandardCharsets.US_ASCII);

    private Fixture f;
    private Svm host;
    private RpcClient client;

    @BeforeEach
    void start() {
        f = Fixture.start();
        host = f.rt.svm();
        client = f.services.client();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private long[] call(NetOp op, long... args) {
        long[] inOut = Arrays.copyOf(args, 8);
        assertEquals(RpcStatus.OK, client.invoke(host, 0, 0, op.opcode(), inOut));
        return inOut;
    }

    @Test
    void shouldLeaveACancelledRecvsFreedBufferAloneAndGiveItsBytesToTheNextRecv() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            long connection = call(NetOp.CONNECT, NetOp.LOOPBACK, listener.getLocalPort())[0];
            assertTrue(connection > 0, "connect gave " + connection);
            try (Socket peer = listener.accept()) {
                long first = f.rt.hostMalloc(64);
                Callers.Caller<RpcStatus> waiting = Callers.start("recv to be cancelled",
                        () -> client.invoke(host, 0, 0, NetOp.RECV.opcode(), new long[] {connection, first, 64, 0, 0, 0, 0, 0}));
                waiting.awaitWaitingForReply().thread().interrupt();
                assertEquals(RpcStatus.CANCELLED, waiting.result());

                // the caller frees its buffer; the next allocation of that size may take its place
                f.rt.free(first);
                long reused = f.rt.hostMalloc(64);
                host.fill(reused, 64, (byte) 0x5A);

                OutputStream out = peer.getOutputStream();
                out.write(LATE);
                out.flush();
                peer.shutdownOutput();

                long second = f.rt.hostMalloc(64);
                long got = 0;
                while (got < LATE.length) {
                    long n = call(NetOp.RECV, connection, second + got, 64 - got)[0];
                    if (n <= 0) {
                        break;
                    }
                    got += n;
                }
                assertEquals(LATE.length, got, "the next recv gets every byte");
                assertArrayEquals(LATE, host.segment(second, LATE.length).toArray(ValueLayout.JAVA_BYTE));
                byte[] untouched = new byte[64];
                Arrays.fill(untouched, (byte) 0x5A);
                assertArrayEquals(untouched, host.segment(reused, 64).toArray(ValueLayout.JAVA_BYTE),
                        "nothing was written where the cancelled recv's buffer was");
            }
        }
    }
}
