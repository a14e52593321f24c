package org.hsa4j.services.net;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import org.hsa4j.memory.MemoryFaultException;
import org.hsa4j.memory.Svm;
import org.hsa4j.services.rpc.OpcodeRegistry;
import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.RpcStatus;
import org.hsa4j.services.rpc.ServerCall;
import org.hsa4j.services.rpc.ServiceMode;
import org.hsa4j.services.syscall.Errno;

/**
 * The host side of the network service: TCP listen, accept, connect, send, recv and close for
 * kernels, served by Netty's event loop. Every call only starts Netty work on the server thread
 * and {@linkplain ServerCall#defer() defers} its reply to the Netty callback that completes it, so
 * an accept that waits for a client or a recv that waits for data occupies no thread at all.
 *
 * <p>A waiting accept or recv whose call ended (its caller cancelled it, or it passed its
 * deadline) is skipped when its connection or data comes: the bytes a recv would have taken, and
 * the connection an accept would have got, go to the next one, and the ended call's buffer (which
 * may belong to another allocation by then) is never written. Taking the bytes, writing them and
 * finishing the call happen in {@link ServerCall#runIfLive}, so they happen before the call ends or
 * not at all.
 *
 * <p>Connections are read on demand (auto-read off): a recv with no buffered data asks the channel
 * for one read, so a kernel that does not read applies back-pressure to its peer. Data arrives in
 * SVM buffers the host may access; result 0 of a lane is the count, or {@code -errno}. Sockets live
 * in a per-services table of ids. The event loop starts with the first listen or connect.
 */
public final class NetService implements AutoCloseable {
    /** Owner name of the net namespace. */
    public static final String OWNER = "hsa4j-net";

    private final int threads;
    private final Map<Long, Object> sockets = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile NetPolicy policy;
    private volatile EventLoopGroup group;
    private volatile boolean closed;

