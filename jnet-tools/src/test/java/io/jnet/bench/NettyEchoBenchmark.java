package io.jnet.bench;

import io.jnet.nio.JnetNetwork;
import io.jnet.nio.programs.NettyPrograms;
import io.jnet.perf.BusyCores;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Netty's echo, the same client and server code with Netty's default settings, on two networks side by side:
 * jnet (Netty's NIO transport on jnet's provider, server and client in two namespaces joined by a veth pair; all
 * in this process, no system call on the data path) and the kernel (Netty's NIO transport on the JDK's provider,
 * 127.0.0.1: system calls and the kernel's loopback). Two tests: a stream (the client keeps 64 KiB writes in
 * flight while the channel is writable; the figure is the echoed bytes, Mbit/s, 10^6 bits) and request/response
 * (one byte each way, transactions per second). Runs alternate jnet, kernel, jnet, kernel ... after a warm-up of
 * each; the report gives each run, the ratio jnet/kernel of each pair, and the median ratio.
 *
 * <pre>{@code ./bench.sh --main io.jnet.bench.NettyEchoBenchmark [seconds] [pairs] [busy-cores]}</pre>
 */
public final class NettyEchoBenchmark {
    private NettyEchoBenchmark() {}

    interface Side extends AutoCloseable {
        String name();

        NettyPrograms.Transport client();

        InetSocketAddress server();

        @Override
        void close();
    }

    static Side jnet() throws InterruptedException {
        NetNamespace a = NetNamespace.create("bench-netty-a"), b = NetNamespace.create("bench-netty-b");
        Topology.link(a, b, "veth0", "10.9.3.1/24", "10.9.3.2/24");
        NettyPrograms.Transport ta = NettyPrograms.Transport.of(JnetNetwork.of(a).selectorProvider(), 0);
        NettyPrograms.Transport tb = NettyPrograms.Transport.of(JnetNetwork.of(b).selectorProvider(), 0);
        InetSocketAddress addr = new InetSocketAddress("10.9.3.2", 7);
        Channel server = NettyPrograms.echoServer(tb, addr);
        return new Side() {
            public String name() { return "jnet"; }
            public NettyPrograms.Transport client() { return ta; }
            public InetSocketAddress server() { return addr; }
            public void close() {
                server.close().syncUninterruptibly();
                ta.shutdown();
                tb.shutdown();
                a.close();
                b.close();
            }
        };
    }

    static Side kernel() throws InterruptedException {
        NettyPrograms.Transport t = NettyPrograms.Transport.defaults(0);
        NettyPrograms.Transport ts = NettyPrograms.Transport.defaults(0);
        InetSocketAddress addr = new InetSocketAddress("127.0.0.1", 17007);
        Channel server = NettyPrograms.echoServer(ts, addr);
        return new Side() {
            public String name() { return "kernel"; }
            public NettyPrograms.Transport client() { return t; }
            public InetSocketAddress server() { return addr; }
            public void close() {
                server.close().syncUninterruptibly();
                t.shutdown();
                ts.shutdown();
            }
        };
    }

    /** Echoed bytes per second over {@code seconds}, in 10^6 bits/s. */
    static double stream(Side side, double seconds) throws Exception {
        AtomicLong received = new AtomicLong();
        ByteBuf chunk = Unpooled.unreleasableBuffer(Unpooled.directBuffer(65536).writeZero(65536));
        Channel ch = new Bootstrap().group(side.client().group()).channelFactory(side.client().channels()::get)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) { pump(ctx); }

                    @Override
                    public void channelWritabilityChanged(ChannelHandlerContext ctx) { pump(ctx); }

                    private void pump(ChannelHandlerContext ctx) {
                        while (ctx.channel().isActive() && ctx.channel().isWritable()) ctx.write(chunk.retainedDuplicate());
                        ctx.flush();
                    }

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf b = (ByteBuf) msg;
                        received.addAndGet(b.readableBytes());
                        b.release();
                    }
                }).connect(side.server()).sync().channel();
        Thread.sleep(200);
        long r0 = received.get(), t0 = System.nanoTime();
        Thread.sleep((long) (seconds * 1000));
        long r1 = received.get(), t1 = System.nanoTime();
        ch.close().sync();
        return (r1 - r0) * 8e3 / (t1 - t0);
    }

    /** One-byte request/responses per second over {@code seconds}. */
    static double requestResponse(Side side, double seconds) throws Exception {
        AtomicLong count = new AtomicLong();
        ByteBuf one = Unpooled.unreleasableBuffer(Unpooled.directBuffer(1).writeByte(1));
        Channel ch = new Bootstrap().group(side.client().group()).channelFactory(side.client().channels()::get)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) { ctx.writeAndFlush(one.duplicate()); }

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ((ByteBuf) msg).release();
                        count.incrementAndGet();
                        ctx.writeAndFlush(one.duplicate());
                    }
                }).connect(side.server()).sync().channel();
        Thread.sleep(200);
        long c0 = count.get(), t0 = System.nanoTime();
        Thread.sleep((long) (seconds * 1000));
        long c1 = count.get(), t1 = System.nanoTime();
        ch.close().sync();
        return (c1 - c0) * 1e9 / (t1 - t0);
    }

    interface Test {
        double run(Side side, double seconds) throws Exception;
    }

    static void compare(String name, String unit, Test test, Side jnet, Side kernel, double seconds, int pairs) throws Exception {
        test.run(jnet, 1);
        test.run(kernel, 1); // warm-up
        List<Double> ratios = new ArrayList<>();
        StringBuilder runs = new StringBuilder();
        for (int i = 0; i < pairs; i++) {
            double j = test.run(jnet, seconds), k = test.run(kernel, seconds);
            ratios.add(j / k);
            runs.append(String.format(Locale.ROOT, "  pair %d: jnet %.0f, kernel %.0f %s, ratio %.2f%n", i + 1, j, k, unit, j / k));
        }
        List<Double> sorted = ratios.stream().sorted().toList();
        double median = sorted.size() % 2 == 1 ? sorted.get(sorted.size() / 2)
                : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
        System.out.print(runs);
        System.out.printf(Locale.ROOT, "%s: median jnet/kernel %.2f (min %.2f, max %.2f) over %d pairs of %.1f s%n",
                name, median, sorted.getFirst(), sorted.getLast(), pairs, seconds);
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int busy = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        try (BusyCores cores = busy > 0 ? BusyCores.start(busy) : null; Side j = jnet(); Side k = kernel()) {
            System.out.println("Netty echo, jnet (two namespaces, veth) vs kernel (127.0.0.1), " + seconds + " s runs, "
                    + (busy > 0 ? cores.description() : "no core kept busy"));
            compare("TCP stream echo, 64 KiB writes", "Mbit/s", NettyEchoBenchmark::stream, j, k, seconds, pairs);
            compare("request/response 1 byte", "trans/s", NettyEchoBenchmark::requestResponse, j, k, seconds, pairs);
        }
        TimeUnit.MILLISECONDS.sleep(10);
    }
}
