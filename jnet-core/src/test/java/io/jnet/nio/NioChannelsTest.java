package io.jnet.nio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalSelectorException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The NIO channels and selector of {@link JnetSelectorProvider} between two namespaces joined by a veth pair:
 * data, modes, selection, and the JDK's rules for close, interrupt and wakeup.
 */
@Timeout(30)
class NioChannelsTest {
    private static final String A = "10.9.0.1", B = "10.9.0.2";
    private NetNamespace a, b;
    private SelectorProvider pa, pb;
    private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

    @BeforeEach
    void setUp() {
        a = NetNamespace.create("nio-a");
        b = NetNamespace.create("nio-b");
        Topology.link(a, b, "veth0", A + "/24", B + "/24");
        pa = JnetNetwork.of(a).selectorProvider();
        pb = JnetNetwork.of(b).selectorProvider();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        a.close();
        b.close();
        assertThat(a.internalErrors() + b.internalErrors()).isZero();
    }

    private ServerSocketChannel listen(int port) throws Exception {
        ServerSocketChannel ssc = pb.openServerSocketChannel();
        ssc.bind(new InetSocketAddress(B, port));
        return ssc;
    }

    /** Reads {@code n} bytes from a blocking channel. */
    private static String readExactly(SocketChannel s, int n) throws Exception {
        ByteBuffer buf = ByteBuffer.allocate(n);
        while (buf.hasRemaining()) assertThat(s.read(buf)).isNotNegative();
        return new String(buf.array(), java.nio.charset.StandardCharsets.US_ASCII);
    }

    @Test
    void theAdaptorsOobInlineDecidesWhetherUrgentDataStaysInTheStream() throws Exception {
        try (ServerSocketChannel ssc = listen(9)) {
            for (boolean inline : new boolean[] {false, true}) {
                io.jnet.socket.TcpSocket peer = io.jnet.socket.TcpSocket.open(a);
                peer.connect(new InetSocketAddress(B, 9));
                try (SocketChannel s = ssc.accept()) {
                    assertThat(s.socket().getOOBInline()).isFalse();
                    s.socket().setOOBInline(inline);
                    assertThat(s.socket().getOOBInline()).isEqualTo(inline);
                    peer.write(new byte[] {'a', 'b'}, 0, 2);
                    peer.write(new byte[] {'!'}, 0, 1, io.jnet.socket.MsgFlags.MSG_OOB);
                    peer.write(new byte[] {'c', 'd'}, 0, 2);
                    // as the JDK's adaptor, which sets SO_OOBINLINE on the socket: in the stream, or skipped
                    assertThat(readExactly(s, inline ? 5 : 4)).isEqualTo(inline ? "ab!cd" : "abcd");
                    assertThatThrownBy(() -> s.socket().sendUrgentData(1)).isInstanceOf(SocketException.class);
                } finally {
                    peer.close();
                }
            }
        }
    }

    @Test
    void blockingEchoCarriesEveryByteBothWays() throws Exception {
        try (ServerSocketChannel ssc = listen(7)) {
            Future<?> server = pool.submit(() -> {
                try (SocketChannel s = ssc.accept()) {
                    ByteBuffer buf = ByteBuffer.allocate(8192);
                    while (s.read(buf) >= 0) {
                        buf.flip();
                        while (buf.hasRemaining()) s.write(buf);
                        buf.clear();
                    }
                }
                return null;
            });
            byte[] data = new byte[3 * 1024 * 1024 + 17];
            new Random(1).nextBytes(data);
            try (SocketChannel c = pa.openSocketChannel()) {
                assertThat(c.connect(new InetSocketAddress(B, 7))).isTrue();
                assertThat(c.isConnected()).isTrue();
                assertThat(((InetSocketAddress) c.getLocalAddress()).getAddress().getHostAddress()).isEqualTo(A);
                assertThat(c.getRemoteAddress()).isEqualTo(new InetSocketAddress(B, 7));
                Future<byte[]> reader = pool.submit(() -> {
                    ByteBuffer in = ByteBuffer.allocate(data.length);
                    while (in.hasRemaining() && c.read(in) >= 0) { }
                    return in.array();
                });
                ByteBuffer out = ByteBuffer.wrap(data);
                while (out.hasRemaining()) c.write(out);
                c.shutdownOutput();
                assertThat(MessageDigest.getInstance("SHA-256").digest(reader.get(20, TimeUnit.SECONDS)))
                        .isEqualTo(MessageDigest.getInstance("SHA-256").digest(data));
                server.get(10, TimeUnit.SECONDS);
                assertThat(c.read(ByteBuffer.allocate(1))).isEqualTo(-1);
            }
        }
    }

