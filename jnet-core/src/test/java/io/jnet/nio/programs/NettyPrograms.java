package io.jnet.nio.programs;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Netty 4.2 programs as anyone writes them with the NIO transport: an echo server and client (a stream and
 * 1-byte request/response), and an HTTP/1.1 server and client. Which network they run on is only the
 * {@link SelectorProvider} their event loops and channels come from: the JDK's default (the JVM-wide one,
 * jnet's when installed) or one a caller names.
 */
public final class NettyPrograms {
    private NettyPrograms() {}

    /** The event loops, channels and provider of one side. */
    public record Transport(EventLoopGroup group, Supplier<ServerChannel> serverChannels, Supplier<Channel> channels) {
        /** Netty's defaults: the JVM-wide provider ({@link SelectorProvider#provider()}). */
        public static Transport defaults(int threads) {
            return new Transport(new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory()),
                    NioServerSocketChannel::new, NioSocketChannel::new);
        }

        /** Netty's NIO transport on {@code provider}. */
        public static Transport of(SelectorProvider provider, int threads) {
            return new Transport(new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory(provider)),
                    () -> new NioServerSocketChannel(provider), () -> new NioSocketChannel(provider));
        }

        public void shutdown() {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** An echo server bound to {@code addr}; returns its channel. */
    public static Channel echoServer(Transport t, InetSocketAddress addr) throws InterruptedException {
        return new ServerBootstrap().group(t.group()).channelFactory(t.serverChannels()::get)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) { ctx.write(msg); }

                            @Override
                            public void channelReadComplete(ChannelHandlerContext ctx) { ctx.flush(); }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                ctx.close(); // a client that closes with data unread resets the connection
                            }
                        });
                    }
                }).bind(addr).sync().channel();
    }

    /**
     * Sends {@code bytes} bytes (a pattern) in 64 KiB writes to an echo server and reads them back.
     *
     * @return the number of bytes echoed that matched the pattern (all of them when correct)
     */
    public static long echoStream(Transport t, InetSocketAddress server, long bytes) throws Exception {
        CompletableFuture<Long> done = new CompletableFuture<>();
        Channel ch = new Bootstrap().group(t.group()).channelFactory(t.channels()::get)
                .handler(new ChannelInboundHandlerAdapter() {
                    long received, matched;

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf b = (ByteBuf) msg;
                        try {
                            while (b.isReadable()) {
                                if (b.readByte() == (byte) (received * 31 >>> 3)) matched++;
                                received++;
                            }
                        } finally {
                            b.release();
                        }
                        if (received >= bytes) done.complete(matched);
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) { done.completeExceptionally(cause); }
                }).connect(server).sync().channel();
        try {
            int chunk = 65536;
            for (long sent = 0; sent < bytes; ) {
                int n = (int) Math.min(chunk, bytes - sent);
                ByteBuf b = ch.alloc().buffer(n);
                for (int i = 0; i < n; i++) b.writeByte((byte) ((sent + i) * 31 >>> 3));
                sent += n;
                ch.writeAndFlush(b).sync(); // waits for the write: flow control by the socket's buffer
            }
            return done.get(120, TimeUnit.SECONDS);
        } finally {
            ch.close().sync();
        }
    }

    /** {@code rounds} 1-byte request/responses on one connection to an echo server; returns the rounds done. */
    public static int echoRoundTrips(Transport t, InetSocketAddress server, int rounds) throws Exception {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        Channel ch = new Bootstrap().group(t.group()).channelFactory(t.channels()::get)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInboundHandlerAdapter() {
                    int count;

                    @Override
                    public void channelActive(ChannelHandlerContext ctx) { ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1})); }

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf b = (ByteBuf) msg;
                        int n = b.readableBytes();
                        b.release();
                        count += n;
                        if (count >= rounds) done.complete(count);
                        else ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) { done.completeExceptionally(cause); }
                }).connect(server).sync().channel();
        try {
            return done.get(120, TimeUnit.SECONDS);
        } finally {
            ch.close().sync();
        }
    }

    /** An HTTP/1.1 server answering every request with "hello from ADDRESS" (its own address). */
    public static Channel httpServer(Transport t, InetSocketAddress addr) throws InterruptedException {
        return new ServerBootstrap().group(t.group()).channelFactory(t.serverChannels()::get)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20),
                                new SimpleChannelInboundHandler<FullHttpRequest>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
                                        InetSocketAddress local = (InetSocketAddress) ctx.channel().localAddress();
                                        byte[] body = ("hello from " + local.getAddress().getHostAddress() + " "
                                                + req.uri()).getBytes(StandardCharsets.UTF_8);
                                        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                                                HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
                                        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
                                        ctx.writeAndFlush(r);
                                    }
                                });
                    }
                }).bind(addr).sync().channel();
    }

    /** One GET of {@code uri} with Netty's HTTP client codec; returns "STATUS BODY". */
    public static String httpGet(Transport t, InetSocketAddress server, String uri) throws Exception {
        CompletableFuture<String> done = new CompletableFuture<>();
        Channel ch = new Bootstrap().group(t.group()).channelFactory(t.channels()::get)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel c) {
                        c.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(1 << 20),
                                new SimpleChannelInboundHandler<FullHttpResponse>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse r) {
                                        done.complete(r.status().code() + " " + r.content().toString(StandardCharsets.UTF_8));
                                    }

                                    @Override
                                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                        done.completeExceptionally(cause);
                                    }
                                });
                    }
                }).connect(server).sync().channel();
        try {
            FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
            req.headers().set(HttpHeaderNames.HOST, server.getHostString());
            ch.writeAndFlush(req).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
            return done.get(30, TimeUnit.SECONDS);
        } finally {
            ch.close().sync();
        }
    }

    /**
     * Unchanged program: an echo and an HTTP server on 127.0.0.1 and their clients in one JVM, on Netty's
     * default transport. Prints one line per check.
     */
    public static void main(String[] args) throws Exception {
        Transport t = Transport.defaults(2);
        try {
            InetSocketAddress echo = new InetSocketAddress("127.0.0.1", 7007), http = new InetSocketAddress("127.0.0.1", 8088);
            Channel e = echoServer(t, echo);
            Channel h = httpServer(t, http);
            long bytes = 8L << 20;
            System.out.println("netty-stream " + (echoStream(t, echo, bytes) == bytes ? "ok" : "mismatch"));
            System.out.println("netty-rr " + echoRoundTrips(t, echo, 1000));
            System.out.println("netty-http " + httpGet(t, http, "/x"));
            e.close().sync();
            h.close().sync();
        } finally {
            t.shutdown();
        }
    }
}
