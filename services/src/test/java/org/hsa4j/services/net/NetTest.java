package org.hsa4j.services.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;

import org.hsa4j.memory.Svm;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.hsa4j.services.syscall.Errno;
import org.hsa4j.queue.DispatchCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NetTest {
    private Fixture f;
    private Net net;
    private Svm host;

    @BeforeEach
    void start() {
        f = Fixture.start();
        net = f.services.net();
        host = f.rt.svm();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private long svmBytes(byte[] bytes) {
        long a = f.rt.hostMalloc(Math.max(1, bytes.length));
        host.segment(a, bytes.length).copyFrom(MemorySegment.ofArray(bytes));
        return a;
    }

    @Test
    void shouldExchangeBytesWithANettyEchoServerOnLoopback() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    ctx.writeAndFlush(msg);
                                }
                            });
                        }
                    }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            byte[] message = "hello from a work-item, ".repeat(400).getBytes(StandardCharsets.UTF_8);
            long out = svmBytes(message);
            long in = f.rt.hostMalloc(message.length);
            long results = f.rt.hostMalloc(24);
            Kernels.run(f.rt, f.queue, (wi, r) -> {
                long c = net.connect(wi, NetOp.LOOPBACK, port);
                long sent = net.send(wi, c, out, message.length);
                long got = 0;
                while (got < message.length) {
                    long n = net.recv(wi, c, in + got, message.length - got);
                    if (n <= 0) {
                        break;
                    }
                    got += n;
                }
                wi.svm().setLong(r, c);
                wi.svm().setLong(r + 8, sent);
                wi.svm().setLong(r + 16, got);
                net.close(wi, c);
            }, results);
            assertTrue(host.getLong(results) > 0, "connection id " + host.getLong(results));
            assertEquals(message.length, host.getLong(results + 8));
            assertEquals(message.length, host.getLong(results + 16));
            assertArrayEquals(message, host.segment(in, message.length).toArray(ValueLayout.JAVA_BYTE));
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void shouldAcceptAConnectionFromTheHostAndSeeItsClose() throws Exception {
        long shared = f.rt.hostMalloc(8 * 5);
        long buf = f.rt.hostMalloc(64);
        long reply = svmBytes("pong".getBytes(StandardCharsets.US_ASCII));
        DispatchCompletion done = Kernels.launch(f.rt, f.queue, wi -> {
            Svm svm = wi.svm();
            long r = Kernels.arg(wi, 0);
            long l = net.listen(wi, NetOp.LOOPBACK, 0, 8);
            svm.storeLongRelease(r, net.localPort(wi, l));
            long c = net.accept(wi, l);
            svm.setLong(r + 8, net.recv(wi, c, buf, 64));
            svm.setLong(r + 16, net.send(wi, c, reply, 4));
            svm.setLong(r + 24, net.recv(wi, c, buf + 4, 60));
            net.close(wi, c);
            svm.setLong(r + 32, net.close(wi, l));
        }, 1, 1, shared);
        long port;
        while ((port = host.loadLongAcquire(shared)) == 0) {
            LockSupport.parkNanos(1_000_000);
        }
        assertTrue(port > 0, "listen gave " + port);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), (int) port)) {
            OutputStream o = s.getOutputStream();
            o.write("ping".getBytes(StandardCharsets.US_ASCII));
            o.flush();
            InputStream i = s.getInputStream();
            byte[] answer = i.readNBytes(4);
            assertEquals("pong", new String(answer, StandardCharsets.US_ASCII));
        }
        Kernels.await(done);
        assertEquals(4, host.getLong(shared + 8));
        assertEquals("ping", new String(host.segment(buf, 4).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII));
        assertEquals(4, host.getLong(shared + 16));
        assertEquals(0, host.getLong(shared + 24), "recv after the peer closed returns 0");
        assertEquals(0, host.getLong(shared + 32));
        assertEquals(0, f.services.netService().openSockets());
    }

    @Test
    void shouldReturnEconnrefusedForAPortNobodyListensOn() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        long r = f.rt.hostMalloc(8);
        Kernels.run(f.rt, f.queue, (wi, out) -> wi.svm().setLong(out, net.connect(wi, NetOp.LOOPBACK, port)), r);
        assertEquals(-Errno.ECONNREFUSED, host.getLong(r));
    }

    @Test
    void shouldDenyAddressesOutsideLoopbackByDefault() {
        long r = f.rt.hostMalloc(16);
        Kernels.run(f.rt, f.queue, (wi, out) -> {
            wi.svm().setLong(out, net.connect(wi, 0x0A000001, 80));
            wi.svm().setLong(out + 8, net.listen(wi, 0, 0, 1));
        }, r);
        assertEquals(-Errno.EPERM, host.getLong(r));
        assertEquals(-Errno.EPERM, host.getLong(r + 8));
    }

    @Test
    void shouldRefuseToListenOnAPrivilegedLoopbackPortByDefault() {
        long r = f.rt.hostMalloc(8);
        Kernels.run(f.rt, f.queue, (wi, out) -> wi.svm().setLong(out, net.listen(wi, NetOp.LOOPBACK, 1, 1)), r);
        assertEquals(-Errno.EPERM, host.getLong(r));
        assertEquals(0, f.services.netService().openSockets());
    }

    @Test
    void shouldConnectOnlyToThePortsOnTheAllowList() throws Exception {
        try (ServerSocket listed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             ServerSocket unlisted = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            f.services.netService().setPolicy(NetPolicy.loopbackPorts(listed.getLocalPort()));
            long r = f.rt.hostMalloc(16);
            Kernels.run(f.rt, f.queue, (wi, out) -> {
                wi.svm().setLong(out, net.connect(wi, NetOp.LOOPBACK, listed.getLocalPort()));
                wi.svm().setLong(out + 8, net.connect(wi, NetOp.LOOPBACK, unlisted.getLocalPort()));
            }, r);
            assertTrue(host.getLong(r) >= 0, "listed port: " + host.getLong(r));
            assertEquals(-Errno.EPERM, host.getLong(r + 8));
        }
    }

    @Test
    void shouldReturnEbadfForAnUnknownSocket() {
        long buf = f.rt.hostMalloc(8);
        long r = f.rt.hostMalloc(24);
        Kernels.run(f.rt, f.queue, (wi, out) -> {
            wi.svm().setLong(out, net.send(wi, 999, buf, 8));
            wi.svm().setLong(out + 8, net.recv(wi, 999, buf, 8));
            wi.svm().setLong(out + 16, net.close(wi, 999));
        }, r);
        assertEquals(-Errno.EBADF, host.getLong(r));
        assertEquals(-Errno.EBADF, host.getLong(r + 8));
        assertEquals(-Errno.EBADF, host.getLong(r + 16));
    }
}