    @Test
    void scatterAndGatherMoveWholeBuffersInOrder() throws Exception {
        try (ServerSocketChannel ssc = listen(8); SocketChannel c = pa.openSocketChannel()) {
            c.connect(new InetSocketAddress(B, 8));
            try (SocketChannel s = ssc.accept()) {
                ByteBuffer[] out = {ByteBuffer.wrap("abc".getBytes()), ByteBuffer.allocate(0), ByteBuffer.wrap("defgh".getBytes())};
                assertThat(c.write(out)).isEqualTo(8);
                ByteBuffer x = ByteBuffer.allocate(2), y = ByteBuffer.allocate(6);
                long got = 0;
                while (got < 8) got += s.read(new ByteBuffer[] {x, y});
                assertThat(new String(x.array()) + new String(y.array())).isEqualTo("abcdefgh");
            }
        }
    }

    @Test
    void nonBlockingConnectAndSelectorDrivenEcho() throws Exception {
        try (ServerSocketChannel ssc = listen(9); Selector sel = pb.openSelector(); Selector csel = pa.openSelector();
             SocketChannel c = pa.openSocketChannel()) {
            ssc.configureBlocking(false);
            assertThat(ssc.accept()).isNull();
            ssc.register(sel, SelectionKey.OP_ACCEPT);
            c.configureBlocking(false);
            boolean done = c.connect(new InetSocketAddress(B, 9));
            SelectionKey ck = c.register(csel, SelectionKey.OP_CONNECT);
            if (!done) {
                assertThat(c.isConnectionPending()).isTrue();
                assertThat(csel.select(5000)).isEqualTo(1);
                assertThat(ck.isConnectable()).isTrue();
                assertThat(c.finishConnect()).isTrue();
            }
            assertThat(c.isConnected()).isTrue();
            csel.selectedKeys().clear();
            ck.interestOps(SelectionKey.OP_READ);

            assertThat(sel.select(5000)).isEqualTo(1);
            SelectionKey acceptKey = sel.selectedKeys().iterator().next();
            assertThat(acceptKey.isAcceptable()).isTrue();
            sel.selectedKeys().clear();
            SocketChannel s = ssc.accept();
            assertThat(s.isBlocking()).as("accepted channels start blocking").isTrue();
            s.configureBlocking(false);
            s.register(sel, SelectionKey.OP_READ);

            c.write(ByteBuffer.wrap("ping".getBytes()));
            ByteBuffer in = ByteBuffer.allocate(16);
            while (in.position() < 4) {
                assertThat(sel.select(5000)).isPositive();
                for (Iterator<SelectionKey> it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey k = it.next();
                    it.remove();
                    if (k.isReadable()) ((SocketChannel) k.channel()).read(in);
                }
            }
            assertThat(new String(in.array(), 0, 4)).isEqualTo("ping");
            s.write(ByteBuffer.wrap("pong".getBytes()));
            assertThat(csel.select(5000)).isEqualTo(1);
            ByteBuffer back = ByteBuffer.allocate(4);
            while (back.hasRemaining()) c.read(back);
            assertThat(new String(back.array())).isEqualTo("pong");
            // nothing more to read: a non-blocking read gives 0, and selectNow finds no new readiness
            assertThat(c.read(ByteBuffer.allocate(1))).isZero();
            csel.selectedKeys().clear();
            assertThat(csel.selectNow()).isZero();
            s.close();
            assertThat(csel.select(5000)).isEqualTo(1);
            assertThat(c.read(ByteBuffer.allocate(1))).isEqualTo(-1);
        }
    }

    @Test
    void readyKeyAlreadySelectedIsNotCountedAgainUntilItsReadySetGrows() throws Exception {
        try (ServerSocketChannel ssc = listen(10); Selector sel = pa.openSelector(); SocketChannel c = pa.openSocketChannel()) {
            c.connect(new InetSocketAddress(B, 10));
            try (SocketChannel s = ssc.accept()) {
                c.configureBlocking(false);
                SelectionKey k = c.register(sel, SelectionKey.OP_WRITE);
                assertThat(sel.selectNow()).isEqualTo(1);
                assertThat(k.readyOps()).isEqualTo(SelectionKey.OP_WRITE);
                assertThat(sel.selectNow()).as("still writable, already selected").isZero();
                k.interestOps(SelectionKey.OP_WRITE | SelectionKey.OP_READ);
                s.write(ByteBuffer.wrap(new byte[] {1}));
                assertThat(sel.select(5000)).isEqualTo(1);
                assertThat(k.readyOps()).isEqualTo(SelectionKey.OP_WRITE | SelectionKey.OP_READ);
                assertThatThrownBy(() -> sel.selectedKeys().add(k)).isInstanceOf(UnsupportedOperationException.class);
                k.cancel();
                sel.selectNow();
                assertThat(sel.keys()).isEmpty();
            }
        }
    }

