package io.jnet.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.nio.JnetNetwork;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The socket behaviour suite through the JDK's NIO channels of {@link JnetNetwork#selectorProvider()}, over every
 * {@link TransportPath}, in two modes: blocking channels with a thread per side, and non-blocking channels driven by
 * one selector per side (as an event loop such as Netty's does).
 */
@Timeout(60)
class NioChannelSuiteTest extends SuiteBase {

    enum Mode { BLOCKING, SELECTOR }

    static Stream<Arguments> pathsAndModes() {
        return paths().stream().flatMap(p -> Stream.of(Arguments.of(p, Mode.BLOCKING), Arguments.of(p, Mode.SELECTOR)));
    }

    private SelectorProvider clientProvider() { return JnetNetwork.of(topo.client()).selectorProvider(); }

    private SelectorProvider serverProvider() { return JnetNetwork.of(topo.server()).selectorProvider(); }

    private ServerSocketChannel listenChannel(int port) throws IOException {
        ServerSocketChannel ssc = serverProvider().openServerSocketChannel();
        ssc.bind(server(port), 128);
        return ssc;
    }

    private SocketChannel connectChannel(int port) throws IOException {
        SocketChannel c = clientProvider().openSocketChannel();
        c.connect(server(port));
        return c;
    }

    /** A blocking echo of one connection until the peer's end of stream; returns the bytes echoed. */
    private static long blockingEcho(SocketChannel s) throws IOException {
        long total = 0;
        ByteBuffer buf = ByteBuffer.allocate(16384);
        try (s) {
            while (s.read(buf) >= 0) {
                buf.flip();
                total += buf.remaining();
                while (buf.hasRemaining()) s.write(buf);
                buf.clear();
            }
            s.shutdownOutput();
        }
        return total;
    }

    /**
     * A one-thread selector-driven echo server: accepts {@code connections} connections, echoes each until its end
     * of stream, then shuts its output down; returns the bytes echoed in all.
     */
    private static long selectorEcho(ServerSocketChannel ssc, int connections) throws IOException {
        long total = 0;
        int finished = 0;
        try (Selector sel = ssc.provider().openSelector()) {
            ssc.configureBlocking(false);
            ssc.register(sel, SelectionKey.OP_ACCEPT);
            while (finished < connections) {
                sel.select(1000);
                for (Iterator<SelectionKey> it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey k = it.next();
                    it.remove();
                    if (!k.isValid()) continue;
                    if (k.isAcceptable()) {
                        SocketChannel s;
                        while ((s = ssc.accept()) != null) {
                            s.configureBlocking(false);
                            s.register(sel, SelectionKey.OP_READ, ByteBuffer.allocate(16384));
                        }
                        continue;
                    }
                    SocketChannel s = (SocketChannel) k.channel();
                    ByteBuffer buf = (ByteBuffer) k.attachment();
                    if (k.isWritable()) {
                        buf.flip();
                        total += s.write(buf);
                        buf.compact();
                        if (buf.position() == 0) k.interestOps(SelectionKey.OP_READ);
                    }
                    if (k.isValid() && k.isReadable()) {
                        int n = s.read(buf);
                        if (n < 0) {
                            buf.flip();
                            while (buf.hasRemaining()) total += s.write(buf); // the rest, then the FIN
                            s.shutdownOutput();
                            k.cancel();
                            s.close();
                            finished++;
                        } else if (n > 0) {
                            buf.flip();
                            total += s.write(buf);
                            buf.compact();
                            if (buf.position() > 0) k.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                            if (!buf.hasRemaining()) k.interestOps(SelectionKey.OP_WRITE); // full: drain first
                        }
                    }
                }
            }
        }
        return total;
    }

    /**
     * Clients driven by one selector: each connects without blocking, writes its data and shuts its output down,
     * and reads the echo to its end; returns what each read back.
     */
    private List<byte[]> selectorClients(int port, List<byte[]> datas) throws IOException {
        List<byte[]> back = new ArrayList<>();
        try (Selector sel = clientProvider().openSelector()) {
            int open = 0;
            for (byte[] data : datas) {
                SocketChannel c = clientProvider().openSocketChannel();
                c.configureBlocking(false);
                Conn conn = new Conn(c, ByteBuffer.wrap(data), ByteBuffer.allocate(data.length));
                back.add(conn.in.array());
                int ops = c.connect(server(port)) ? SelectionKey.OP_WRITE | SelectionKey.OP_READ : SelectionKey.OP_CONNECT;
                c.register(sel, ops, conn);
                open++;
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            while (open > 0) {
                assertThat(System.nanoTime()).as("clients done in time; topology:\n%s", topo.describe()).isLessThan(deadline);
                sel.select(1000);
                for (Iterator<SelectionKey> it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey k = it.next();
                    it.remove();
                    Conn conn = (Conn) k.attachment();
                    SocketChannel c = (SocketChannel) k.channel();
                    if (k.isConnectable()) {
                        assertThat(c.finishConnect()).isTrue();
                        k.interestOps(SelectionKey.OP_WRITE | SelectionKey.OP_READ);
                        continue;
                    }
                    if (k.isWritable()) {
                        c.write(conn.out);
                        if (!conn.out.hasRemaining()) {
                            c.shutdownOutput();
                            k.interestOps(SelectionKey.OP_READ);
                        }
                    }
                    if (k.isReadable()) {
                        int n = conn.in.hasRemaining() ? c.read(conn.in) : c.read(ByteBuffer.allocate(1));
                        if (n < 0) {
                            k.cancel();
                            c.close();
                            open--;
                        }
                    }
                }
            }
        }
        return back;
    }

    private record Conn(SocketChannel channel, ByteBuffer out, ByteBuffer in) {}

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("pathsAndModes")
    void echoesRandomDataInBothDirectionsAtOnce(TransportPath path, Mode mode) throws Exception {
        open(path);
        byte[] data = new byte[1 << 20];
        new Random(3).nextBytes(data);
        try (ServerSocketChannel ssc = listenChannel(PORT)) {
            if (mode == Mode.BLOCKING) {
                Future<Long> server = pool.submit(() -> blockingEcho(ssc.accept()));
                try (SocketChannel c = connectChannel(PORT)) {
                    Future<?> writer = pool.submit(() -> {
                        ByteBuffer out = ByteBuffer.wrap(data);
                        while (out.hasRemaining()) c.write(out);
                        c.shutdownOutput();
                        return null;
                    });
                    ByteBuffer in = ByteBuffer.allocate(data.length + 1);
                    while (c.read(in) >= 0) { }
                    writer.get(30, TimeUnit.SECONDS);
                    assertThat(in.position()).isEqualTo(data.length);
                    assertThat(Arrays.equals(Arrays.copyOf(in.array(), data.length), data)).isTrue();
                }
                assertThat(within(server, 30, "server")).isEqualTo(data.length);
            } else {
                Future<Long> server = pool.submit(() -> selectorEcho(ssc, 1));
                List<byte[]> back = selectorClients(PORT, List.of(data));
                assertThat(Arrays.equals(back.get(0), data)).as("echoed bytes equal the sent bytes").isTrue();
                assertThat(within(server, 30, "server")).isEqualTo(data.length);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("pathsAndModes")
    void manyConcurrentConnectionsEachTransferData(TransportPath path, Mode mode) throws Exception {
        open(path);
        int n = 32;
        List<byte[]> datas = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] d = new byte[10_000 + 997 * i];
            new Random(i).nextBytes(d);
            datas.add(d);
        }
        long expected = datas.stream().mapToLong(d -> d.length).sum();
        try (ServerSocketChannel ssc = listenChannel(PORT)) {
            if (mode == Mode.SELECTOR) {
                Future<Long> server = pool.submit(() -> selectorEcho(ssc, n));
                List<byte[]> back = selectorClients(PORT, datas);
                for (int i = 0; i < n; i++) assertThat(Arrays.equals(back.get(i), datas.get(i))).as("connection %d", i).isTrue();
                assertThat(within(server, 30, "server")).isEqualTo(expected);
            } else {
                Future<?> acceptor = pool.submit(() -> {
                    for (int i = 0; i < n; i++) {
                        SocketChannel s = ssc.accept();
                        pool.submit(() -> blockingEcho(s));
                    }
                    return null;
                });
                List<Future<byte[]>> clients = new ArrayList<>();
                for (byte[] d : datas) {
                    clients.add(pool.submit(() -> {
                        try (SocketChannel c = connectChannel(PORT)) {
                            Future<?> w = pool.submit(() -> {
                                ByteBuffer out = ByteBuffer.wrap(d);
                                while (out.hasRemaining()) c.write(out);
                                c.shutdownOutput();
                                return null;
                            });
                            ByteBuffer in = ByteBuffer.allocate(d.length);
                            while (c.read(in) >= 0 && in.hasRemaining()) { }
                            w.get(30, TimeUnit.SECONDS);
                            return in.array();
                        }
                    }));
                }
                for (int i = 0; i < n; i++) assertThat(Arrays.equals(within(clients.get(i), 30, "client " + i), datas.get(i))).isTrue();
                within(acceptor, 30, "acceptor");
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("pathsAndModes")
    void halfCloseLetsThePeerKeepWriting(TransportPath path, Mode mode) throws Exception {
        open(path);
        try (ServerSocketChannel ssc = listenChannel(PORT); SocketChannel c = connectChannel(PORT); SocketChannel s = ssc.accept()) {
            c.shutdownOutput();
            ByteBuffer one = ByteBuffer.allocate(1);
            if (mode == Mode.SELECTOR) {
                s.configureBlocking(false);
                try (Selector sel = serverProvider().openSelector()) {
                    s.register(sel, SelectionKey.OP_READ);
                    assertThat(sel.select(5000)).isEqualTo(1);
                }
            }
            assertThat(s.read(one)).isEqualTo(-1);
            s.configureBlocking(true);
            s.write(ByteBuffer.wrap("after".getBytes()));
            s.close();
            ByteBuffer in = ByteBuffer.allocate(16);
            while (c.read(in) >= 0) { }
            assertThat(new String(in.array(), 0, in.position())).isEqualTo("after");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("pathsAndModes")
    void refusedAndResetConnectionsFailAsTheJdkSays(TransportPath path, Mode mode) throws Exception {
        open(path);
        SocketChannel refused = clientProvider().openSocketChannel();
        if (mode == Mode.BLOCKING) {
            assertThatThrownBy(() -> refused.connect(server(9))).isInstanceOf(ConnectException.class).hasMessage("Connection refused");
        } else {
            refused.configureBlocking(false);
            try (Selector sel = clientProvider().openSelector()) {
                if (!refused.connect(server(9))) {
                    refused.register(sel, SelectionKey.OP_CONNECT);
                    assertThat(sel.select(5000)).isEqualTo(1);
                }
                assertThatThrownBy(refused::finishConnect).isInstanceOf(ConnectException.class).hasMessage("Connection refused");
            }
        }
        assertThat(refused.isOpen()).isFalse();
        try (ServerSocketChannel ssc = listenChannel(PORT); SocketChannel c = connectChannel(PORT)) {
            SocketChannel s = ssc.accept();
            s.setOption(StandardSocketOptions.SO_LINGER, 0);
            s.close(); // RST
            if (mode == Mode.SELECTOR) {
                c.configureBlocking(false);
                try (Selector sel = clientProvider().openSelector()) {
                    c.register(sel, SelectionKey.OP_READ);
                    assertThat(sel.select(5000)).isEqualTo(1);
                }
            }
            assertThatThrownBy(() -> {
                ByteBuffer b = ByteBuffer.allocate(1);
                for (int i = 0; i < 100 && c.read(b) == 0; i++) Thread.sleep(10);
            }).isInstanceOf(SocketException.class).hasMessage("Connection reset");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("pathsAndModes")
    void connectRequestResponseCloseChurn(TransportPath path, Mode mode) throws Exception {
        open(path);
        int rounds = 200;
        try (ServerSocketChannel ssc = listenChannel(PORT)) {
            Future<Long> server = mode == Mode.SELECTOR ? pool.submit(() -> selectorEcho(ssc, rounds)) : pool.submit(() -> {
                long t = 0;
                for (int i = 0; i < rounds; i++) t += blockingEcho(ssc.accept());
                return t;
            });
            for (int i = 0; i < rounds; i++) {
                try (SocketChannel c = connectChannel(PORT)) {
                    c.write(ByteBuffer.wrap(new byte[] {(byte) i}));
                    c.shutdownOutput();
                    ByteBuffer one = ByteBuffer.allocate(1);
                    while (one.hasRemaining() && c.read(one) >= 0) { }
                    assertThat(one.get(0)).isEqualTo((byte) i);
                }
            }
            assertThat(within(server, 30, "server")).isEqualTo(rounds);
        }
    }
}