    /** A network service with {@code threads} event-loop threads (started on first use). */
    public NetService(int threads, NetPolicy policy) {
        if (threads < 1) {
            throw new IllegalArgumentException("at least one event-loop thread, was " + threads);
        }
        this.threads = threads;
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** Claims the net namespace and registers every call. */
    public void register(OpcodeRegistry registry) {
        registry.claimNamespace(Opcodes.NET_NAMESPACE, OWNER);
        for (NetOp op : NetOp.values()) {
            registry.register(OWNER, op.opcode(), ServiceMode.INLINE, call -> serve(op, call));
        }
    }

    /** Replaces the policy. */
    public void setPolicy(NetPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** Open sockets (listening and connected). */
    public int openSockets() {
        return sockets.size();
    }

    private EventLoopGroup group() {
        EventLoopGroup g = group;
        if (g == null) {
            synchronized (this) {
                g = group;
                if (g == null) {
                    g = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("hsa4j-net", true),
                            NioIoHandler.newFactory());
                    group = g;
                }
            }
        }
        return g;
    }

    // ---- calls ----------------------------------------------------------------------------------

    /** Collects the lanes of a call as they complete (on any thread) and finishes it after the last. */
    private static final class LaneJoin {
        final ServerCall call;
        final long[][] values = new long[64][];
        final AtomicInteger remaining;

        LaneJoin(ServerCall call) {
            this.call = call;
            this.remaining = new AtomicInteger(Long.bitCount(call.laneMask()));
        }

        void done(int lane, long value) {
            done(lane, value, 0);
        }

        void done(int lane, long value, long second) {
            values[lane] = new long[] {value, second};
            if (remaining.decrementAndGet() == 0) {
                for (long m = call.laneMask(); m != 0; m &= m - 1) {
                    int l = Long.numberOfTrailingZeros(m);
                    call.result(l, 0, values[l][0]);
                    call.result(l, 1, values[l][1]);
                }
                call.finish(RpcStatus.OK);
            }
        }
    }

    private void serve(NetOp op, ServerCall call) {
        call.defer();
        LaneJoin join = new LaneJoin(call);
        for (long m = call.laneMask(); m != 0; m &= m - 1) {
            int lane = Long.numberOfTrailingZeros(m);
            try {
                if (closed) {
                    join.done(lane, -Errno.EIO);
                    continue;
                }
                switch (op) {
                    case LISTEN -> listen(join, lane, call.arg(lane, 0), call.arg(lane, 1), call.arg(lane, 2));
                    case ACCEPT -> accept(join, lane, call.arg(lane, 0));
                    case CONNECT -> connect(join, lane, call.arg(lane, 0), call.arg(lane, 1));
                    case SEND -> send(join, lane, call.svm(), call.arg(lane, 0), call.arg(lane, 1), call.arg(lane, 2));
                    case RECV -> recv(join, lane, call.svm(), call.arg(lane, 0), call.arg(lane, 1), call.arg(lane, 2));
                    case CLOSE -> join.done(lane, close(call.arg(lane, 0)));
                    case LOCAL_PORT -> join.done(lane, localPort(call.arg(lane, 0)));
                }
            } catch (Throwable t) {
                join.done(lane, -errno(t));
            }
        }
    }

    private static InetSocketAddress address(long ipv4, long port) throws UnknownHostException {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port);
        }
        int ip = (int) ipv4;
        byte[] b = {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8), (byte) ip};
        return new InetSocketAddress(InetAddress.getByAddress(b), (int) port);
    }

    private long register(Object socket) {
        long id = ids.incrementAndGet();
        sockets.put(id, socket);
        if (closed && sockets.remove(id) != null) {
            closeSocket(socket);
            return -Errno.EIO;
        }
        return id;
    }

    // ---- listening ------------------------------------------------------------------------------

    /** A listening socket: connections not accepted yet and accepts waiting for a connection. */
    private final class Listener {
        volatile Channel channel;
        private final ArrayDeque<Connection> ready = new ArrayDeque<>();
        private final ArrayDeque<Object[]> waiting = new ArrayDeque<>();
        private boolean closedListener;

        /** Hands a new connection to the first waiting accept still live (a cancelled one is skipped), or keeps it ready. */
        void offer(Connection c) {
            while (true) {
                Object[] w;
                synchronized (this) {
                    if (closedListener) {
                        w = null;
                    } else {
                        w = waiting.poll();
                        if (w == null) {
                            ready.add(c);
                            return;
                        }
                    }
                }
                if (w == null) {
                    c.channel.close();
                    return;
                }
                LaneJoin join = (LaneJoin) w[0];
                int lane = (Integer) w[1];
                if (join.call.runIfLive(() -> hand(c, join, lane))) {
                    return;
                }
            }
        }

        void accept(LaneJoin join, int lane) {
            Connection c;
            synchronized (this) {
                if (closedListener) {
                    c = null;
                } else {
                    c = ready.poll();
                    if (c == null) {
                        waiting.add(new Object[] {join, lane});
                        return;
                    }
                }
            }
            if (c == null) {
                join.done(lane, -Errno.EBADF);
                return;
            }
            hand(c, join, lane);
        }

        private void hand(Connection c, LaneJoin join, int lane) {
            long id = register(c);
            InetSocketAddress peer = (InetSocketAddress) c.channel.remoteAddress();
            join.done(lane, id, peer == null ? 0 : peer.getPort());
        }

        void close() {
            Object[][] waiters;
            Connection[] pending;
            synchronized (this) {
                closedListener = true;
                waiters = waiting.toArray(new Object[0][]);
                pending = ready.toArray(new Connection[0]);
                waiting.clear();
                ready.clear();
            }
            if (channel != null) {
                channel.close();
            }
            for (Connection c : pending) {
                c.channel.close();
            }
            for (Object[] w : waiters) {
                ((LaneJoin) w[0]).done((Integer) w[1], -Errno.EBADF);
            }
        }
    }

    private void listen(LaneJoin join, int lane, long ipv4, long port, long backlog) throws UnknownHostException {
        InetSocketAddress at = address(ipv4, port);
        if (!policy.permits(NetOp.LISTEN, at)) {
            join.done(lane, -Errno.EPERM);
            return;
        }
        Listener listener = new Listener();
        ServerBootstrap b = new ServerBootstrap()
                .group(group())
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, backlog > 0 ? (int) Math.min(backlog, 4096) : 128)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        Connection c = new Connection(ch);
                        ch.pipeline().addLast(c.handler());
                        listener.offer(c);
                    }
                });
        b.bind(at).addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                join.done(lane, -errno(f.cause()));
                return;
            }
            listener.channel = f.channel();
            long id = register(listener);
            join.done(lane, id, ((InetSocketAddress) f.channel().localAddress()).getPort());
        });
    }

    private void accept(LaneJoin join, int lane, long id) {
        if (!(sockets.get(id) instanceof Listener l)) {
            join.done(lane, sockets.containsKey(id) ? -Errno.EINVAL : -Errno.EBADF);
            return;
        }
        l.accept(join, lane);
    }

    // ---- connections ----------------------------------------------------------------------------

    /** A connected socket: data received and not read yet, and recvs waiting for data. */
    private static final class Connection {
        volatile Channel channel;
        private final ArrayDeque<ByteBuf> inbound = new ArrayDeque<>();
        private final ArrayDeque<Recv> recvs = new ArrayDeque<>();
        private boolean eof;

        private record Recv(LaneJoin join, int lane, MemorySegment target) {
        }

        Connection(Channel channel) {
            this.channel = channel;
        }

        ChannelInboundHandlerAdapter handler() {
            return new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    synchronized (Connection.this) {
                        if (msg instanceof ByteBuf b && !eof) {
                            inbound.add(b);
                        } else {
                            io.netty.util.ReferenceCountUtil.release(msg);
                        }
                    }
                    serve();
                }

                @Override
                public void channelInactive(ChannelHandlerContext ctx) {
                    synchronized (Connection.this) {
                        eof = true;
                    }
                    serve();
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    ctx.close();
                }
            };
        }

        void recv(LaneJoin join, int lane, MemorySegment target) {
            synchronized (this) {
                recvs.add(new Recv(join, lane, target));
            }
            serve();
        }

        /** Answers waiting recvs from buffered data (or 0 at end of stream); asks for a read if some still wait. */
        private void serve() {
            while (true) {
                synchronized (this) {
                    if (recvs.isEmpty() || (inbound.isEmpty() && !eof)) {
                        boolean wantRead = !recvs.isEmpty() && !eof;
                        if (wantRead && channel != null) {
                            channel.read();
                        }
                        return;
                    }
                    Recv r = recvs.poll();
                    // a recv whose call ended (cancelled, past its deadline) is dropped: its
                    // caller's buffer may be someone else's now, and the bytes stay for the next recv
                    r.join.call.runIfLive(() -> r.join.done(r.lane, take(r.target)));
                }
            }
        }

        /** Moves buffered bytes into {@code target} (under this connection's lock): the count. */
        private long take(MemorySegment target) {
            long n = 0;
            while (n < target.byteSize() && !inbound.isEmpty()) {
                ByteBuf b = inbound.peek();
                int k = (int) Math.min(b.readableBytes(), target.byteSize() - n);
                b.readBytes(target.asSlice(n, k).asByteBuffer());
                n += k;
                if (!b.isReadable()) {
                    inbound.poll().release();
                }
            }
            return n;
        }

        void close() {
            Channel ch = channel;
            if (ch != null) {
                ch.close();
            }
            synchronized (this) {
                eof = true;
                for (ByteBuf b : inbound) {
                    b.release();
                }
                inbound.clear();
            }
            serve();
        }
    }

    private void connect(LaneJoin join, int lane, long ipv4, long port) throws UnknownHostException {
        InetSocketAddress at = address(ipv4, port);
        if (!policy.permits(NetOp.CONNECT, at)) {
            join.done(lane, -Errno.EPERM);
            return;
        }
        Connection c = new Connection(null);
        Bootstrap b = new Bootstrap()
                .group(group())
                .channel(NioSocketChannel.class)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)
                .handler(c.handler());
        b.connect(at).addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                join.done(lane, -errno(f.cause()));
                return;
            }
            c.channel = f.channel();
            join.done(lane, register(c));
        });
    }

    private void send(LaneJoin join, int lane, Svm svm, long id, long buffer, long count) {
        if (!(sockets.get(id) instanceof Connection c)) {
            join.done(lane, sockets.containsKey(id) ? -Errno.ENOTCONN : -Errno.EBADF);
            return;
        }
        if (count < 0) {
            join.done(lane, -Errno.EINVAL);
            return;
        }
        if (count == 0) {
            join.done(lane, 0);
            return;
        }
        byte[] bytes = svm.segment(buffer, count).toArray(ValueLayout.JAVA_BYTE);
        c.channel.writeAndFlush(Unpooled.wrappedBuffer(bytes)).addListener((ChannelFuture f) ->
                join.done(lane, f.isSuccess() ? count : -errno(f.cause())));
    }

    private void recv(LaneJoin join, int lane, Svm svm, long id, long buffer, long capacity) {
        if (!(sockets.get(id) instanceof Connection c)) {
            join.done(lane, sockets.containsKey(id) ? -Errno.ENOTCONN : -Errno.EBADF);
            return;
        }
        if (capacity < 0) {
            join.done(lane, -Errno.EINVAL);
            return;
        }
        if (capacity == 0) {
            join.done(lane, 0);
            return;
        }
        c.recv(join, lane, svm.segment(buffer, capacity));
    }

    private long close(long id) {
        Object s = sockets.remove(id);
        if (s == null) {
            return -Errno.EBADF;
        }
        closeSocket(s);
        return 0;
    }

    private static void closeSocket(Object s) {
        if (s instanceof Connection c) {
            c.close();
        } else if (s instanceof Listener l) {
            l.close();
        }
    }

    private long localPort(long id) {
        Object s = sockets.get(id);
        Channel ch = s instanceof Connection c ? c.channel : s instanceof Listener l ? l.channel : null;
        if (ch == null) {
            return -Errno.EBADF;
        }
        InetSocketAddress local = (InetSocketAddress) ch.localAddress();
        return local == null ? -Errno.ENOTCONN : local.getPort();
    }

    static int errno(Throwable t) {
        if (t instanceof MemoryFaultException) {
            return Errno.EFAULT;
        }
        if (t instanceof BindException) {
            return Errno.EADDRINUSE;
        }
        if (t instanceof ConnectTimeoutException) {
            return Errno.ETIMEDOUT;
        }
        if (t instanceof ConnectException) {
            return Errno.ECONNREFUSED;
        }
        if (t instanceof ClosedChannelException) {
            return Errno.ENOTCONN;
        }
        if (t instanceof IllegalArgumentException || t instanceof UnknownHostException) {
            return Errno.EINVAL;
        }
        if (t instanceof IOException io && io.getMessage() != null && io.getMessage().contains("reset")) {
            return Errno.ECONNRESET;
        }
        return Errno.EIO;
    }

    /** Closes every socket (their waiting calls end with an error) and stops the event loop. */
    @Override
    public void close() {
        closed = true;
        for (Long id : sockets.keySet()) {
            Object s = sockets.remove(id);
            if (s != null) {
                closeSocket(s);
            }
        }
        EventLoopGroup g = group;
        if (g != null) {
            g.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }
}