    @Test
    void connectRefusedClosesTheChannel() throws Exception {
        SocketChannel c = pa.openSocketChannel();
        assertThatThrownBy(() -> c.connect(new InetSocketAddress(B, 1)))
                .isInstanceOf(ConnectException.class).hasMessage("Connection refused");
        assertThat(c.isOpen()).isFalse();
        SocketChannel nb = pa.openSocketChannel();
        nb.configureBlocking(false);
        if (!nb.connect(new InetSocketAddress(B, 1))) {
            try (Selector sel = pa.openSelector()) {
                nb.register(sel, SelectionKey.OP_CONNECT);
                assertThat(sel.select(5000)).isEqualTo(1);
            }
            assertThatThrownBy(nb::finishConnect).isInstanceOf(ConnectException.class).hasMessage("Connection refused");
        }
        assertThat(nb.isOpen()).isFalse();
    }

    @Test
    void asynchronousCloseEndsABlockedReadAcceptAndSelect() throws Exception {
        try (ServerSocketChannel ssc = listen(11)) {
            CountDownLatch started = new CountDownLatch(1);
            Future<Throwable> accept = pool.submit(() -> {
                started.countDown();
                try {
                    ssc.accept();
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            started.await();
            Thread.sleep(100);
            ssc.close();
            assertThat(accept.get(5, TimeUnit.SECONDS)).isInstanceOf(AsynchronousCloseException.class);
        }
        try (ServerSocketChannel ssc = listen(12); SocketChannel c = pa.openSocketChannel()) {
            c.connect(new InetSocketAddress(B, 12));
            Future<Throwable> read = pool.submit(() -> {
                try {
                    c.read(ByteBuffer.allocate(10));
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            Thread.sleep(100);
            c.close();
            assertThat(read.get(5, TimeUnit.SECONDS)).isInstanceOf(AsynchronousCloseException.class);
            assertThatThrownBy(() -> c.read(ByteBuffer.allocate(1))).isInstanceOf(ClosedChannelException.class);
        }
    }

    @Test
    void asynchronousCloseEndsABlockedConnectAndSelect() throws Exception {
        a.interpose("veth0", SynDropper::new); // B never hears the SYN: the connect waits
        SocketChannel c = pa.openSocketChannel();
        Future<Throwable> connect = pool.submit(() -> {
            try {
                c.connect(new InetSocketAddress(B, 16));
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        Thread.sleep(200);
        assertThat(connect.isDone()).isFalse();
        c.close();
        assertThat(connect.get(5, TimeUnit.SECONDS)).isInstanceOf(AsynchronousCloseException.class);

        Selector sel = pa.openSelector();
        Future<Throwable> select = pool.submit(() -> {
            try {
                sel.select();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        Thread.sleep(100);
        assertThat(select.isDone()).isFalse();
        sel.close(); // Selector.close wakes a thread blocked in select, which then returns or finds it closed
        Throwable t = select.get(5, TimeUnit.SECONDS);
        assertThat(t == null || t instanceof java.nio.channels.ClosedSelectorException).as("%s", t).isTrue();
        assertThat(sel.isOpen()).isFalse();
    }

    @Test
    void interruptClosesTheChannelOfABlockedRead() throws Exception {
        try (ServerSocketChannel ssc = listen(13); SocketChannel c = pa.openSocketChannel()) {
            c.connect(new InetSocketAddress(B, 13));
            CompletableFuture<Throwable> result = new CompletableFuture<>();
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    c.read(ByteBuffer.allocate(10));
                    result.complete(null);
                } catch (Throwable e) {
                    result.complete(e);
                }
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
            });
            Thread.sleep(100);
            t.interrupt();
            assertThat(result.get(5, TimeUnit.SECONDS)).isInstanceOf(ClosedByInterruptException.class);
            assertThat(c.isOpen()).isFalse();
            // an interrupted thread's next blocking call closes its channel at once
            SocketChannel d = pa.openSocketChannel();
            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> d.connect(new InetSocketAddress(B, 13))).isInstanceOf(ClosedByInterruptException.class);
            assertThat(Thread.interrupted()).isTrue();
            assertThat(d.isOpen()).isFalse();
        }
    }

    @Test
    void wakeupBeforeAndDuringSelectAndInterruptEndTheSelect() throws Exception {
        try (Selector sel = pa.openSelector(); ServerSocketChannel ssc = listen(14)) {
            SocketChannel c = pa.openSocketChannel();
            c.connect(new InetSocketAddress(B, 14)); // connected and idle: never ready for reading
            c.configureBlocking(false);
            c.register(sel, SelectionKey.OP_READ);
            sel.wakeup();
            long t0 = System.nanoTime();
            assertThat(sel.select()).isZero();
            Future<Integer> during = pool.submit(() -> sel.select());
            Thread.sleep(100);
            assertThat(during.isDone()).isFalse();
            sel.wakeup();
            assertThat(during.get(5, TimeUnit.SECONDS)).isZero();
            CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    sel.select();
                    interrupted.complete(Thread.currentThread().isInterrupted());
                } catch (Exception e) {
                    interrupted.completeExceptionally(e);
                }
            });
            Thread.sleep(100);
            t.interrupt();
            assertThat(interrupted.get(5, TimeUnit.SECONDS)).isTrue();
            assertThat(sel.isOpen()).as("an interrupt does not close a selector").isTrue();
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(10));
            c.close();
        }
    }

    @Test
    void kernelChannelsAreRefusedAndJnetChannelsOfEveryNamespaceTaken() throws Exception {
        try (Selector sel = pa.openSelector(); SocketChannel kernel = SocketChannel.open(); SocketChannel other = pb.openSocketChannel()) {
            kernel.configureBlocking(false);
            other.configureBlocking(false);
            assertThatThrownBy(() -> kernel.register(sel, SelectionKey.OP_READ)).isInstanceOf(IllegalSelectorException.class);
            assertThat(other.register(sel, SelectionKey.OP_CONNECT).selector()).isSameAs(sel);
        }
    }

    @Test
    void optionsMapToJnetsAndUnconnectedCallsFailAsTheJdks() throws Exception {
        try (SocketChannel c = pa.openSocketChannel()) {
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
            assertThat(c.getOption(StandardSocketOptions.TCP_NODELAY)).isTrue();
            c.setOption(StandardSocketOptions.SO_LINGER, 5);
            assertThat(c.getOption(StandardSocketOptions.SO_LINGER)).isEqualTo(5);
            c.setOption(StandardSocketOptions.SO_LINGER, -1);
            assertThat(c.getOption(StandardSocketOptions.SO_LINGER)).isEqualTo(-1);
            c.setOption(StandardSocketOptions.SO_RCVBUF, 65536);
            assertThat(c.getOption(StandardSocketOptions.SO_RCVBUF)).as("as the JDK reports it on Linux").isEqualTo(65536);
            assertThatThrownBy(() -> c.setOption(StandardSocketOptions.SO_REUSEPORT, true))
                    .isInstanceOf(UnsupportedOperationException.class);
            assertThatThrownBy(() -> c.read(ByteBuffer.allocate(1))).isInstanceOf(NotYetConnectedException.class);
            assertThat(c.getLocalAddress()).isNull();
            assertThat(c.getRemoteAddress()).isNull();
            assertThatThrownBy(() -> c.connect(new InetSocketAddress("::1", 80)))
                    .isInstanceOf(SocketException.class).hasMessageContaining("IPv6");
        }
    }

    @Test
    void socketAdaptorsAreWorkingJavaNetSockets() throws Exception {
        try (ServerSocketChannel ssc = pb.openServerSocketChannel(); SocketChannel c = pa.openSocketChannel()) {
            ServerSocket ss = ssc.socket();
            assertThat(ss.isBound()).isFalse();
            ss.bind(new InetSocketAddress(B, 15));
            assertThat(ss.getLocalPort()).isEqualTo(15);
            ss.setSoTimeout(200);
            assertThatThrownBy(ss::accept).isInstanceOf(SocketTimeoutException.class);
            Socket cs = c.socket();
            cs.setTcpNoDelay(true);
            assertThat(cs.getTcpNoDelay()).isTrue();
            cs.connect(new InetSocketAddress(B, 15), 2000);
            assertThat(cs.isConnected()).isTrue();
            ss.setSoTimeout(0);
            try (Socket s = ss.accept()) {
                assertThat(s.getChannel()).isInstanceOf(SocketChannel.class);
                assertThat(s.getInetAddress().getHostAddress()).isEqualTo(A);
                OutputStream out = cs.getOutputStream();
                out.write("hello".getBytes());
                InputStream in = s.getInputStream();
                byte[] buf = new byte[5];
                int n = 0;
                while (n < 5) n += in.read(buf, n, 5 - n);
                assertThat(new String(buf)).isEqualTo("hello");
                s.setSoTimeout(100);
                assertThatThrownBy(() -> in.read()).isInstanceOf(SocketTimeoutException.class).hasMessage("Read timed out");
                assertThat(s.isClosed()).isFalse();
                cs.shutdownOutput();
                s.setSoTimeout(0);
                assertThat(in.read()).isEqualTo(-1);
                assertThat(Arrays.asList(cs.isOutputShutdown(), cs.isInputShutdown())).containsExactly(true, false);
            }
            cs.close();
            assertThat(c.isOpen()).isFalse();
            assertThatThrownBy(cs::getInputStream).isInstanceOf(SocketException.class).hasMessage("Socket is closed");
        }
    }
}
